/**
 * The settings svc knows (keys, the environment variables that override them, how their values parse) and how
 * an effective value is found: flag > environment > stored > built-in default. Shared by the CLI (which
 * writes the stored file with conf, commands/core/settings.ts) and the library (which only reads it).
 */
import { ServiceInvalidArgumentError } from "../errors.js";

export type SettingValue = string | number | boolean;
type Kind = "secret" | "boolean" | "string" | "viewport" | "positiveNumber" | "url" | "choice";

export interface SettingDef {
  key: string;
  kind: Kind;
  /** Environment variables that override the stored value, first set wins. */
  env: readonly string[];
  description: string;
  default?: SettingValue;
  /**
   * Where conf keeps it when that differs from the key: conf nests dotted keys, so `model` (a string) and
   * `model.baseURL` cannot both live at their own names.
   */
  path?: string;
  /** Asked for by `svc init` (the common providers' keys; the rest via `svc config set`). */
  init?: boolean;
  /** kind "choice": the allowed values (matched case-insensitively, stored as written here). */
  choices?: readonly string[];
  /** A comma-separated list (each element masked on its own when secret). */
  list?: boolean;
}

/** The default model of the CLI when neither --model, SVC_MODEL nor the `model` setting says otherwise. */
export const DEFAULT_MODEL = "openai/gpt-4.1-mini";

export const SETTINGS: readonly SettingDef[] = [
  { key: "openai.apiKey", kind: "secret", env: ["OPENAI_API_KEY"], description: "OpenAI API key", init: true },
  { key: "anthropic.apiKey", kind: "secret", env: ["ANTHROPIC_API_KEY"], description: "Anthropic API key", init: true },
  { key: "google.apiKey", kind: "secret", env: ["GOOGLE_API_KEY", "GEMINI_API_KEY"], description: "Google (Gemini) API key", init: true },
  { key: "groq.apiKey", kind: "secret", env: ["GROQ_API_KEY"], description: "Groq API key" },
  { key: "deepseek.apiKey", kind: "secret", env: ["DEEPSEEK_API_KEY"], description: "DeepSeek API key" },
  { key: "model", kind: "string", env: ["SVC_MODEL"], description: "default model (provider/model) for act, observe, extract", default: DEFAULT_MODEL, path: "model.name" },
  { key: "model.baseURL", kind: "url", env: ["SVC_MODEL_BASE_URL"], description: "OpenAI-compatible (or Anthropic) endpoint the model is reached at" },
  {
    key: "model.structuredOutput",
    kind: "choice",
    choices: ["json_schema", "json_object", "prompt"],
    env: ["SVC_MODEL_STRUCTURED_OUTPUT"],
    description: "how the model endpoint takes structured output (default: found out from its refusals)",
  },
  { key: "model.contextWindow", kind: "positiveNumber", env: ["SVC_MODEL_CONTEXT_WINDOW"], description: "tokens the model endpoint takes per request; page snapshots are budgeted to fit (default: the model's published window; 4096 for ollama/lmstudio/llamacpp)" },
  {
    key: "model.timeoutMs",
    kind: "positiveNumber",
    env: ["SVC_MODEL_TIMEOUT_MS"],
    description: "deadline of one model request in milliseconds, its whole answer included; retried twice, then the command fails (default 60000)",
  },
  { key: "browser.headless", kind: "boolean", env: ["SVC_HEADLESS"], description: "run Chrome headless", default: true },
  { key: "browser.executablePath", kind: "string", env: ["CHROME_PATH"], description: "Chrome/Chromium executable" },
  { key: "browser.viewport", kind: "viewport", env: ["SVC_VIEWPORT"], description: "viewport as WIDTHxHEIGHT" },
  {
    key: "session.idleTimeoutMinutes",
    kind: "positiveNumber",
    env: ["SVC_IDLE_TIMEOUT_MINUTES"],
    description: "minutes of inactivity after which a session ends itself",
    default: 60,
  },
  // Cloud mode: where browsers run (LOCAL: this machine; BROWSERBASE: a platform, e.g. another `svc serve`).
  { key: "env", kind: "choice", choices: ["LOCAL", "BROWSERBASE"], env: ["SVC_ENV"], description: "where browsers run: LOCAL or BROWSERBASE (--env overrides)", default: "LOCAL" },
  { key: "browserbase.apiKey", kind: "secret", env: ["BROWSERBASE_API_KEY"], description: "API key of the cloud platform (env BROWSERBASE)" },
  { key: "cloud.apiUrl", kind: "url", env: ["SVC_API_URL"], description: "session API origin (default: the platform URL, else the public cloud)" },
  { key: "cloud.platformUrl", kind: "url", env: ["BROWSERBASE_BASE_URL"], description: "platform API origin (default: the session API URL, else the public cloud)" },
  { key: "search.url", kind: "url", env: ["SVC_SEARCH_URL"], description: "SearXNG instance for `svc search`, the agent's search tool and `svc serve` (its JSON API must be enabled)" },
  { key: "state.key", kind: "secret", env: ["SVC_STATE_KEY"], description: "passphrase that encrypts `svc state save` files (AES-256-GCM); when set, every saved state is encrypted" },
  { key: "server.apiKeys", kind: "secret", list: true, env: ["SVC_API_KEYS"], description: "`svc serve`: comma-separated API keys clients must send (--api-key overrides)" },
  // svc serve as a cluster (issue 13): the shared session store and how replicas trust and reach each other.
  { key: "server.store", kind: "secret", env: ["SVC_STORE"], description: "`svc serve`: session store, memory (default) or redis://host:6379 shared by every replica (--store overrides)" },
  { key: "server.clusterSecret", kind: "secret", env: ["SVC_CLUSTER_SECRET"], description: "`svc serve` with a Redis store: secret shared by every replica, proving a forwarded request comes from one (--cluster-secret overrides)" },
  { key: "server.dataDir", kind: "string", env: ["SVC_DATA_DIR"], description: "`svc serve`: where the server keeps its data, e.g. saved contexts (default <state dir>/server-data; --data-dir overrides)" },
  { key: "server.dataKey", kind: "secret", env: ["SVC_DATA_KEY"], description: "`svc serve`: secret the server's data at rest is encrypted with (default: derived from the cluster secret, else generated into <data dir>/data.key; --data-key overrides)" },
  { key: "server.advertiseUrl", kind: "url", env: ["SVC_ADVERTISE_URL"], description: "`svc serve` with a Redis store: how other replicas reach this one (default http://HOST:PORT; --advertise-url overrides)" },
];

