/**
 * What the model-using commands share: the model and key, `--variables` / `--var-file`, `--timeout`, and asking once
 * for a missing key at a terminal. Model settings come from src/settings.ts, `--model` first; the key from
 * `<PROVIDER>_API_KEY` (which the library reads itself), else the stored `<provider>.apiKey`.
 */
import { readFileSync } from "node:fs";
import { MissingLLMConfigurationError, ServiceInvalidArgumentError } from "../../src/base.js";
import type { SettingsModel } from "../../src/internal.js";
import type { GlobalOptions } from "./output.js";
import { type SettingsStore, SETTINGS, openSettings } from "./settings.js";

/** The generic ModelConfig object the library accepts (docs/wire-formats.md "Model config"). */
export type CliModel = SettingsModel;

export interface ModelFlags {
  model?: string;
}

export interface ResolvedCliModel {
  model: CliModel;
  provider: string;
}

/** The local presets a missing-key hint offers (src/model/providers.ts; docs/models.md "Presets"). */
const LOCAL_PRESETS = "ollama/<model> (or lmstudio/, vllm/, llamacpp/)";

const hasSetting = (key: string) => SETTINGS.some((d) => d.key === key);

/**
 * Resolve and validate the model before any browser is touched: a malformed `--model` fails fast
 * (INVALID_MODEL_FORMAT), and nothing about keys is decided here beyond handing over a stored one.
 */
export async function resolveCliModel(flags: ModelFlags, settingsStore?: SettingsStore): Promise<ResolvedCliModel> {
  const settings = settingsStore ?? (await openSettings());
  const { envKeysFor, modelFromSettings } = await import("../../src/internal.js");
  const flagName = flags.model?.trim();
  if (flags.model !== undefined && !flagName) throw new ServiceInvalidArgumentError("--model must not be empty", { hint: 'use e.g. "openai/gpt-4.1-mini"' });
  const { model, provider } = modelFromSettings((key) => settings.effective(key), flagName);
  const envHasKey = envKeysFor(provider).some((name) => !!process.env[name]?.trim());
  const storedKey = `${provider}.apiKey`;
  if (!envHasKey && hasSetting(storedKey)) {
    const key = settings.stored(storedKey);
    if (typeof key === "string" && key.trim()) model.apiKey = key.trim();
  }
  return { model, provider };
}

/** commander's collector for a repeatable option. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * `--var-file vars.json` (an object of name → value or {value, description}) overlaid by each
 * `--variables k=v`. Validated by the library's own schema; values never go anywhere but the library.
 */
export async function readVariables(pairs: readonly string[] = [], file?: string): Promise<Record<string, unknown>> {
  let vars: Record<string, unknown> = {};
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new ServiceInvalidArgumentError(`cannot read --var-file ${file}: ${code === "ENOENT" ? "no such file" : (e as Error).message}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      throw new ServiceInvalidArgumentError(`--var-file ${file} is not valid JSON: ${(e as Error).message.split("\n")[0]}`);
    }
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
      throw new ServiceInvalidArgumentError(`--var-file ${file} must hold a JSON object of name → value or {"value","description"}`);
    }
    vars = { ...(parsed as Record<string, unknown>) };
  }
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new ServiceInvalidArgumentError(`--variables expects name=value, got "${pair.includes("=") ? pair : pair.slice(0, 40)}"`);
    vars[pair.slice(0, eq).trim()] = pair.slice(eq + 1);
  }
  const { parseVariables } = await import("../../src/internal.js");
  return parseVariables(vars, file !== undefined ? `--var-file ${file}` : "--variables");
}

interface MissingKey {
  code: "MISSING_LLM_CONFIGURATION";
  provider: string;
  variable: string;
}

function isMissingKey(e: unknown): e is MissingKey {
  const err = e as Partial<MissingKey> | null;
  return err?.code === "MISSING_LLM_CONFIGURATION" && typeof err.provider === "string" && typeof err.variable === "string";
}

/** Only a person at a terminal is asked; scripts, pipes and --json get the one-line error. */
function canPrompt(g: GlobalOptions): boolean {
  return !g.json && !!process.stdin.isTTY && !!process.stderr.isTTY;
}

/**
 * Run `fn` with the model; when the library reports a missing key and someone is at the terminal, ask
 * for it once (hidden), offer to store it, and run `fn` again with the key. Prompts go to stderr so that
 * stdout stays the command's result.
 */
export async function withModelKey<T>(g: GlobalOptions, spec: ResolvedCliModel, fn: (model: CliModel) => Promise<T>): Promise<T> {
  try {
    return await fn(spec.model);
  } catch (e) {
    if (!isMissingKey(e)) throw e;
    if (!canPrompt(g)) throw missingKey(e);
    const key = await askForKey(e.provider, e.variable);
    return await fn({ ...spec.model, apiKey: key });
  }
}

/**
 * Looks the key up before any browser starts (a command that needs a model fails at once, exit 9, with no
 * Chrome started); at a terminal a missing one is asked for. Returns the model with the key it will use.
 */
export async function withKey(g: GlobalOptions, spec: ResolvedCliModel, flag = "--model"): Promise<CliModel> {
  const { parseModelConfig, resolveApiKey } = await import("../../src/internal.js");
  return withModelKey(g, spec, async (model) => {
    resolveApiKey(parseModelConfig(model, flag));
    return model;
  });
}

/** The same check for a command's resolved model: the spec, with a key asked for at a terminal. */
export async function requireModel(g: GlobalOptions, spec: ResolvedCliModel): Promise<ResolvedCliModel> {
  return { ...spec, model: await withKey(g, spec) };
}

/** A missing key the library reported mid-command (a literal act that fell back to the model) in the CLI's wording; any other error as it is. */
export function inCliWords(e: unknown): unknown {
  return isMissingKey(e) ? missingKey(e) : e;
}

/** The CLI's wording: what to set, in shell terms (the library's speaks of `model.apiKey`). */
function missingKey(e: MissingKey): MissingLLMConfigurationError {
  const stored = hasSetting(`${e.provider}.apiKey`) ? `, or run svc config set ${e.provider}.apiKey <key>` : "";
  return Object.assign(
    new MissingLLMConfigurationError(`${e.variable} is not set: no API key for ${e.provider}`, {
      hint: `export ${e.variable}=<key>${stored}; at a terminal svc asks for it; or a model on this machine, no key: svc config set model ${LOCAL_PRESETS} (svc init lists the local servers that answer)`,
      cause: e,
    }),
    { provider: e.provider, variable: e.variable },
  );
}

async function askForKey(provider: string, variable: string): Promise<string> {
  const { password, confirm } = await import("@inquirer/prompts");
  const context = { input: process.stdin, output: process.stderr };
  const key = (
    await password(
      {
        message: `${variable} is not set. Paste a key for ${provider} (hidden):`,
        validate: (v) => (v.trim() ? true : "the key must not be empty (Ctrl-C to give up)"),
      },
      context,
    )
  ).trim();
  const settingKey = `${provider}.apiKey`;
  if (hasSetting(settingKey)) {
    const store = await confirm({ message: `Store it in svc's config (${settingKey}, file mode 0600) for next time?`, default: true }, context);
    if (store) {
      const settings = await openSettings();
      settings.set(settingKey, key);
      process.stderr.write(`svc: stored ${settingKey} in ${settings.path}\n`);
    }
  }
  return key;
}
