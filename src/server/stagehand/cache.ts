/**
 * The act/observe/extract cache Stagehand 4's extension asks through `/v1/cache/get|set`, per API key. A key hashes
 * method, URL, parameters and the page's structure (every AX node's role and name, not ids), so an action replays
 * only on a page that looks the same. Bounded per key (TTL, size, count, bytes), oldest evicted first: a lost entry
 * costs one model call.
 */
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { z } from "zod";
import type { Owner } from "../tenant.js";
import { openRedis, type RedisClient } from "../cluster/redis-client.js";
import { TooLargeError } from "../failures.js";

export const TTL_MS = 24 * 60 * 60 * 1000;

/** The per-key bounds (config.ts: cacheMaxEntryBytes, cacheMaxEntriesPerKey, cacheMaxBytesPerKey). */
export interface CacheLimits {
  maxEntryBytes: number;
  maxEntries: number;
  maxBytes: number;
}

const CdpTreeSchema = z.looseObject({
  rootFrameId: z.string(),
  frames: z.array(z.looseObject({ frameId: z.string(), axNodes: z.array(z.record(z.string(), z.unknown())) })),
});

export const CacheGetSchema = z.looseObject({
  method: z.enum(["act", "observe", "extract"], { error: "expected act, observe or extract" }),
  sessionId: z.string().min(1),
  url: z.string().min(1),
  cdpTree: CdpTreeSchema,
  data: z.record(z.string(), z.unknown()),
});
export const CacheSetSchema = CacheGetSchema.extend({
  value: z.unknown(),
  llmUsage: z.looseObject({ inputTokens: z.number().optional(), outputTokens: z.number().optional() }).optional(),
});
export type CacheGet = z.output<typeof CacheGetSchema>;
export type CacheSet = z.output<typeof CacheSetSchema>;

interface Stored {
  value: unknown;
  createdAt: number;
  hits: number;
  tokens?: { input: number; output: number };
}

/** JSON with object keys sorted (undefined dropped), so the same parameters always hash the same. */
function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? "null" : stable(x))).join(",")}]`;
  if (v && typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, x]) => `${JSON.stringify(k)}:${stable(x)}`)
      .join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

function axValue(field: unknown): string {
  const v = field && typeof field === "object" ? (field as { value?: unknown }).value : undefined;
  return typeof v === "string" ? v : "";
}

/** The entry's key (what the response calls cacheKey): see the header. */
export function cacheKey(req: CacheGet): string {
  const h = createHash("sha256").update(stable([req.method, req.url, req.data]));
  for (const frame of req.cdpTree.frames) {
    h.update("\u0000frame");
    for (const n of frame.axNodes) h.update(`\u0000${axValue(n.role)}\u0001${axValue(n.name)}`);
  }
  return h.digest("hex");
}

interface Backend {
  connect(): Promise<void>;
  get(owner: Owner, key: string): Promise<Stored | undefined>;
  /** Writes `json` (the Stored entry) as the key's newest entry, evicting its oldest past the caps; how many went. */
  set(owner: Owner, key: string, json: string, bytes: number): Promise<number>;
  close(): Promise<void>;
}

class MemoryBackend implements Backend {
  /** Per key: entries oldest first (a Map keeps insertion order), and their bytes together. */
  private readonly byOwner = new Map<Owner, { entries: Map<string, { stored: Stored; bytes: number }>; bytes: number }>();

  constructor(private readonly limits: CacheLimits) {}

  async connect(): Promise<void> {}

  async get(owner: Owner, key: string): Promise<Stored | undefined> {
    const mine = this.byOwner.get(owner);
    const e = mine?.entries.get(key);
    if (!mine || !e) return undefined;
    if (Date.now() - e.stored.createdAt > TTL_MS) {
      mine.entries.delete(key);
      mine.bytes -= e.bytes;
      return undefined;
    }
    e.stored.hits++;
    return e.stored;
  }

  async set(owner: Owner, key: string, json: string, bytes: number): Promise<number> {
    let mine = this.byOwner.get(owner);
    if (!mine) this.byOwner.set(owner, (mine = { entries: new Map(), bytes: 0 }));
    const old = mine.entries.get(key);
    if (old) {
      mine.entries.delete(key); // re-inserted as the newest
      mine.bytes -= old.bytes;
    }
    let evicted = 0;
    for (const [k, e] of mine.entries) {
      if (mine.entries.size < this.limits.maxEntries && mine.bytes + bytes <= this.limits.maxBytes) break;
      mine.entries.delete(k);
      mine.bytes -= e.bytes;
      evicted++;
    }
    mine.entries.set(key, { stored: JSON.parse(json) as Stored, bytes });
    mine.bytes += bytes;
    return evicted;
  }

  async close(): Promise<void> {}
}

/**
 * KEYS: the key's index (sorted set: entry key → write time), its sizes (hash: entry key → bytes), the entry.
 * ARGV: now, TTL ms, the entry's JSON, its bytes, max entries, max bytes, the entries' key prefix, the entry key.
 * Forgets index members whose entry expired, replaces an entry of the same key, evicts the oldest until the new
 * one fits both caps, writes it; returns how many were evicted.
 */
const SET_SCRIPT = `
local idx, sizes, entry = KEYS[1], KEYS[2], KEYS[3]
local now, ttl, size = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[4])
local maxEntries, maxBytes, prefix, member = tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7], ARGV[8]
for _, m in ipairs(redis.call('ZRANGEBYSCORE', idx, '-inf', now - ttl)) do
  redis.call('ZREM', idx, m)
  redis.call('HDEL', sizes, m)
