/**
 * Model credentials belong to whoever chose the endpoint: a tenant's config naming its own endpoint gets only the key
 * it brings (model/endpoint-policy.ts), within `modelEndpoints` when set and, when isolated, through the tenants'
 * address policy, `modelEndpoints`' hosts allowed for model calls only (in allowNet they would open to browsers). No
 * endpoint: the operator's, trusted.
 */
import type { ModelEndpointPolicy } from "../../index.js";
import { AddressPolicy } from "../../util/address-policy.js";
import { guardedFetch } from "../../util/guarded-fetch.js";
import { isolated, type ServerConfig } from "../config.js";

export interface ServerModelPolicy {
  policy: ModelEndpointPolicy;
  /** Closes the guarded connections (server shutdown). */
  close(): Promise<void>;
}

export function serverModelPolicy(config: ServerConfig): ServerModelPolicy {
  const allow = config.modelEndpoints;
  const listed = { ...(allow ? { allow } : {}), ...(config.modelBaseURL ? { baseURL: config.modelBaseURL } : {}) };
  if (!isolated(config)) return { policy: listed, close: async () => {} };
  const addresses = new AddressPolicy([...config.allowNet, ...(allow ?? []).map(hostAndPort)]);
  const guarded = guardedFetch((host, resolved, port) => addresses.refusal(host, resolved, port));
  return {
    // The SDKs call fetch(url string, init); a Request is taken by its URL only.
    policy: { ...listed, fetch: (input, init) => guarded.fetch(new URL(input instanceof Request ? input.url : input), init ?? {}) },
    close: () => guarded.close(),
  };
}

/** `http://10.0.0.5:11434/v1` → `10.0.0.5:11434` (an allowlist entry for exactly that host and port). */
function hostAndPort(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || (u.protocol === "https:" ? 443 : 80)}`;
}
