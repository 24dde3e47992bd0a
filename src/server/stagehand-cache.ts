/**
 * The server-side act/observe/extract cache Stagehand 4's extension asks through `POST /v1/cache/get` and
 * `/v1/cache/set` (its CacheClient: `{method, sessionId, url, cdpTree, data}`, plus `value` and `llmUsage`
 * on set). Entries are per API key. An entry's key is a hash of the method, the page URL, the method's
 * parameters (`data`, key order ignored) and the page's structure — every accessibility node's role and
 * name in every frame — so a cached action replays only on a page that looks the same to a model; node
 * ids, which change with every load, are left out. In memory, or in the cluster's Redis when the server has
 * one (every replica then serves the same entries). Bounded: entries live TTL_MS, one value is at most
 * MAX_VALUE_BYTES, and in memory each key keeps its newest MAX_ENTRIES_PER_KEY (in Redis the expiry is the
 * only bound on their number).
 */
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { z } from "zod";
import type { Owner } from "./auth.js";
import { openRedis, type RedisClient } from "./cluster/redis-client.js";

export const TTL_MS = 24 * 60 * 60 * 1000;
export const MAX_ENTRIES_PER_KEY = 1000;
export const MAX_VALUE_BYTES = 1024 * 1024;

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
  set(owner: Owner, key: string, entry: Stored): Promise<void>;
  close(): Promise<void>;
}

class MemoryBackend implements Backend {
  private readonly byOwner = new Map<Owner, Map<string, Stored>>();

  async connect(): Promise<void> {}

  async get(owner: Owner, key: string): Promise<Stored | undefined> {
    const entries = this.byOwner.get(owner);
    const e = entries?.get(key);
    if (!entries || !e) return undefined;
    if (Date.now() - e.createdAt > TTL_MS) {
      entries.delete(key);
      return undefined;
    }
    e.hits++;
    return e;
  }

  async set(owner: Owner, key: string, entry: Stored): Promise<void> {
    let entries = this.byOwner.get(owner);
    if (!entries) this.byOwner.set(owner, (entries = new Map()));
    entries.delete(key); // re-inserted as the newest
    entries.set(key, entry);
    for (const oldest of entries.keys()) {
      if (entries.size <= MAX_ENTRIES_PER_KEY) break;
      entries.delete(oldest);
    }
  }

  async close(): Promise<void> {}
}

/** One Redis hash per entry (`v`: the entry's JSON, `h`: hits), expiring after TTL_MS. */
class RedisBackend implements Backend {
  private readonly client: RedisClient;
  private readonly redis: Redis;
  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    this.client = openRedis(url, 10_000);
    this.redis = this.client.redis;
  }

  connect(): Promise<void> {
    return this.client.connect();
  }

  private k(owner: Owner, key: string): string {
    return `${this.prefix}stagehand-cache:${owner}:${key}`;
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

  async set(owner: Owner, key: string, entry: Stored): Promise<void> {
    await this.redis.multi().del(this.k(owner, key)).hset(this.k(owner, key), "v", JSON.stringify(entry), "h", "0").pexpire(this.k(owner, key), TTL_MS).exec();
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
  constructor(redis?: { url: string; prefix: string }) {
    this.backend = redis ? new RedisBackend(redis.url, redis.prefix) : new MemoryBackend();
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
    if (Buffer.byteLength(JSON.stringify(req.value)) > MAX_VALUE_BYTES) return { cacheKey: key, written: false, skippedReason: "value_too_large" };
    const u = req.llmUsage;
    const tokens = u && (u.inputTokens !== undefined || u.outputTokens !== undefined) ? { tokens: { input: u.inputTokens ?? 0, output: u.outputTokens ?? 0 } } : {};
    await this.backend.set(owner, key, { value: req.value, createdAt: Date.now(), hits: 0, ...tokens });
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
