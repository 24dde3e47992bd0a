/**
 * Model configs written by someone other than this process's owner (svc serve's tenants). A config that chooses its
 * own endpoint is that party's: it gets only the credential it carries, never the owner's keys from the environment
 * or `svc config`. Under a policy it must also lie under `allow` and is connected through the guarded `fetch`. Other
 * configs resolve their key as usual.
 */
import { ServiceInvalidArgumentError } from "../errors.js";
import type { ResolvedModel } from "./config.js";
import { providerInfo } from "./providers.js";

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface ModelEndpointPolicy {
  /** URL prefixes (`https://api.openai.com/v1`, `http://10.0.0.5:11434/v1`) a chosen endpoint must lie under; absent: any. */
  allow?: string[] | undefined;
  /** How requests to chosen endpoints connect (the provider's own endpoints use the SDK's default). */
  fetch?: FetchLike | undefined;
  /**
   * The operator's own endpoint (svc serve's `SVC_MODEL_BASE_URL` / `model.baseURL`), taken by every config
   * that chooses none, as the CLI does. The operator chose it, so it is trusted like the provider's: keys
   * resolve as usual, and neither `allow` nor `fetch` applies to it.
   */
  baseURL?: string | undefined;
}

/** Whether the config names its endpoint itself rather than taking the provider's (or the environment's). */
export function choosesEndpoint(resolved: ResolvedModel): boolean {
  return resolved.baseURL !== undefined || resolved.azure?.resourceName !== undefined || resolved.vertex !== undefined;
}

/**
 * A local-server preset (`ollama/…`, `lmstudio/…`, `vllm/…`, `llamacpp/…`) without a baseURL: its endpoint is
 * a loopback URL on the machine that runs svc. For a tenant that is the server's own machine, so under a
 * policy it counts as a chosen endpoint (checked against `allow`, connected through the guarded `fetch`);
 * only the operator's baseURL sends such a preset anywhere without those checks.
 */
export function presetEndpoint(resolved: ResolvedModel): string | undefined {
  if (choosesEndpoint(resolved)) return undefined;
  const info = providerInfo(resolved.provider);
  return info?.local ? info.baseURL : undefined;
}

/** What a policy checks: an endpoint the config chose, or a local preset's loopback one. */
export function checkedEndpoint(resolved: ResolvedModel): boolean {
  return choosesEndpoint(resolved) || presetEndpoint(resolved) !== undefined;
}

/** The field of a config that chose its endpoint, for messages (`options.model.baseURL`). */
function endpointField(resolved: ResolvedModel, field: string): string {
  if (resolved.azure?.baseURL !== undefined) return `${field}.providerOptions.azure.baseURL`;
  if (resolved.vertex?.baseURL !== undefined) return `${field}.providerOptions.vertex.baseURL`;
  if (resolved.baseURL !== undefined) return `${field}.baseURL`;
  if (resolved.azure?.resourceName !== undefined) return `${field}.providerOptions.azure.resourceName`;
  if (resolved.vertex !== undefined) return `${field}.providerOptions.vertex`;
  return field;
}

/**
 * Whether `url` lies under `prefix`, compared as URLs: same scheme, host and port, and the prefix's path
 * is a whole-segment prefix of the URL's. So `https://api.openai.com.evil.example/v1`,
 * `https://api.openai.com@evil.example/v1` and `https://api.openai.com/v10` are not under
 * `https://api.openai.com/v1`.
 */
export function underPrefix(url: string, prefix: string): boolean {
  let u: URL;
  let p: URL;
  try {
    u = new URL(url);
    p = new URL(prefix);
  } catch {
    return false;
  }
  if (u.protocol !== p.protocol || u.host !== p.host || u.username || u.password) return false;
  const base = p.pathname.replace(/\/+$/, "");
  return u.pathname === base || u.pathname.startsWith(`${base}/`);
}

/** Throws naming the field when a chosen endpoint is outside the policy's `allow` list. */
export function refuseUnlisted(resolved: ResolvedModel, url: string, policy: ModelEndpointPolicy, field: string): void {
  const allow = policy.allow;
  if (!allow || !checkedEndpoint(resolved) || allow.some((prefix) => underPrefix(url, prefix))) return;
  const shown = url.length > 80 ? `${url.slice(0, 80)}…` : url;
  throw new ServiceInvalidArgumentError(`${endpointField(resolved, field)}: ${shown} is not an allowed model endpoint (allowed: ${allow.length ? allow.join(", ") : "none"})`, {
    hint: presetEndpoint(resolved)
      ? `${resolved.provider}/ means a server on this machine; give a baseURL that is allowed (the operator's model.baseURL is the way to reach a local server)`
      : "use one of the allowed endpoints, or a provider/model name without a baseURL",
  });
}
