/**
 * Admission control of `svc serve`: with --max-sessions 1 --queue 1 a second start waits for the slot, a third gets
 * 429 QUEUE_FULL with Retry-After; a wait past the queue timeout is QUEUE_TIMEOUT, a leaving client leaves the queue;
 * /v1/pressure and /readyz agree. Draining: starts get 503 DRAINING, a running agentExecute finishes, and one stuck
 * past the drain time ends with `error`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer, type ServerOptions } from "../../src/server/index.js";
import { CHROMIUM, waitFor } from "../support/browser.js";
import { startFakeModel, type FakeModel } from "../support/fake-model.js";
import { apiClient, expectNoChrome } from "../support/session-api.js";
import { scriptTimes, step } from "./agent-support.js";
import { markTmpdir } from "../support/process.js";

const KEY = "test-key-admission-1";
const base = mkdtempSync(join(tmpdir(), "svc-server-admission-"));
let restoreTmp = (): void => {};
let fake: FakeModel;
const servers: RunningServer[] = [];

beforeAll(async () => {
  restoreTmp = markTmpdir(base);
  fake = await startFakeModel();
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await fake?.close();
  await expectNoChrome(base);
  restoreTmp();
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

async function serve(options: Partial<ServerOptions>): Promise<RunningServer> {
  const srv = await startServer({ port: 0, apiKeys: [KEY], cacheDir: join(base, `cache-${servers.length}`), launch: { executablePath: CHROMIUM, headless: true }, log: () => {}, ...options });
  servers.push(srv);
  return srv;
}

let current: RunningServer;
const { call, json, stream } = apiClient({ server: () => current, key: KEY });
const withModelKey = { headers: { "x-model-api-key": "sk-fake" } };
const startBody = { modelName: "openai/gpt-test" };
const release = (id: string) => json("POST", `/sessions/${id}`, { status: "REQUEST_RELEASE" });
const pressure = async () => (await json("GET", "/pressure")).body as Record<string, unknown>;
const readyz = async () => {
  const r = await fetch(`${current.url}/readyz`);
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
};

describe("admission: --max-sessions 1 --queue 1", () => {
  beforeAll(async () => {
    current = await serve({ maxSessions: 1, maxQueued: 1, queueTimeoutS: 60 });
  });

  it("the second start waits and gets the slot when the first ends; the third gets 429 QUEUE_FULL; pressure and readyz agree", async () => {
    expect(await readyz()).toEqual({ status: 200, body: { status: "ready" } });
    expect(await pressure()).toMatchObject({ running: 0, queued: 0, maxSessions: 1, maxQueued: 1, available: true, reason: null, draining: false });

    const first = await json("POST", "/sessions", {});
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(await pressure()).toMatchObject({ running: 1, queued: 0, available: true, reason: "full" });
    // Measured (sampled every 2 s): this process tree now holds a Chrome; the machine's CPU in percent.
    const p1 = await waitFor(async () => {
      const p = await pressure();
      return typeof p.memory === "number" && p.memory > 50 * 1024 * 1024 && typeof p.cpu === "number" ? p : undefined;
    });
    expect(p1.cpu).toBeGreaterThanOrEqual(0);
    expect(p1.cpu).toBeLessThanOrEqual(100);
    expect(await readyz()).toEqual({ status: 200, body: { status: "ready" } });

    // A session-API start is a Chrome too: it queues behind the platform session.
    let settled = false;
    const second = json("POST", "/sessions/start", startBody, withModelKey).finally(() => (settled = true));
    await waitFor(async () => (await pressure()).queued === 1);
    expect(await pressure()).toMatchObject({ running: 1, queued: 1, available: false, reason: "full" });
    expect(await readyz()).toEqual({ status: 503, body: { status: "unavailable", reason: "full" } });

    const third = await json("POST", "/sessions", {});
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ success: false, code: "QUEUE_FULL", message: expect.stringMatching(/runs at most 1 at once, and 1 more are waiting/) });
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(settled).toBe(false);

    expect((await release(first.body.id as string)).status).toBe(200);
    const got = await second;
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(await pressure()).toMatchObject({ running: 1, queued: 0 });
    expect((await json("POST", `/sessions/${got.body.data.sessionId}/end`, {})).status).toBe(200);
    await waitFor(async () => (await pressure()).running === 0);
    expect(await readyz()).toEqual({ status: 200, body: { status: "ready" } });
  }, 60_000);

  it("a queued start whose client leaves is out of the queue and never takes the slot", async () => {
    const first = await json("POST", "/sessions", {});
    expect(first.status).toBe(201);
    const leaving = new AbortController();
    const gone = call("POST", "/sessions", {}, { signal: leaving.signal }).catch((e: unknown) => e);
    await waitFor(async () => (await pressure()).queued === 1);
    leaving.abort();
    expect(await gone).toBeInstanceOf(Error);
    await waitFor(async () => (await pressure()).queued === 0);
    await release(first.body.id as string);
    await waitFor(async () => (await pressure()).running === 0);
    // Nobody launched a Chrome for the client that left.
    expect((await json("GET", "/sessions?status=RUNNING")).body).toEqual([]);
  }, 60_000);

  it("/v1/pressure needs the API key like every /v1 route; /readyz does not", async () => {
    expect((await call("GET", "/pressure", undefined, { key: null })).status).toBe(401);
    expect((await fetch(`${current.url}/readyz`)).status).toBe(200);
  });
});

describe("admission: queue timeout", () => {
  beforeAll(async () => {
    current = await serve({ maxSessions: 1, maxQueued: 2, queueTimeoutS: 1 });
  });

  it("a start that waits past --queue-timeout gets 429 QUEUE_TIMEOUT with Retry-After", async () => {
    const first = await json("POST", "/sessions", {});
    expect(first.status).toBe(201);
    const t0 = Date.now();
    const waited = await json("POST", "/sessions/start", startBody, withModelKey);
    expect(waited.status).toBe(429);
    expect(waited.body).toMatchObject({ code: "QUEUE_TIMEOUT", message: expect.stringMatching(/queue timeout \(1 s\)/) });
    expect(waited.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect(await pressure()).toMatchObject({ running: 1, queued: 0 });
    await release(first.body.id as string);
  }, 60_000);
});

describe("admission: memory limit", () => {
  beforeAll(async () => {
    // Below what the server alone holds: no session may start.
    current = await serve({ maxMemoryBytes: 1024 * 1024 });
  });

  it("above --max-memory no session starts: 429 naming the limit, pressure and readyz say memory", async () => {
    await waitFor(async () => (await pressure()).reason === "memory");
    expect(await pressure()).toMatchObject({ running: 0, queued: 0, maxMemory: 1024 * 1024, available: false, reason: "memory" });
    expect(await readyz()).toEqual({ status: 503, body: { status: "unavailable", reason: "memory" } });
    const refused = await json("POST", "/sessions", {});
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: "QUEUE_FULL", message: expect.stringMatching(/memory is above its limit \(\d+ MiB > 1 MiB\)/) });
    expect((await json("GET", "/sessions?status=RUNNING")).body).toEqual([]);
  }, 30_000);
});

describe("draining", () => {
  beforeAll(async () => {
    current = await serve({ maxSessions: 1, maxQueued: 1, queueTimeoutS: 60, shutdownGraceS: 30 });
  });

  it("queued and new starts get 503 DRAINING, /readyz 503; the running agentExecute finishes, then the server closes", async () => {
    const started = await json("POST", "/sessions/start", startBody, withModelKey);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const id = started.body.data.sessionId as string;
    fake.reset();
    // Three slow steps, then done: about 2 s of work.
    fake.script(...Array.from({ length: 3 }, () => ({ kind: "delay" as const, ms: 700, then: step("wait", { ms: 10 }) })), step("done", { message: "all waited", success: true }));
    const model = { modelName: "openai/gpt-test", baseURL: fake.baseURL(), apiKey: "sk-fake" };
    const running = stream(`/sessions/${id}/agentExecute`, { agentConfig: { model }, executeOptions: { instruction: "wait three times", maxSteps: 10 } });
    const queued = json("POST", "/sessions", {});
    await waitFor(async () => (await pressure()).queued === 1 && fake.requests.length >= 1);

    const closed = current.close("drained");
    const q = await queued;
    expect(q.status).toBe(503);
    expect(q.body).toMatchObject({ code: "DRAINING" });
    expect(await readyz()).toEqual({ status: 503, body: { status: "unavailable", reason: "draining" } });
    const fresh = await json("POST", "/sessions/start", startBody, withModelKey);
    expect(fresh.status).toBe(503);
    expect(fresh.body).toMatchObject({ code: "DRAINING" });
    expect(fresh.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await pressure()).toMatchObject({ draining: true, available: false, reason: "draining", running: 1 });

    const r = await running;
    expect(r.status).toBe(200);
    const last = r.events.at(-1)!.data.data;
    expect(last.status, JSON.stringify(last)).toBe("finished");
    expect(last.result).toMatchObject({ success: true, completed: true });
    await closed;
    await expect(fetch(`${current.url}/readyz`)).rejects.toThrow();
  }, 60_000);
});

describe("drain timeout", () => {
  beforeAll(async () => {
    current = await serve({ shutdownGraceS: 1 });
  });

  it("an operation still running when the drain time is up ends with an error event", async () => {
    const started = await json("POST", "/sessions/start", startBody, withModelKey);
    const id = started.body.data.sessionId as string;
    fake.reset();
    scriptTimes(fake, { kind: "delay", ms: 500, then: step("wait", { ms: 10 }) }, 60);
    const model = { modelName: "openai/gpt-test", baseURL: fake.baseURL(), apiKey: "sk-fake" };
    const running = stream(`/sessions/${id}/agentExecute`, { agentConfig: { model }, executeOptions: { instruction: "wait forever", maxSteps: 60 } });
    await waitFor(() => fake.requests.length >= 1);
    const t0 = Date.now();
    await current.close("drain time is up");
    const r = await running;
    fake.reset();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect(r.events.at(-1)!.data.data).toEqual({ status: "error", error: "drain time is up", code: "UNAVAILABLE" });
  }, 60_000);
});
