/**
 * `svc serve` as a cluster: three built replicas on one Redis. A session started on A is driven through B and C
 * (operations, a streamed agentExecute, Playwright over connectUrl through C), listed anywhere, refused to another
 * key and to a fake replica. After SIGKILL of A its session is a 410 REPLICA_GONE through B within lease + grace, a
 * running stream ends with `error`, and A's Chrome is gone.
 */
import { chromium } from "playwright-core";
import { WebSocket } from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeModel, type FakeModel } from "../support/fake-model.js";
import { useRedis } from "../support/redis.js";
import { startFixtureServer, type FixtureServer } from "../support/server.js";
import { parseSse } from "../support/session-api.js";
import { assertBuilt, chromePidsOf, type Sandbox, sandbox, expectNoChrome } from "../cli/helpers.js";
import { type Served, startServe } from "../cli/serve-helpers.js";
import { step } from "./agent-support.js";

const KEY = "cluster-key-aaaaaaaa";
const OTHER_KEY = "cluster-key-bbbbbbbb";
const SECRET = "cluster-secret-0123456789abcdef";
const MODEL_KEY = "sk-model-secret-cluster-1234";
const LEASE_MS = 1500;
const GRACE_MS = 1000;

const redis = useRedis();
let fake: FakeModel;
let site: FixtureServer;
const boxes: Sandbox[] = [];
const replicas: Served[] = [];
let A: Served;
let B: Served;
let C: Served;

beforeAll(async () => {
  assertBuilt();
  [fake, site] = await Promise.all([startFakeModel(), startFixtureServer()]);
  const allow = [`localhost:${site.port}`, `127.0.0.1:${site.port}`, new URL(fake.baseURL()).host].flatMap((a) => ["--allow-net", a]);
  const args = ["--api-key", KEY, "--api-key", OTHER_KEY, "--warm-browsers", "0", "--store", redis.url, "--cluster-secret", SECRET, "--cluster-lease", String(LEASE_MS), "--cluster-grace", String(GRACE_MS), "--cluster-heartbeat", "300", ...allow];
  for (let i = 0; i < 3; i++) boxes.push(sandbox());
  // One at a time: three Node starts at once on two shared cores is slow enough to hit the start deadline.
  for (const sb of boxes) replicas.push(await startServe(sb.env, args));
  [A, B, C] = replicas as [Served, Served, Served];
}, 120_000);

afterAll(async () => {
  for (const r of replicas) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill("SIGTERM");
  await Promise.all(replicas.map((r) => r.done));
  for (const sb of boxes) sb.cleanup();
  await Promise.all([fake?.close(), site?.close()]);
}, 60_000);

interface Call {
  key?: string | null;
  headers?: Record<string, string>;
}