end
redis.call('ZREM', idx, member)
redis.call('HDEL', sizes, member)
local total = 0
for _, v in ipairs(redis.call('HVALS', sizes)) do total = total + tonumber(v) end
local evicted = 0
while redis.call('ZCARD', idx) > 0 and (redis.call('ZCARD', idx) >= maxEntries or total + size > maxBytes) do
  local oldest = redis.call('ZRANGE', idx, 0, 0)[1]
  total = total - tonumber(redis.call('HGET', sizes, oldest) or '0')
  redis.call('ZREM', idx, oldest)
  redis.call('HDEL', sizes, oldest)
  redis.call('DEL', prefix .. oldest)
  evicted = evicted + 1
end
redis.call('DEL', entry)
redis.call('HSET', entry, 'v', ARGV[3], 'h', '0')
redis.call('PEXPIRE', entry, ttl)
-- Scores strictly increase within a key, so "oldest" is the first written even for writes in one millisecond.
local score = now
local last = redis.call('ZRANGE', idx, -1, -1, 'WITHSCORES')
if last[2] and tonumber(last[2]) >= score then score = tonumber(last[2]) + 1 end
redis.call('ZADD', idx, score, member)
redis.call('HSET', sizes, member, size)
redis.call('PEXPIRE', idx, ttl)
redis.call('PEXPIRE', sizes, ttl)
return evicted
`;

/** One Redis hash per entry (`v`: the entry's JSON, `h`: hits), expiring after TTL_MS; per key an index and sizes (SET_SCRIPT). */
class RedisBackend implements Backend {
  private readonly client: RedisClient;
  private readonly redis: Redis;
  constructor(
    url: string,
    private readonly prefix: string,
    private readonly limits: CacheLimits,
  ) {
    this.client = openRedis(url, 10_000);
    this.redis = this.client.redis;
  }

  connect(): Promise<void> {
    return this.client.connect();
  }

  private k(owner: Owner, key: string): string {
    return `${this.entryPrefix(owner)}${key}`;
  }

  private entryPrefix(owner: Owner): string {
    return `${this.prefix}stagehand-cache:${owner}:`;
  }

  async get(owner: Owner, key: string): Promise<Stored | undefined> {
    const r = await this.redis.multi().hget(this.k(owner, key), "v").hincrby(this.k(owner, key), "h", 1).exec();
    const raw = r?.[0]?.[1];
    if (typeof raw !== "string") {
      await this.redis.del(this.k(owner, key)); // the hincrby above created a hash of hits only
      return undefined;
    }
    return { ...(JSON.parse(raw) as Stored), hits: Number(r?.[1]?.[1] ?? 1) };
  }

  async set(owner: Owner, key: string, json: string, bytes: number): Promise<number> {
    const index = `${this.prefix}stagehand-cache-index:${owner}`;
    const sizes = `${this.prefix}stagehand-cache-sizes:${owner}`;
    const { maxEntries, maxBytes } = this.limits;
    const args = [Date.now(), TTL_MS, json, bytes, maxEntries, maxBytes, this.entryPrefix(owner), key];
    return Number(await this.redis.eval(SET_SCRIPT, 3, index, sizes, this.k(owner, key), ...args));
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

export type CacheGetResponse = { cacheKey: string; hit: true; value: unknown; hitCount: number; ageMs: number; tokensSaved?: { input: number; output: number; total: number } } | { cacheKey: string; hit: false; missReason: string };
export type CacheSetResponse = { cacheKey: string; written: true } | { cacheKey: string; written: false; skippedReason: string };

export class StagehandCache {
  private readonly backend: Backend;

  /** `redis`: the cluster's store URL and key prefix, when the server has one. */
  constructor(
    private readonly limits: CacheLimits,
    redis?: { url: string; prefix: string },
  ) {
    if (limits.maxEntryBytes > limits.maxBytes) throw new RangeError("maxEntryBytes must be at most maxBytes");
    this.backend = redis ? new RedisBackend(redis.url, redis.prefix, limits) : new MemoryBackend(limits);
  }

  async get(owner: Owner, req: CacheGet): Promise<CacheGetResponse> {
    const key = cacheKey(req);
    const e = await this.backend.get(owner, key);
    if (!e) return { cacheKey: key, hit: false, missReason: "not_found" };
    const saved = e.tokens ? { tokensSaved: { input: e.tokens.input, output: e.tokens.output, total: e.tokens.input + e.tokens.output } } : {};
    return { cacheKey: key, hit: true, value: e.value, hitCount: e.hits, ageMs: Math.max(0, Date.now() - e.createdAt), ...saved };
  }

  async set(owner: Owner, req: CacheSet): Promise<CacheSetResponse> {
    const key = cacheKey(req);
    if (req.value === undefined || req.value === null) return { cacheKey: key, written: false, skippedReason: "empty_value" };
    const u = req.llmUsage;
    const tokens = u && (u.inputTokens !== undefined || u.outputTokens !== undefined) ? { tokens: { input: u.inputTokens ?? 0, output: u.outputTokens ?? 0 } } : {};
    const json = JSON.stringify({ value: req.value, createdAt: Date.now(), hits: 0, ...tokens } satisfies Stored);
    const bytes = Buffer.byteLength(json);
    if (bytes > this.limits.maxEntryBytes) {
      throw new TooLargeError(`value: the cache entry would be ${bytes} bytes; at most ${this.limits.maxEntryBytes} are kept (--cache-entry-max)`, { code: "CACHE_ENTRY_TOO_LARGE" });
    }
    await this.backend.set(owner, key, json, bytes);
    return { cacheKey: key, written: true };
  }

  /** Connects to Redis when the cache lives there (startup: a Redis that does not answer fails it clearly). */
  connect(): Promise<void> {
    return this.backend.connect();
  }

  close(): Promise<void> {
    return this.backend.close();
  }
}
