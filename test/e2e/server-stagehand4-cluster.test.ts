/**
 * Stagehand 4's calls on a cluster: two `svc serve` replicas (in-process) sharing a real Redis. An entry one
 * replica writes with /v1/cache/set is read from the other (the cache lives in Redis, per key, with a TTL);
 * the gateway on the replica that does not run the session still knows it as the key's own (from the
 * session store) and another key's as unknown.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Browserbase from "@browserbasehq/sdk";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { TTL_MS } from "../../src/server/stagehand/cache.js";
import { CHROMIUM } from "../support/browser.js";
import { startFakeModel, type FakeModel } from "../support/fake-model.js";
import { useRedis } from "../support/redis.js";
import { markTmpdir } from "../support/process.js";

const KEY = "sh4-cluster-key-0001";
const OTHER = "sh4-cluster-key-0002";
const SECRET = "sh4-cluster-secret-0123456789";
const OPERATOR_KEY = "sk-operator-cluster-0123456789";
const base = mkdtempSync(join(tmpdir(), "svc-sh4-cluster-"));
let restoreTmp = (): void => {};
const saved = { OPENAI_API_KEY: process.env.OPENAI_API_KEY };
const redis = useRedis();

let fake: FakeModel;
let a: RunningServer;
let b: RunningServer;
let session: string;
let theirs: string;

function start(name: string): Promise<RunningServer> {
  return startServer({
    port: 0,
    apiKeys: [KEY, OTHER],
    cacheDir: join(base, name, "cache"),
    launch: { executablePath: CHROMIUM, headless: true },
    modelBaseURL: fake.baseURL(),
    cluster: { store: redis.url, secret: SECRET, leaseMs: 2000, heartbeatMs: 300, prefix: "sh4:" },
  });
}

function post(srv: RunningServer, path: string, body: unknown, headers: Record<string, string> = {}, key = KEY): Promise<Response> {
  return fetch(`${srv.url}/v1${path}`, { method: "POST", headers: { "content-type": "application/json", "x-bb-api-key": key, ...headers }, body: JSON.stringify(body) });
}

const cacheReq = (sessionId: string) => ({
  method: "extract",
  sessionId,
  url: "http://site.test/order",
  cdpTree: { rootFrameId: "F", frames: [{ frameId: "F", axNodes: [{ nodeId: "1", role: { value: "heading" }, name: { value: "Order 1234" } }] }] },
  data: { instruction: "the order number", schema: { type: "object" } },
});

beforeAll(async () => {
  restoreTmp = markTmpdir(base);
  process.env.OPENAI_API_KEY = OPERATOR_KEY;
  fake = await startFakeModel();
  [a, b] = await Promise.all([start("a"), start("b")]);
  session = (await new Browserbase({ apiKey: KEY, baseURL: a.url }).sessions.create({ keepAlive: true })).id;
  theirs = (await new Browserbase({ apiKey: OTHER, baseURL: a.url }).sessions.create({ keepAlive: true })).id;
});

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await fake?.close();
  restoreTmp();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

describe("Stagehand 4 calls on two replicas", () => {
  it("serves the cache from Redis: written on one replica, read on the other, per key, expiring", async () => {
    const value = { extraction: "1234" };
    const set = (await (await post(a, "/cache/set", { ...cacheReq(session), value })).json()) as any;
    expect(set.data.written).toBe(true);
    const hit = (await (await post(b, "/cache/get", cacheReq(session))).json()) as any;
    expect(hit).toMatchObject({ success: true, data: { cacheKey: set.data.cacheKey, hit: true, value, hitCount: 1 } });
    expect(((await (await post(a, "/cache/get", cacheReq(session))).json()) as any).data.hitCount).toBe(2);
    // The other key's lookup of the same page is its own (a miss), through either replica.
    expect(((await (await post(b, "/cache/get", cacheReq(theirs), {}, OTHER)).json()) as any).data.hit).toBe(false);
    // In Redis under the cluster's prefix, with the TTL.
    const r = new Redis(redis.url);
    try {
      const keys = await r.keys("sh4:stagehand-cache:*");
      expect(keys.length).toBeGreaterThanOrEqual(1);
      const ttl = await r.pttl(keys.find((k) => k.endsWith(set.data.cacheKey))!);
      expect(ttl).toBeGreaterThan(TTL_MS - 60_000);
      expect(ttl).toBeLessThanOrEqual(TTL_MS);
    } finally {
      r.disconnect();
    }
  });

  it("answers the gateway on a replica that does not run the session, for the key's own session only", async () => {
    fake.reset();
    fake.script({ n: 1 });
    const body = { model: "openai/gpt-4.1-mini", input: "hi", text: { format: { type: "json_schema", name: "n", strict: true, schema: { type: "object", properties: { n: { type: "number" } }, required: ["n"], additionalProperties: false } } } };
    const ok = await post(b, "/llm/responses", body, { "x-bb-session-id": session, authorization: `Bearer ${KEY}` });
    expect(ok.status).toBe(200);
    expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${OPERATOR_KEY}`);
    const other = await post(b, "/llm/responses", body, { "x-bb-session-id": theirs, authorization: `Bearer ${KEY}` });
    expect(other.status).toBe(404);
    expect(fake.requests).toHaveLength(1);
  });
});
