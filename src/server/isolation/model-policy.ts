/**
 * Model credentials belong to whoever chose the endpoint. Every model config a session's Service sees
 * comes from a tenant, so the Services run under a ModelEndpointPolicy (src/model/endpoint-policy.ts): a
 * config that names its own endpoint (baseURL, an Azure resource, a Vertex project) is sent only the key
 * it brings (`apiKey`, or `x-model-api-key`), never the operator's OPENAI_API_KEY & co. or stored key;
 * those serve the providers' own endpoints only. With `modelEndpoints` such an endpoint must lie under one
 * of them. On an isolated server its connections also pass the tenants' address policy where the socket
 * connects (so 127.0.0.1, a name resolving to loopback, a private or link-local address are refused unless
 * `allowNet` allows them); the hosts of `modelEndpoints` are allowed there too, for model calls only (the
 * operator named them, and listing them in allowNet would open them to the tenants' browsers as well).
 * A config that names no endpoint goes to the operator's `modelBaseURL` when set, trusted like the provider's.
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