/** A request with a deadline: a test that hangs fails here instead. */
async function call(srv: Served, method: string, path: string, body?: unknown, o: Call = {}): Promise<Response> {
  const headers: Record<string, string> = { ...(o.key === null ? {} : { "x-bb-api-key": o.key ?? KEY }), ...(body !== undefined ? { "content-type": "application/json" } : {}), ...o.headers };
  return fetch(`${srv.url}/v1${path}`, { method, headers, signal: AbortSignal.timeout(30_000), ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
}

async function json(srv: Served, method: string, path: string, body?: unknown, o: Call = {}): Promise<{ status: number; body: any }> {
  const res = await call(srv, method, path, body, o);
  return { status: res.status, body: await res.json() };
}

const model = () => ({ modelName: "openai/gpt-test", baseURL: fake.baseURL() });
const withModelKey = { headers: { "x-model-api-key": MODEL_KEY } };

async function start(srv: Served): Promise<string> {
  const r = await json(srv, "POST", "/sessions/start", { modelName: "openai/gpt-test" }, withModelKey);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.sessionId as string;
}

describe("a session started through A, driven through B and C", () => {
  let id = "";
  let connectPath = "";
  beforeAll(async () => {
    id = await start(A);
  }, 60_000);

  it("navigate through B, act through C, extract through B: each lands on A's browser", async () => {
    const nav = await json(B, "POST", `/sessions/${id}/navigate`, { url: site.url("forms.html") });
    expect(nav.status, JSON.stringify(nav.body)).toBe(200);
    const act = await json(C, "POST", `/sessions/${id}/act`, { input: "please check the Subscribe to newsletter checkbox", options: { model: model() } }, withModelKey);
    expect(act.status, JSON.stringify(act.body)).toBe(200);
    expect(act.body.data.result).toMatchObject({ success: true });
    const extract = await json(B, "POST", `/sessions/${id}/extract`, {});
    expect(extract.status, JSON.stringify(extract.body)).toBe(200);
    expect(JSON.stringify(extract.body.data.result)).toContain("newsletter");
    // The replay (kept by the owner, A) saw all three, whichever replica they came through.
    const replay = await json(C, "GET", `/sessions/${id}/replay`);
    const methods = (replay.body.data.pages as any[]).flatMap((p) => p.actions).map((a) => a.method);
    expect(methods).toEqual(expect.arrayContaining(["navigate", "act", "extract"]));
  });

  it("agentExecute streamed through C: log events arrive while the run is still going (no buffering)", async () => {
    fake.reset();
    const STEPS = 5;
    fake.script(...Array.from({ length: STEPS }, () => ({ kind: "delay" as const, ms: 400, then: step("wait", { ms: 10 }, "wait a little") })));
    const res = await call(C, "POST", `/sessions/${id}/agentExecute`, { agentConfig: { model: model() }, executeOptions: { instruction: "wait a while", maxSteps: STEPS } }, { headers: { ...withModelKey.headers, "x-stream-response": "true" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
    const reader = res.body!.getReader();
    let text = "";
    while (!text.includes('"type":"log"')) {
      const chunk = await reader.read();
      expect(chunk.done, "the stream ended before any log event").toBe(false);
      text += new TextDecoder().decode(chunk.value);
    }
    // The first event is here and the model has not been asked for most steps yet: it came as it was sent.
    const asked = fake.requests.length;
    expect(asked).toBeLessThan(STEPS);
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    expect(fake.requests.length).toBeGreaterThan(asked);
    const events = parseSse(text);
    expect(events.at(-1)!.data.data).toMatchObject({ status: "finished" });
    fake.reset();
  });

  it("Playwright connectOverCDP on its connectUrl, through C", async () => {
    const got = await json(B, "GET", `/sessions/${id}`);
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(got.body.status).toBe("RUNNING");
    const connectUrl = new URL(got.body.connectUrl as string);
    expect(connectUrl.origin.replace(/^ws/, "http")).toBe(A.url);
    connectPath = `${connectUrl.pathname}${connectUrl.search}`;
    // The proxy's HTTP side too (what connectOverCDP("http://…") and DevTools fetch).
    const base = connectUrl.pathname.replace(/\/devtools\/.*$/, "");
    const version = await fetch(`${C.url}${base}/json/version`, { signal: AbortSignal.timeout(10_000) });
    expect(version.status).toBe(200);
    expect(((await version.json()) as { webSocketDebuggerUrl: string }).webSocketDebuggerUrl).toContain(base);
    const throughC = `${C.url.replace(/^http/, "ws")}${connectPath}`;
    const browser = await chromium.connectOverCDP(throughC, { timeout: 20_000 });
    try {
      const page = browser.contexts()[0]!.pages().find((p) => p.url().includes("forms.html"))!;
      expect(page).toBeDefined();
      expect(await page.evaluate(() => (document.querySelector("input[type=checkbox]") as HTMLInputElement | null) !== null)).toBe(true);
    } finally {
      await browser.close();
    }
    // Its log (issue 15) is read through another replica too: the route is forwarded to the owner; so is a
    // plain platform session's (one the session API does not know).
    const logs = await json(B, "GET", `/sessions/${id}/logs`);
    expect(logs.status, JSON.stringify(logs.body).slice(0, 200)).toBe(200);
    expect((logs.body as Array<{ method: string; request?: { params: any } }>).some((e) => e.method === "Page.frameNavigated" && String(e.request?.params.frame.url).includes("forms.html"))).toBe(true);
    const plain = await json(A, "POST", "/sessions", {});
    for (const route of ["logs", "recording"]) expect((await json(B, "GET", `/sessions/${plain.body.id}/${route}`)).status).toBe(200);
    expect((await call(C, "GET", `/sessions/${plain.body.id}/downloads`)).headers.get("content-type")).toBe("application/zip");
    expect((await json(B, "POST", `/sessions/${plain.body.id}`, { status: "REQUEST_RELEASE" })).status).toBe(200);
    // A token that is wrong is refused by the owner, and that refusal is what the client through C gets.
    const bad = `${C.url.replace(/^http/, "ws")}${connectUrl.pathname.replace(/\/v1\/connect\/([^/]+)\/[^/]+/, "/v1/connect/$1/wrong-token")}`;
    await expect(chromium.connectOverCDP(bad, { timeout: 10_000 })).rejects.toThrow(/401/);
  });

  it("the live view of A's session, through C: its page, and frames on its socket", async () => {
    const debug = await json(B, "GET", `/sessions/${id}/debug`);
    expect(debug.status, JSON.stringify(debug.body)).toBe(200);
    const live = new URL(debug.body.debuggerFullscreenUrl as string);
    expect(live.origin).toBe(A.url);
    const page = await fetch(`${C.url}${live.pathname}`, { signal: AbortSignal.timeout(10_000) });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("data-svc-live");
    const ws = new WebSocket(`${C.url.replace(/^http/, "ws")}${live.pathname}/socket`);
    try {
      const frame = await new Promise<Buffer>((resolve, reject) => {
        ws.on("message", (data, isBinary) => (isBinary ? resolve(data as Buffer) : undefined));
        ws.once("error", reject);
        setTimeout(() => reject(new Error("no frame within 20 s")), 20_000).unref();
      });
      // A JPEG (FF D8) of the session's tab.
      expect(frame.subarray(0, 2).toString("hex")).toBe("ffd8");
    } finally {
      ws.close();
    }
    const wrong = await fetch(`${C.url}${live.pathname.replace(/[^/]+$/, "wrong-token")}`, { signal: AbortSignal.timeout(10_000) });
    expect(wrong.status).toBe(401);
  });

  it("GET /v1/sessions through any replica lists the key's sessions on every replica; another key sees none", async () => {
    const second = await start(C);
    for (const srv of [A, B, C]) {
      const list = await json(srv, "GET", "/sessions?status=RUNNING");
      expect(list.status).toBe(200);
      const ids = (list.body as any[]).map((s) => s.id);
      expect(ids).toEqual(expect.arrayContaining([id, second]));
      expect(new Set(ids).size).toBe(ids.length);
    }
    const other = await json(B, "GET", "/sessions", undefined, { key: OTHER_KEY });
    expect(other.body).toEqual([]);
    // Another key's session does not exist for this one, through the owner or any other replica.
    for (const srv of [A, B]) expect((await json(srv, "POST", `/sessions/${id}/extract`, {}, { key: OTHER_KEY })).status).toBe(404);
    expect((await json(B, "POST", `/sessions/${second}/end`, {})).status).toBe(200);
    const ended = await json(A, "GET", `/sessions/${second}`);
    expect(ended.body.status).toBe("COMPLETED");
  });

  it("a session-API start through A on a browser session C holds runs on C, and is driven through B", async () => {
    const created = await json(C, "POST", "/sessions", {});
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const pid = created.body.id as string;
    const started = await json(A, "POST", "/sessions/start", { modelName: "openai/gpt-test", browserbaseSessionID: pid }, withModelKey);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body.data.sessionId).toBe(pid);
    const nav = await json(B, "POST", `/sessions/${pid}/navigate`, { url: site.url("forms.html") });
    expect(nav.status, JSON.stringify(nav.body)).toBe(200);
    expect((await json(A, "POST", `/sessions/${pid}/end`, {})).status).toBe(200);
  }, 60_000);

  it("a caller posing as a replica (wrong cluster secret) gets 401; the API key is still required", async () => {
    const posing = await json(B, "POST", `/sessions/${id}/extract`, {}, { headers: { "x-svc-cluster-secret": "guessed-secret-000000000" } });
    expect(posing.status).toBe(401);
    expect(posing.body.message).toMatch(/cluster/);
    const noKey = await json(B, "POST", `/sessions/${id}/extract`, {}, { key: null, headers: { "x-svc-cluster-secret": SECRET } });
    expect(noKey.status).toBe(401);
  });

  it("kill -9 A: its session answers 410 REPLICA_GONE through B within lease + grace, never hangs; A's Chrome is gone", async () => {
    const chromes = chromePidsOf(boxes[0]!.tmp);
    expect(chromes.length).toBeGreaterThan(0);
    // An agent run streamed through B is under way on A when A dies.
    fake.reset();
    fake.script(...Array.from({ length: 20 }, () => ({ kind: "delay" as const, ms: 300, then: step("wait", { ms: 10 }, "wait a little") })));
    const running = await call(B, "POST", `/sessions/${id}/agentExecute`, { agentConfig: { model: model() }, executeOptions: { instruction: "wait long", maxSteps: 20 } }, { headers: { ...withModelKey.headers, "x-stream-response": "true" } });
    const reader = running.body!.getReader();
    let text = "";
    while (!text.includes('"type":"log"')) text += new TextDecoder().decode((await reader.read()).value);
    A.child.kill("SIGKILL");
    const killedAt = Date.now();
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    // The stream still ends with its terminal event: an error naming what happened.
    expect(parseSse(text).at(-1)!.data.data).toMatchObject({ status: "error", code: "REPLICA_GONE", error: expect.stringMatching(/went away mid-stream/) });
    const statuses = new Set<number>();
    let last: { status: number; body: any } | undefined;
    while (Date.now() - killedAt < LEASE_MS + GRACE_MS + 10_000) {
      const t0 = Date.now();
      last = await json(B, "POST", `/sessions/${id}/extract`, {});
      // Each answer comes at once (a refused connection to the dead owner), never after a long wait.
      expect(Date.now() - t0).toBeLessThan(5000);
      statuses.add(last.status);
      if (last.status === 410) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(last?.status, JSON.stringify(last?.body)).toBe(410);
    expect(Date.now() - killedAt).toBeLessThan(LEASE_MS + GRACE_MS + 5000);
    expect(last!.body).toMatchObject({ success: false, code: "REPLICA_GONE", message: expect.stringMatching(/stopped renewing its lease/) });
    // Before the lease ran out, the refused connection was a 502 naming the owner: no other answer.
    for (const s of statuses) expect([410, 502]).toContain(s);
    // The platform session, its CDP socket and the list say the same.
    const platform = await json(C, "GET", `/sessions/${id}`);
    expect(platform).toMatchObject({ status: 410, body: { code: "REPLICA_GONE" } });
    const list = await json(B, "GET", "/sessions");
    expect((list.body as any[]).find((s) => s.id === id)).toMatchObject({ status: "ERROR" });
    const upgrade = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const ws = new WebSocket(`${B.url.replace(/^http/, "ws")}${connectPath}`, { handshakeTimeout: 5000 });
      ws.once("open", () => reject(new Error("the CDP socket of a dead replica's session opened")));
      ws.once("error", reject);
      ws.once("unexpected-response", (_req, res) => {
        let body = "";
        res.on("data", (d: Buffer) => (body += d.toString()));
        res.once("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
    });
    expect(upgrade.status).toBe(410);
    expect(JSON.parse(upgrade.body)).toMatchObject({ code: "REPLICA_GONE" });
    // The reaper ends A's Chrome once A is gone.
    await expectNoChrome(boxes[0]!.tmp);
  }, 60_000);
});
