/**
 * Where a model key comes from: the config object, else `<PROVIDER>_API_KEY` in the environment, else the
 * key stored with `svc config` (the caller passes a lookup; src/ never reads the CLI's settings itself).
 * Under a ModelEndpointPolicy, a config that chooses its own endpoint gets only the key it carries.
 */
import { MissingLLMConfigurationError } from "../errors.js";
import type { ResolvedModel } from "./config.js";
import { checkedEndpoint, type ModelEndpointPolicy } from "./endpoint-policy.js";
import { envKeysFor, isLoopbackURL, providerInfo } from "./providers.js";

export type StoredKeyLookup = (provider: string) => string | undefined;

/** True when the provider can be driven without any API key (a local server, token auth). */
export function keyOptional(resolved: ResolvedModel): boolean {
  const info = providerInfo(resolved.provider);
  if (info?.local || info?.tokenAuth) return true;
  if (resolved.auth) return true; // Azure Entra token, Google service account
  return isLoopbackURL(resolved.baseURL);
}

/** The environment variable (and the other accepted names) to set for this provider. */
export function keyVariables(resolved: ResolvedModel): string[] {
  return envKeysFor(resolved.provider);
}

/**
 * The key for a resolved model, or undefined when none is needed. Throws MissingLLMConfigurationError
 * naming the variable to set when a key is needed and none is found.
 */
export function resolveApiKey(resolved: ResolvedModel, env: NodeJS.ProcessEnv = process.env, stored?: StoredKeyLookup): string | undefined {
  if (resolved.apiKey) return resolved.apiKey;
  const vars = keyVariables(resolved);
  for (const name of vars) {
    const v = env[name]?.trim();
    if (v) return v;
  }
  const s = stored?.(resolved.provider)?.trim();
  if (s) return s;
  if (keyOptional(resolved)) return undefined;
  throw missingKeyError(resolved.provider, vars);
}

/**
 * The key to send, as resolveApiKey decides, except that under `policy` a config choosing its own endpoint gets only
 * its own `apiKey`: the owner's keys must never travel to an endpoint someone else picked. Without one it is called
 * with no credential rather than refused, since only the endpoint knows whether it needs one (a 401 names
 * model.apiKey).
 */
export function resolveKeyFor(resolved: ResolvedModel, env: NodeJS.ProcessEnv, stored: StoredKeyLookup | undefined, policy: ModelEndpointPolicy | undefined): string | undefined {
  if (policy && checkedEndpoint(resolved)) return resolved.apiKey?.trim() || undefined;
  return resolveApiKey(resolved, env, stored);
}

/** MissingLLMConfigurationError that also says which provider and variable, so the CLI can ask for the key. */
export class MissingModelKeyError extends MissingLLMConfigurationError {
  override name = "MissingLLMConfigurationError";
  constructor(
    readonly provider: string,
    readonly variable: string,
    alternatives: string[] = [],
  ) {
    const set = alternatives.length ? `${variable} (or ${alternatives.join(", ")})` : variable;
    super(`no API key for ${provider}: set ${set}, pass model.apiKey, or run svc config set ${provider}.apiKey <key>`);
  }
}

export function missingKeyError(provider: string, vars = envKeysFor(provider)): MissingModelKeyError {
  const [first, ...rest] = vars.length ? vars : [`${provider.toUpperCase()}_API_KEY`];
  return new MissingModelKeyError(provider, first!, rest);
}
