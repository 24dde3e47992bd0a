/**
 * `svc serve` flags of the per-key bounds (downloads, Stagehand cache, extensions, Model Gateway): one table
 * that both declares the flags (commands/registry/server.ts: a size, a count or seconds, each read by the registry's
 * number parser) and turns their values into server options. Defaults live in src/server/limits.ts (the help quotes
 * them); this file imports nothing heavy, as main.ts needs.
 */
import { LIMIT_DEFAULTS, MAX_ARTIFACTS_TTL_S } from "../../src/server/limits.js";

/** The bounds of serve's number flags (commands/registry/server.ts): the server's own. */
export { SERVE_RANGES } from "../../src/server/limits.js";

type LimitKey = keyof typeof LIMIT_DEFAULTS;
type Kind = "size" | "count" | "seconds";

interface LimitFlag {
  flag: string;
  key: LimitKey;
  kind: Kind;
  help: string;
  /** A number of seconds' largest value. */
  max?: number;
}

export const LIMIT_FLAGS: readonly LimitFlag[] = [
  { flag: "--downloads-max-session", key: "downloadsMaxBytesPerSession", kind: "size", help: "bytes of downloads one session keeps; past it a download is cancelled" },
  { flag: "--downloads-max-key", key: "downloadsMaxBytesPerKey", kind: "size", help: "bytes of downloads one API key keeps over its sessions; past it its oldest ended sessions' downloads go, then downloads are cancelled" },
  { flag: "--artifacts-ttl", key: "artifactsTtlS", kind: "seconds", max: MAX_ARTIFACTS_TTL_S, help: "seconds an ended session's logs, recording and downloads are kept" },
  { flag: "--cache-entry-max", key: "cacheMaxEntryBytes", kind: "size", help: "largest Stagehand cache entry; past it, 413" },
  { flag: "--cache-max-entries", key: "cacheMaxEntriesPerKey", kind: "count", help: "Stagehand cache entries one API key keeps; past it the oldest go" },
  { flag: "--cache-max-key", key: "cacheMaxBytesPerKey", kind: "size", help: "Stagehand cache bytes one API key keeps; past it the oldest entries go" },
  { flag: "--extensions-max-key", key: "extensionsMaxBytesPerKey", kind: "size", help: "unpacked bytes of one API key's extensions; past it an upload is refused (409 EXTENSIONS_QUOTA)" },
  { flag: "--gateway-body-limit", key: "gatewayBodyLimitBytes", kind: "size", help: "largest Model Gateway request body; past it, 413" },
  { flag: "--gateway-concurrency", key: "gatewayConcurrencyPerKey", kind: "count", help: "Model Gateway requests in flight per API key; past it, 429" },
  { flag: "--gateway-rate", key: "gatewayRateLimitPerMinute", kind: "count", help: "Model Gateway requests per API key per minute; past it, 429" },
];

function shown(kind: Kind, n: number): string {
  if (kind !== "size") return String(n);
  const mib = n / 1024 / 1024;
  return Number.isInteger(mib) ? (mib >= 1024 && mib % 1024 === 0 ? `${mib / 1024}G` : `${mib}M`) : String(n);
}

/** Commander's attribute name of a flag (`--gateway-rate` → gatewayRate). */
function attribute(flag: string): string {
  return flag.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** A limit flag's help, with its default. */
export function limitHelp(l: LimitFlag): string {
  return `${l.help} (default ${shown(l.kind, LIMIT_DEFAULTS[l.key])})`;
}

/** The server options the given limit flags set (each already a number in its range: the registry declares them). */
export function limitOptions(flags: Record<string, unknown>): Partial<Record<LimitKey, number>> {
  const out: Partial<Record<LimitKey, number>> = {};
  for (const l of LIMIT_FLAGS) {
    const n = flags[attribute(l.flag)];
    if (typeof n === "number") out[l.key] = n;
  }
  return out;
}
