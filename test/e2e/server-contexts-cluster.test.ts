/**
 * Contexts in cluster mode: two `svc serve` replicas (in this process) on one real Redis, with no
 * --data-key (each derives it from the shared cluster secret). A context created through replica A is
 * saved by a session on replica B and used by a session on A; its contents live in Redis, sealed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Browserbase from "@browserbasehq/sdk";
import { Redis } from "ioredis";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { keyFingerprint, startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM, waitFor } from "../support/browser.js";
import { useRedis } from "../support/redis.js";
import { startFixtureServer, type FixtureServer } from "../support/server.js";
import { markTmpdir } from "../support/process.js";

const KEY = "test-key-ctx-cluster-01";
const SECRET = "cluster-secret-for-contexts-0001";
const base = mkdtempSync(join(tmpdir(), "svc-server-contexts-cluster-"));
let restoreTmp = (): void => {};
const redis = useRedis();
const logs: string[] = [];

let fixtures: FixtureServer;
let a: RunningServer;
let b: RunningServer;

function replica(name: string): Promise<RunningServer> {
  return startServer({
    port: 0,
    apiKeys: [KEY],
    cacheDir: join(base, name, "cache"),
    dataDir: join(base, name, "data"),
    launch: { executablePath: CHROMIUM, headless: true },
    log: (line) => logs.push(`${name}: ${line}`),
    cluster: { store: redis.url, secret: SECRET, prefix: "ctxtest:" },
  });
}

beforeAll(async () => {
  restoreTmp = markTmpdir(base);
  fixtures = await startFixtureServer();
  a = await replica("a");
  b = await replica("b");
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await fixtures?.close();
  restoreTmp();
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

it("a context created through replica A is saved on B and used on A", async () => {
  const onA = new Browserbase({ apiKey: KEY, baseURL: a.url, maxRetries: 0 });
  const onB = new Browserbase({ apiKey: KEY, baseURL: b.url, maxRetries: 0 });
  const ctx = await onA.contexts.create();
  expect((await onB.contexts.retrieve(ctx.id)).id).toBe(ctx.id);

  const s1 = await onB.sessions.create({ projectId: "p", browserSettings: { context: { id: ctx.id, persist: true } } });
  const browser1 = await chromium.connectOverCDP(s1.connectUrl);
  const page1 = browser1.contexts()[0]!.pages()[0] ?? (await browser1.contexts()[0]!.newPage());
  await page1.goto(fixtures.url("/login"));
  await page1.fill("#user", "bob");
  await page1.click("#signin");
  await page1.waitForSelector("text=signed in as bob");
  await browser1.close();
  await onB.sessions.update(s1.id, { status: "REQUEST_RELEASE", projectId: "p" });
  await waitFor(() => logs.some((l) => l.startsWith("b: ") && l.includes(`context ${ctx.id}: saved`)));

  // The blob is in Redis, sealed.
  const r = new Redis(redis.url);
  try {
    const blob = await r.getBuffer(`ctxtest:context:${keyFingerprint(KEY)}:${ctx.id}`);
    expect(blob?.length).toBeGreaterThan(0);
    expect(blob!.includes(Buffer.from("bob"))).toBe(false);
  } finally {
    r.disconnect();
  }

  const s2 = await onA.sessions.create({ projectId: "p", browserSettings: { context: { id: ctx.id } } });
  const browser2 = await chromium.connectOverCDP(s2.connectUrl);
  const page2 = browser2.contexts()[0]!.pages()[0] ?? (await browser2.contexts()[0]!.newPage());
  await page2.goto(fixtures.url("/login"));
  expect(await page2.textContent("#status")).toBe("signed in as bob");
  expect(await page2.textContent("#local")).toBe("local theme: dark");
  await browser2.close();
  await onA.sessions.update(s2.id, { status: "REQUEST_RELEASE", projectId: "p" });
});
