/**
 * Where `svc config` keeps settings, and a read-only view of them for the library: model API keys stored
 * with `svc config set openai.apiKey …` are the last fallback after the config object and the environment.
 * The CLI writes the file (with conf, which nests dotted keys); the library only reads it.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** `SVC_CONFIG_DIR`, else the platform config dir (what conf would pick, without its "-nodejs" suffix). */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SVC_CONFIG_DIR) return resolve(env.SVC_CONFIG_DIR);
  const home = homedir();
  if (process.platform === "darwin") return join(home, "Library", "Preferences", "svc");
  if (process.platform === "win32") return join(env.APPDATA || join(home, "AppData", "Roaming"), "svc", "Config");
  return join(env.XDG_CONFIG_HOME || join(home, ".config"), "svc");
}

function configFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), "config.json");
}

/** A stored string setting such as `openai.apiKey`, or undefined (missing file, bad JSON, other type). */
export function readStoredSetting(key: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const v = readStoredValue(key, env);
  return typeof v === "string" && v.trim() ? v : undefined;
}

/** A stored value at its (dotted) path in the file: a string, number or boolean, else undefined. */
export function readStoredValue(path: string, env: NodeJS.ProcessEnv = process.env): string | number | boolean | undefined {
  let node: unknown;
  try {
    node = JSON.parse(readFileSync(configFile(env), "utf8"));
  } catch {
    return undefined;
  }
  for (const part of path.split(".")) {
    if (!node || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return typeof node === "string" || typeof node === "number" || typeof node === "boolean" ? node : undefined;
}
