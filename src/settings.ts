/**
 * The model the settings name, one resolution for the CLI and the library: each setting from the explicit option,
 * then its `SVC_MODEL*` environment variable, then the stored config, else the default model openai/gpt-4.1-mini
 * (docs/models.md). Keys are not decided here: each provider's client finds its own (environment, then the stored
 * `<provider>.apiKey`).
 */
import { readStoredValue } from "./store/config-file.js";
import { type Effective, type SettingValue, effectiveSetting, settingDef } from "./store/settings-defs.js";
import { ServiceInvalidArgumentError } from "./errors.js";
import { isBareModelName, parseModelConfig, parseModelString } from "./model/config.js";

/** The generic ModelConfig object the library accepts, as the settings give it. */
export interface SettingsModel {
  modelName: string;
  apiKey?: string;
  baseURL?: string;
  capabilities?: { structuredOutput: "json_schema" | "json_object" | "prompt" };
  contextWindow?: number;
  timeoutMs?: number;
}

export type EffectiveLookup = (key: string) => Effective;

/** The library's view of the settings: the environment, then the stored file (read, never written). */
export function storedSettingsLookup(env: NodeJS.ProcessEnv = process.env): EffectiveLookup {
  const noFlags: Readonly<Record<string, SettingValue | undefined>> = {};
  return (key) => effectiveSetting(settingDef(key), noFlags, env, (path) => readStoredValue(path, env));
}

/**
 * The model config the settings give, validated (a malformed name fails with the field it came from:
 * `flagField` when `flagName` is given, else `SVC_MODEL` or `model`), and its provider.
 */
export function modelFromSettings(effective: EffectiveLookup, flagName?: string, flagField = "--model"): { model: SettingsModel; provider: string } {
  const named = effective("model");
  const modelName = String(flagName ?? named.value);
  const baseURL = effective("model.baseURL").value as string | undefined;
  const structuredOutput = effective("model.structuredOutput").value as NonNullable<SettingsModel["capabilities"]>["structuredOutput"] | undefined;
  const contextWindow = effective("model.contextWindow").value as number | undefined;
  const timeout = effective("model.timeoutMs").value as number | undefined;
  const model: SettingsModel = {
    modelName,
    ...(baseURL ? { baseURL } : {}),
    ...(structuredOutput ? { capabilities: { structuredOutput } } : {}),
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    ...(timeout !== undefined ? { timeoutMs: requestDeadline(timeout, effective("model.timeoutMs")) } : {}),
  };
  const field = flagName ? flagField : named.source === "env" ? (named.envVar ?? "SVC_MODEL") : "model";
  // The name must be provider/model, or (at a baseURL) a bare name with no slash: `openai/` and `/gpt` are
  // refused the same with or without one.
  if (!baseURL || !isBareModelName(modelName)) parseModelString(modelName, field);
  const { provider } = parseModelConfig(model, field);
  return { model, provider };
}

/** The request deadline setting as whole milliseconds, at most an hour (the model config's own bound). */
function requestDeadline(ms: number, from: Effective): number {
  const rounded = Math.max(1, Math.round(ms));
  if (rounded > 3_600_000) {
    const field = from.source === "env" ? (from.envVar ?? "SVC_MODEL_TIMEOUT_MS") : "model.timeoutMs";
    throw new ServiceInvalidArgumentError(`${field} must be at most 3600000 (one hour), got ${ms}`);
  }
  return rounded;
}
