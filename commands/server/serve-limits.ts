/**
 * `svc serve` flags of the per-key bounds (downloads, Stagehand cache, extensions, Model Gateway): one table
 * that both registers the flags (main.ts) and turns their values into server options. Defaults live in
 * src/server/limits.ts (the help quotes them); this file imports nothing heavy, as main.ts needs.
 */
import { ServiceInvalidArgumentError } from "../../src/base.js";
import { LIMIT_DEFAULTS, MAX_ARTIFACTS_TTL_S } from "../../src/server/limits.js";

type LimitKey = keyof typeof LIMIT_DEFAULTS;
type Kind = "size" | "count" | "seconds";

interface LimitFlag {
  flag: string;
  key: LimitKey;
  kind: Kind;
  help: string;
}

export const LIMIT_FLAGS: readonly LimitFlag[] = [
  { flag: "--downloads-max-session", key: "downloadsMaxBytesPerSession", kind: "size", help: "bytes of downloads one session keeps; past it a download is cancelled" },
  { flag: "--downloads-max-key", key: "downloadsMaxBytesPerKey", kind: "size", help: "bytes of downloads one API key keeps over its sessions; past it its oldest ended sessions' downloads go, then downloads are cancelled" },
  { flag: "--artifacts-ttl", key: "artifactsTtlS", kind: "seconds", help: `seconds an ended session's logs, recording and downloads are kept (at most ${MAX_ARTIFACTS_TTL_S})` },
  { flag: "--cache-entry-max", key: "cacheMaxEntryBytes", kind: "size", help: "largest Stagehand cache entry; past it, 413" },
  { flag: "--cache-max-entries", key: "cacheMaxEntriesPerKey", kind: "count", help: "Stagehand cache entries one API key keeps; past it the oldest go" },
  { flag: "--cache-max-key", key: "cacheMaxBytesPerKey", kind: "size", help: "Stagehand cache bytes one API key keeps; past it the oldest entries go" },
  { flag: "--extensions-max-key", key: "extensionsMaxBytesPerKey", kind: "size", help: "unpacked bytes of one API key's extensions; past it an upload is refused (409 EXTENSIONS_QUOTA)" },
  { flag: "--gateway-body-limit", key: "gatewayBodyLimitBytes", kind: "size", help: "largest Model Gateway request body; past it, 413" },
  { flag: "--gateway-concurrency", key: "gatewayConcurrencyPerKey", kind: "count", help: "Model Gateway requests in flight per API key; past it, 429" },
  { flag: "--gateway-rate", key: "gatewayRateLimitPerMinute", kind: "count", help: "Model Gateway requests per API key per minute; past it, 429" },
];

const BYTE_UNITS: Record<string, number> = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** Bytes, or a number with K, M, G or T (powers of 1024; KB/KiB spellings too), e.g. 6G. */
export function byteSize(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$/i.exec(raw);
  const n = m ? Math.round(Number(m[1]) * BYTE_UNITS[m[2]!.toLowerCase()]!) : NaN;
  if (!m || !(n >= 1) || !Number.isSafeInteger(n)) throw new ServiceInvalidArgumentError(`${flag} must be a size such as 6G, 512M or a number of bytes, got "${raw}"`);
  return n;
}

function shown(kind: Kind, n: number): string {
  if (kind !== "size") return String(n);
  const mib = n / 1024 / 1024;
  return Number.isInteger(mib) ? (mib >= 1024 && mib % 1024 === 0 ? `${mib / 1024}G` : `${mib}M`) : String(n);
}

/** Commander's attribute name of a flag (`--gateway-rate` → gatewayRate). */
function attribute(flag: string): string {
  return flag.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** `[flag <arg>, help with its default]` of each limit, for commander's `.option()`. */
export function limitOptionSpecs(): Array<[string, string]> {
  const arg: Record<Kind, string> = { size: "<size>", count: "<n>", seconds: "<seconds>" };
  return LIMIT_FLAGS.map((l) => [`${l.flag} ${arg[l.kind]}`, `${l.help} (default ${shown(l.kind, LIMIT_DEFAULTS[l.key])})`]);
}

/** The server options the given limit flags set (validated: a bad value is a usage error naming its flag). */
export function limitOptions(flags: Record<string, unknown>): Partial<Record<LimitKey, number>> {
  const out: Partial<Record<LimitKey, number>> = {};
  for (const l of LIMIT_FLAGS) {
    const raw = flags[attribute(l.flag)];
    if (raw === undefined) continue;
    const text = String(raw);
    if (l.kind === "size") {
      out[l.key] = byteSize(text, l.flag)!;
      continue;
    }
    const n = Number(text);
    const max = l.kind === "seconds" ? MAX_ARTIFACTS_TTL_S : Number.MAX_SAFE_INTEGER;
    const ok = text.trim() !== "" && Number.isFinite(n) && n > 0 && n <= max && (l.kind === "seconds" || Number.isInteger(n));
    if (!ok) throw new ServiceInvalidArgumentError(l.kind === "seconds" ? `${l.flag} must be a number of seconds above 0 and at most ${max}, got "${text}"` : `${l.flag} must be a whole number ≥ 1, got "${text}"`);
    out[l.key] = n;
  }
  return out;
}