/** Where conf keeps `key` (validated). */
export function storagePath(key: string): string {
  const def = settingDef(key);
  return def.path ?? def.key;
}

export function settingDef(key: string): SettingDef {
  const def = SETTINGS.find((d) => d.key === key);
  if (!def) {
    throw new ServiceInvalidArgumentError(`unknown config key "${key}" (known: ${SETTINGS.map((d) => d.key).join(", ")})`);
  }
  return def;
}

/** Parse a textual value (flag, env var or `config set` argument) for `def`; `from` names where it came from. */
export function parseSetting(def: SettingDef, raw: string, from = def.key): SettingValue {
  const v = raw.trim();
  switch (def.kind) {
    case "boolean": {
      if (/^(true|1|yes|on)$/i.test(v)) return true;
      if (/^(false|0|no|off)$/i.test(v)) return false;
      throw new ServiceInvalidArgumentError(`${from} must be true or false, got "${raw}"`);
    }
    case "positiveNumber": {
      const n = Number(v);
      if (!v || !Number.isFinite(n) || n <= 0) throw new ServiceInvalidArgumentError(`${from} must be a positive number, got "${raw}"`);
      return n;
    }
    case "viewport":
      parseViewport(v, from);
      return v.toLowerCase();
    case "url": {
      let ok = false;
      try {
        ok = /^https?:$/.test(new URL(v).protocol);
      } catch {
        ok = false;
      }
      if (!ok) throw new ServiceInvalidArgumentError(`${from} must be an http(s) URL, got "${raw}"`);
      return v;
    }
    case "choice": {
      const choice = def.choices?.find((c) => c.toLowerCase() === v.toLowerCase());
      if (!choice) throw new ServiceInvalidArgumentError(`${from} must be one of ${def.choices?.join(", ")}, got "${raw}"`);
      return choice;
    }
    case "secret":
    case "string":
      if (def.list) {
        const items = splitList(v);
        if (!items.length) throw new ServiceInvalidArgumentError(`${from} must not be empty`);
        return items.join(",");
      }
      if (!v) throw new ServiceInvalidArgumentError(`${from} must not be empty`);
      return v;
  }
}

export function parseViewport(raw: string, from = "viewport"): { width: number; height: number } {
  const m = /^(\d{1,5})[xX](\d{1,5})$/.exec(raw.trim());
  const width = Number(m?.[1]);
  const height = Number(m?.[2]);
  if (!m || width < 1 || height < 1 || width > 10000 || height > 10000) {
    throw new ServiceInvalidArgumentError(`${from} must be WIDTHxHEIGHT (e.g. 1280x720), got "${raw}"`);
  }
  return { width, height };
}

/** `sk-proj-abcdef123456` → `sk-…3456`; short secrets are hidden entirely. */
function maskSecret(value: string): string {
  if (value.length < 12) return "****";
  return `${value.slice(0, 3)}…${value.slice(-4)}`;
}

/** `"a, b,,c"` → `["a", "b", "c"]`. */
export function splitList(raw: string): string[] {
  return raw
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);
}

export function displayValue(def: SettingDef, value: SettingValue | undefined): string {
  if (value === undefined) return "";
  if (def.kind !== "secret") return String(value);
  return def.list ? splitList(String(value)).map(maskSecret).join(",") : maskSecret(String(value));
}

export type Source = "flag" | "env" | "stored" | "default" | "unset";

export interface Effective {
  key: string;
  value: SettingValue | undefined;
  source: Source;
  /** The env var that supplied the value, when source is "env". */
  envVar?: string;
}

/** The value of `def` as found in `flags`, then `env`, then `stored`, then its default. */
export function effectiveSetting(
  def: SettingDef,
  flags: Readonly<Record<string, SettingValue | undefined>>,
  env: NodeJS.ProcessEnv,
  stored: (path: string) => SettingValue | undefined,
): Effective {
  const key = def.key;
  const flag = flags[key];
  if (flag !== undefined) return { key, value: flag, source: "flag" };
  for (const name of def.env) {
    const raw = env[name];
    if (raw !== undefined && raw !== "") return { key, value: parseSetting(def, raw, name), source: "env", envVar: name };
  }
  const s = stored(def.path ?? def.key);
  if (s !== undefined) return { key, value: s, source: "stored" };
  if (def.default !== undefined) return { key, value: def.default, source: "default" };
  return { key, value: undefined, source: "unset" };
}
