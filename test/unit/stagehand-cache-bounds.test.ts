/**
 * The Stagehand 4 cache's per-key bounds (src/server/stagehand/cache.ts), in memory and in a real Redis:
 * an entry over maxEntryBytes is a 413 naming the flag; a key past maxEntries or maxBytes loses its oldest
 * entries, never another key's; in Redis the caps hold when many writes race (the Lua script is atomic) and
 * nothing of an evicted entry is left behind.
 */
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { StagehandCache, type CacheSet } from "../../src/server/stagehand/cache.js";
import { errorResponse } from "../../src/server/http/errors.js";
import { TooLargeError } from "../../src/server/failures.js";
import { useRedis } from "../support/redis.js";

const LIMITS = { maxEntryBytes: 2_000, maxEntries: 5, maxBytes: 6_000 };
const req = (n: number, value: unknown = { n }): CacheSet => ({
  method: "act",
  sessionId: "s",
  url: `http://site.test/${n}`,
  cdpTree: { rootFrameId: "F", frames: [{ frameId: "F", axNodes: [] }] },
  data: { input: `step ${n}` },
  value,
});
const hit = async (cache: StagehandCache, owner: string, n: number) => (await cache.get(owner, req(n))).hit;

const redis = useRedis();

describe.each([
  ["in memory", () => new StagehandCache(LIMITS)],
  ["in Redis", () => new StagehandCache(LIMITS, { url: redis.url, prefix: `t${Math.random().toString(36).slice(2)}:` })],
])("the cache %s", (_name, make) => {
  const caches: StagehandCache[] = [];
  const open = async () => {
    const c = make();
    caches.push(c);
    await c.connect();
    return c;
  };
  afterAll(async () => {
    for (const c of caches) await c.close();
  });

  it("refuses an entry over maxEntryBytes with a 413 naming the flag", async () => {
    const cache = await open();
    const err = await cache.set("a", req(1, "x".repeat(3_000))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TooLargeError);
    expect(errorResponse(err)).toMatchObject({ status: 413, code: "CACHE_ENTRY_TOO_LARGE", message: expect.stringContaining("--cache-entry-max") });
    expect(await hit(cache, "a", 1)).toBe(false);
  });

  it("keeps at most maxEntries per key: the oldest go, another key's stay", async () => {
    const cache = await open();
    for (let n = 1; n <= 3; n++) await cache.set("other", req(n));
    for (let n = 1; n <= 8; n++) await cache.set("a", req(n));
    const kept = [];
    for (let n = 1; n <= 8; n++) if (await hit(cache, "a", n)) kept.push(n);
    expect(kept).toEqual([4, 5, 6, 7, 8]);
    for (let n = 1; n <= 3; n++) expect(await hit(cache, "other", n)).toBe(true);
  });

  it("keeps at most maxBytes per key: big entries push the oldest out", async () => {
    const cache = await open();
    // ~1,550 bytes each: three fit in 6,000, a fourth evicts the first.
    for (let n = 1; n <= 4; n++) await cache.set("b", req(n, "y".repeat(1_500)));
    expect([await hit(cache, "b", 1), await hit(cache, "b", 2), await hit(cache, "b", 3), await hit(cache, "b", 4)]).toEqual([false, true, true, true]);
  });
});

describe("in Redis, under racing writes", () => {
  it("50 writes at once from two caches (two replicas) leave at most maxEntries entries and maxBytes bytes", async () => {
    const prefix = "race:";
    const a = new StagehandCache(LIMITS, { url: redis.url, prefix });
    const b = new StagehandCache(LIMITS, { url: redis.url, prefix });
    await Promise.all([a.connect(), b.connect()]);
    const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await client.connect();
    try {
      await Promise.all(Array.from({ length: 50 }, (_, n) => (n % 2 ? a : b).set("k", req(n, "z".repeat(900)))));
      const entries = await client.keys(`${prefix}stagehand-cache:k:*`);
      const sizes = await client.hvals(`${prefix}stagehand-cache-sizes:k`);
      expect(entries.length).toBeLessThanOrEqual(LIMITS.maxEntries);
      expect(entries.length).toBe(await client.zcard(`${prefix}stagehand-cache-index:k`));
      expect(sizes.reduce((t, s) => t + Number(s), 0)).toBeLessThanOrEqual(LIMITS.maxBytes);
      expect(await client.pttl(`${prefix}stagehand-cache-index:k`)).toBeGreaterThan(0);
    } finally {
      client.disconnect();
      await a.close();
      await b.close();
    }
  });
});
