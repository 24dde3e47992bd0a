/**
 * The session API over raw HTTP against the in-process server: envelopes, validation (400 naming the field), auth,
 * ownership, SSE framing and order, a disconnect aborting an agent run, the server cache (shouldCache replayed with
 * no model but the final answer's), replay token sums, no model key in any log, idle expiry and shutdown; no Chrome
 * left (TMPDIR marks them).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentExecuteResponseSchema } from "../../src/index.js";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM, waitFor } from "../support/browser.js";
import { startFakeModel, type FakeModel } from "../support/fake-model.js";
import { usageOf } from "../support/models.js";
import { startFixtureServer, type FixtureServer } from "../support/server.js";
import { apiClient, type CallOptions, expectNoChrome, parseSse, UUID } from "../support/session-api.js";
import { scriptTimes, siteBrain, step, stepRequests } from "./agent-support.js";
import { markTmpdir } from "../support/process.js";

const KEY = "test-key-aaaaaaaa";
const OTHER_KEY = "test-key-bbbbbbbb";
const MODEL_KEY = "sk-model-secret-1234567890";
const TASK = "Order two Boston Ferns with express delivery for %customer% (%email%)";

// Chrome run dirs (profiles) live under this TMPDIR while the file runs.
const base = mkdtempSync(join(tmpdir(), "svc-server-api-"));
let restoreTmp = (): void => {};
let fake: FakeModel;
let site: FixtureServer;
let server: RunningServer;
const logLines: string[] = [];

beforeAll(async () => {
  restoreTmp = markTmpdir(base);
  [fake, site] = await Promise.all([startFakeModel(), startFixtureServer()]);
  server = await startServer({
    port: 0,
    apiKeys: [KEY, OTHER_KEY],
    cacheDir: join(base, "cache"),
    launch: { executablePath: CHROMIUM, headless: true },
    // Two keys isolate the tenants: their browsers reach the fixture server, and their model configs the
    // fake model, only because these are allowed.
    allowNet: [`localhost:${site.port}`, `127.0.0.1:${site.port}`, new URL(fake.baseURL()).host],
    log: (line) => void logLines.push(line),
  });
});

afterAll(async () => {
  await server?.close();
  await Promise.all([fake?.close(), site?.close()]);
  await expectNoChrome(base);
  restoreTmp();
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

// ---- helpers -------------------------------------------------------------------------------------

const model = () => ({ modelName: "openai/gpt-test", baseURL: fake.baseURL() });
const { call, json, stream } = apiClient({ server: () => server, key: KEY });
const withKey = { headers: { "x-model-api-key": MODEL_KEY } };

async function start(extra: Record<string, unknown> = {}, o: CallOptions = {}): Promise<string> {
  const r = await json("POST", "/sessions/start", { modelName: "openai/gpt-test", ...extra }, { ...o, headers: { "x-model-api-key": MODEL_KEY, ...o.headers } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.sessionId as string;
}

async function navigate(id: string, path: string): Promise<void> {
  const r = await json("POST", `/sessions/${id}/navigate`, { url: site.url(path) });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

// ---- tests ---------------------------------------------------------------------------------------

describe("auth and validation", () => {
  it("401 without a key or with an unknown key, before anything else", async () => {
    const missing = await json("POST", "/sessions/start", { modelName: "openai/gpt-test" }, { key: null });
    expect(missing).toMatchObject({ status: 401, body: { success: false, message: expect.stringContaining("x-bb-api-key") } });
    const unknown = await json("POST", "/sessions/start", {}, { key: "not-a-known-key" });
    expect(unknown).toMatchObject({ status: 401, body: { success: false, message: "unknown API key" } });
    expect((await json("POST", "/sessions/whatever/act", { input: "x" }, { key: null })).status).toBe(401);
  });

  it("400 naming the field for bad start bodies; no browser is started for them", async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{}, /^modelName: /],
      [{ modelName: "openai/gpt-test", verbose: 5 }, /^verbose: /],
      [{ modelName: "openai/gpt-test", domSettleTimeoutMs: "soon" }, /^domSettleTimeoutMs: /],
      [{ modelName: "openai/gpt-test", browser: { type: "firefox" } }, /^browser\.type: /],
      [{ modelName: "openai/gpt-test", browser: { type: "local", launchOptions: { executablePath: "/bin/sh" } } }, /^browser\.launchOptions\.executablePath: not settable over HTTP/],
      [{ modelName: "openai/gpt-test", browser: { type: "local", launchOptions: { args: ["--renderer-cmd-prefix=/bin/sh"] } } }, /^browser\.launchOptions\.args: /],
      [{ modelName: "openai/gpt-test", browser: { type: "local", cdpUrl: "ws://127.0.0.1:9222/devtools/browser/x" } }, /^browser\.cdpUrl: loopback/],
      [{ modelName: "openai/gpt-test", browserbaseSessionCreateParams: { timeout: 5 } }, /^browserbaseSessionCreateParams\.timeout: /],
      [{ modelName: "gpt-test" }, /provider\/model/],
    ];
    for (const [body, message] of cases) {
      const r = await json("POST", "/sessions/start", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body, JSON.stringify(body)).toMatchObject({ success: false, message: expect.stringMatching(message) });
    }
    expect((await json("GET", "/sessions?status=RUNNING")).body).toEqual([]);
  });

  it("404 for an unknown session on every route", async () => {
    for (const route of ["act", "extract", "observe", "navigate", "agentExecute", "end"]) {
      const r = await json("POST", `/sessions/no-such-session/${route}`, route === "agentExecute" ? { agentConfig: {}, executeOptions: { instruction: "x" } } : route === "navigate" ? { url: "https://example.com" } : route === "act" ? { input: "x" } : {});
      expect(r, route).toMatchObject({ status: 404, body: { success: false, message: expect.stringContaining("not found") } });
    }
    expect((await json("GET", "/sessions/no-such-session/replay")).status).toBe(404);
  });
});

describe("a session: start, operations, replay, end", () => {
  let id = "";
  beforeAll(async () => {
    id = await start();
  });

  it("start answers {sessionId, available, cdpUrl}; the id is a platform session of the same key only", async () => {
    const r = await json("POST", "/sessions/start", { modelName: "openai/gpt-test", browserbaseSessionID: id }, withKey);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, data: { sessionId: id, available: true, cdpUrl: expect.stringMatching(new RegExp(`^ws://127\\.0\\.0\\.1:${server.port}/v1/connect/${id}/`)) } });
    const platform = await json("GET", `/sessions/${id}`);
    expect(platform.body).toMatchObject({ id, status: "RUNNING", connectUrl: r.body.data.cdpUrl });
    // Another key sees nothing of it.
    expect((await json("POST", `/sessions/${id}/act`, { input: "click" }, { key: OTHER_KEY })).status).toBe(404);
    expect((await json("GET", `/sessions/${id}/replay`, undefined, { key: OTHER_KEY })).status).toBe(404);
    expect((await json("POST", "/sessions/start", { modelName: "openai/gpt-test", browserbaseSessionID: id }, { key: OTHER_KEY })).status).toBe(404);
  });

  it("navigate, act (Action and instruction), observe and extract: JSON envelopes", async () => {
    const nav = await json("POST", `/sessions/${id}/navigate`, { url: site.url("forms.html"), options: { waitUntil: "load", timeout: 10_000 } });
    expect(nav).toMatchObject({ status: 200, body: { success: true, data: { result: { url: site.url("forms.html"), status: 200 }, actionId: expect.stringMatching(UUID) } } });

    const action = { selector: "xpath=/html/body/form/p[1]/input", description: "Full name", method: "fill", arguments: ["Grace"] };
    const byAction = await json("POST", `/sessions/${id}/act`, { input: action });
    expect(byAction.body).toMatchObject({ success: true, data: { result: { success: true, actions: [action] }, actionId: expect.stringMatching(UUID) } });
    expect(fake.requests).toHaveLength(0);

    const byInstruction = await json("POST", `/sessions/${id}/act`, { input: "please check the Subscribe to newsletter checkbox", options: { model: model() } }, withKey);
    expect(byInstruction.body).toMatchObject({ success: true, data: { result: { success: true, actionDescription: "please check the Subscribe to newsletter checkbox" } } });
    expect(fake.requestsFor("act")).toHaveLength(1);
    // The key came from the header: the model server saw it, the body never carried it.
    expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${MODEL_KEY}`);

    const observed = await json("POST", `/sessions/${id}/observe`, { instruction: "find the Email field", options: { model: model() } }, withKey);
    expect(observed.body).toMatchObject({ success: true, data: { result: [{ selector: "xpath=/html/body/form/p[2]/input", method: "click", arguments: [] }], actionId: expect.stringMatching(UUID) } });

    const schema = { type: "object", properties: { heading: { type: "string" } }, required: ["heading"], additionalProperties: false };
    fake.script({ heading: "Forms" });
    const extracted = await json("POST", `/sessions/${id}/extract`, { instruction: "the page heading", schema, options: { model: model() } }, withKey);
    expect(extracted.body).toEqual({ success: true, data: { result: { heading: "Forms" }, actionId: expect.stringMatching(UUID) } });
    expect(fake.requestsFor("extract").at(-1)!.schema).toMatchObject({ properties: { heading: { type: "string" } } });
    // A `required` key that `properties` does not list is still required (zod's converter alone let `{}` through).
    fake.script({}, {});
    const loose = await json("POST", `/sessions/${id}/extract`, { instruction: "the id", schema: { type: "object", required: ["id"] }, options: { model: model() } }, withKey);
    expect(loose.body).toMatchObject({ success: false });

    const text = await json("POST", `/sessions/${id}/extract`, {});
    expect(text.body.data.result.pageText).toContain("Forms");
  });

  it("400 naming the field for bad operation bodies and unknown frame ids", async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ["act", {}, /^input: /],
      ["act", { input: "   " }, /^input: /],
      ["act", { input: "click", options: { timeout: -1 } }, /^options\.timeout: /],
      ["act", { input: "click", options: { variables: { "bad name": "x" } } }, /^options\.variables\./],
      ["act", { input: "click", options: { model: { modelName: "openai/x", color: "red" } } }, /^options\.model/],
      ["act", { input: "click", frameId: "NOPE" }, /^frameId: /],
      ["act", { input: { selector: "#cv", description: "upload", method: "setInputFiles", arguments: ["/etc/hostname"] } }, /^input\.method: setInputFiles is not available/],
      ["observe", { options: { selector: "" } }, /^options\.selector: /],
      ["extract", { schema: "not a schema" }, /^schema: /],
      ["navigate", { url: "" }, /^url: /],
      ["navigate", { url: site.url("forms.html"), options: { waitUntil: "soon" } }, /^options\.waitUntil: /],
      ["agentExecute", { agentConfig: {}, executeOptions: {} }, /^executeOptions\.instruction: /],
      ["agentExecute", { agentConfig: { mode: "telepathy" }, executeOptions: { instruction: "x" } }, /^agentConfig\.mode: /],
      ["agentExecute", { agentConfig: {}, executeOptions: { instruction: "x" }, surprise: 1 }, /unknown option "surprise"/],
    ];
    for (const [route, body, message] of cases) {
      const r = await json("POST", `/sessions/${id}/${route}`, body);
      expect(r.status, `${route} ${JSON.stringify(body)}`).toBe(400);
      expect(r.body.message, `${route} ${JSON.stringify(body)}`).toMatch(message);
    }
    // Also when streaming is asked for: a 400 JSON, not a stream.
    const streamed = await call("POST", `/sessions/${id}/act`, {}, { headers: { "x-stream-response": "true" } });
    expect(streamed.status).toBe(400);
    expect(streamed.headers.get("content-type")).toContain("application/json");
  });

  it("frameId addresses a page by its main frame id", async () => {
    // The platform's debug route lists the session's pages with their target (= main frame) ids.
    const debug = await json("GET", `/sessions/${id}/debug`);
    const target = (debug.body.pages as Array<{ id: string; url: string }>).find((p) => p.url.includes("forms.html"))!;
    const r = await json("POST", `/sessions/${id}/act`, { input: { selector: "xpath=/html/body/form/p[1]/input", description: "name", method: "fill", arguments: ["Ada"] }, frameId: target.id });
    expect(r.body).toMatchObject({ success: true, data: { result: { success: true } } });
  });

  it("SSE: starting → connected → logs → finished, uuid ids, event names; errors are 200 + error", async () => {
    const ok = await stream(`/sessions/${id}/act`, { input: "please check the Subscribe to newsletter checkbox", options: { model: model() } }, withKey);
    expect(ok.status).toBe(200);
    expect(ok.type).toContain("text/event-stream");
    const statuses = ok.events.map((e) => e.data.data.status);
    expect(statuses.slice(0, 2)).toEqual(["starting", "connected"]);
    expect(statuses.at(-1)).toBe("finished");
    expect(statuses.slice(2, -1).every((s) => s === "running")).toBe(true);
    for (const e of ok.events) {
      expect(e.data.id).toMatch(UUID);
      expect(e.event).toBe(e.data.data.status);
      expect(e.data.type).toBe(e.data.data.status === "running" ? "log" : "system");
    }
    expect(new Set(ok.events.map((e) => e.data.id)).size).toBe(ok.events.length);
    expect(ok.events.at(-1)!.data.data).toMatchObject({ status: "finished", result: { success: true }, actionId: expect.stringMatching(UUID) });

    const failed = await stream(`/sessions/${id}/act`, { input: { selector: "xpath=//*[@id='no-such-element']", description: "nothing", method: "click", arguments: [] } });
    expect(failed.status).toBe(200);
    expect(failed.events.map((e) => e.data.data.status)).toEqual(["starting", "connected", "error"]);
    expect(failed.events.at(-1)!.data).toMatchObject({ type: "system", data: { status: "error", error: expect.any(String) } });
    expect(failed.events.at(-1)!.data.data.error.length).toBeGreaterThan(0);

    // The same failure as plain JSON is a 422 envelope.
    const plain = await json("POST", `/sessions/${id}/act`, { input: { selector: "xpath=//*[@id='no-such-element']", description: "nothing", method: "click", arguments: [] } });
    expect(plain).toMatchObject({ status: 422, body: { success: false, message: failed.events.at(-1)!.data.data.error } });
  });

  it("the body's streamResponse wins over the header; the Stagehand client gets data-only events", async () => {
    const jsonAnyway = await call("POST", `/sessions/${id}/navigate`, { url: site.url("forms.html"), streamResponse: false }, { headers: { "x-stream-response": "true" } });
    expect(jsonAnyway.headers.get("content-type")).toContain("application/json");
    expect((await jsonAnyway.json()).success).toBe(true);

    const streamedAnyway = await call("POST", `/sessions/${id}/navigate`, { url: site.url("forms.html"), streamResponse: true });
    expect(streamedAnyway.headers.get("content-type")).toContain("text/event-stream");
    expect(parseSse(await streamedAnyway.text()).at(-1)!.event).toBe("finished");

    const stagehand = await stream(`/sessions/${id}/navigate`, { url: site.url("forms.html") }, { headers: { "x-language": "typescript", "x-sdk-version": "3.7.3" } });
    expect(stagehand.text.split("\n\n").filter(Boolean).every((b) => b.startsWith("data: "))).toBe(true);
    expect(stagehand.events.map((e) => e.data.data.status)).toEqual(["starting", "connected", "finished"]);
  });

  it("act cache: MISS then HIT (zero model calls) in the header and the event; the bypass header skips it", async () => {
    await navigate(id, "forms.html");
    const body = { input: "please click the Submit button", options: { model: model() } };
    const first = await json("POST", `/sessions/${id}/act`, body, withKey);
    expect(first.headers.get("browserbase-cache-status")).toBe("MISS");
    expect(first.body.data.result.cacheStatus).toBe("MISS");
    const calls = fake.requests.length;

    const second = await json("POST", `/sessions/${id}/act`, body, withKey);
    expect(second.headers.get("browserbase-cache-status")).toBe("HIT");
    expect(fake.requests.length).toBe(calls);

    const streamed = await stream(`/sessions/${id}/act`, body, withKey);
    expect(streamed.events.at(-1)!.data.data).toMatchObject({ status: "finished", cacheHit: true, result: { cacheStatus: "HIT" } });
    expect(fake.requests.length).toBe(calls);

    const bypassed = await json("POST", `/sessions/${id}/act`, body, { headers: { ...withKey.headers, "browserbase-cache-bypass": "true" } });
    expect(bypassed.status).toBe(200);
    expect(bypassed.headers.get("browserbase-cache-status")).toBeNull();
    expect(fake.requests.length).toBe(calls + 1);
  });

  it("the replay lists every operation with the model tokens it used; sums match the model server", async () => {
    const replay = await json("GET", `/sessions/${id}/replay`);
    expect(replay.status).toBe(200);
    const pages = replay.body.data.pages as Array<{ url: string; timestamp: number; duration: number; actions: any[] }>;
    const actions = pages.flatMap((p) => p.actions);
    expect(actions.map((a) => a.method)).toEqual(expect.arrayContaining(["navigate", "act", "observe", "extract"]));
    for (const p of pages) {
      expect(p).toMatchObject({ url: expect.any(String), timestamp: expect.any(Number), duration: expect.any(Number) });
      for (const a of p.actions) {
        expect(a.endTime).toBeGreaterThanOrEqual(a.timestamp);
        expect(a.tokenUsage).toEqual({ inputTokens: expect.any(Number), outputTokens: expect.any(Number), reasoningTokens: expect.any(Number), cachedInputTokens: expect.any(Number), timeMs: expect.any(Number) });
      }
    }
    const used = usageOf(fake.requests);
    expect(used.input).toBeGreaterThan(0);
    expect(sum(actions.map((a) => a.tokenUsage.inputTokens))).toBe(used.input);
    expect(sum(actions.map((a) => a.tokenUsage.outputTokens))).toBe(used.output);
    // Navigations and Action acts cost nothing.
    expect(actions.filter((a) => a.method === "navigate").every((a) => a.tokenUsage.inputTokens === 0)).toBe(true);
  });

  it("end answers {} and ends the browser; the session is gone afterwards", async () => {
    const r = await json("POST", `/sessions/${id}/end`);
    expect(r).toMatchObject({ status: 200, body: { success: true, data: {} } });
    expect((await json("POST", `/sessions/${id}/act`, { input: "click" })).status).toBe(404);
    expect((await json("POST", `/sessions/${id}/end`)).status).toBe(404);
    expect((await json("GET", `/sessions/${id}`)).body.status).toBe("COMPLETED");
  });
});

describe("agentExecute", () => {
  let id = "";
  const begin = () => site.url("site/index.html");
  const request = (extra: Record<string, unknown> = {}) => ({
    agentConfig: { model: model() },
    executeOptions: { instruction: TASK, variables: { customer: "Ada Lovelace", email: "ada@example.com" } },
    ...extra,
  });
  beforeAll(async () => {
    id = await start();
  });

  it("JSON: the documented AgentExecuteResponse; shouldCache returns the entry, and the same request on the unchanged page replays it with no model call", async () => {
    await navigate(id, "site/index.html");
    scriptTimes(fake, siteBrain({ start: begin() }));
    const first = await json("POST", `/sessions/${id}/agentExecute`, request({ shouldCache: true }), withKey);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(AgentExecuteResponseSchema.safeParse(first.body).success).toBe(true);
    expect(first.body.data.result).toMatchObject({ success: true, completed: true, metadata: { cacheStatus: "MISS" } });
    // The official client's version-1 entry, under the key that client computes (server-official-client.test.ts).
    expect(first.body.data.cacheEntry).toEqual({ cacheKey: expect.stringMatching(/^[0-9a-f]{64}$/), entry: expect.objectContaining({ version: 1, instruction: TASK, steps: expect.any(Array), result: expect.objectContaining({ success: true }) }) });
    expect(JSON.stringify(first.body.data.cacheEntry)).not.toContain("Ada Lovelace");
    expect(stepRequests(fake).length).toBe(7);
    // The key reached the model server through the header.
    expect(stepRequests(fake)[0]!.headers.authorization).toBe(`Bearer ${MODEL_KEY}`);

    // Stagehand's replay steps: acts on XPaths (%name% kept for the variables), then done.
    expect(first.body.data.cacheEntry.entry.steps.map((s: { type: string }) => s.type).at(-1)).toBe("done");
    expect(JSON.stringify(first.body.data.cacheEntry.entry.steps)).toContain("%customer%");

    fake.reset();
    scriptTimes(fake, siteBrain({ start: begin() }));
    await navigate(id, "site/index.html");
    const again = await json("POST", `/sessions/${id}/agentExecute`, request({ shouldCache: true }), withKey);
    // The steps replay with no model, and the page they reached is the one the answer was read from: no call at all.
    expect(stepRequests(fake)).toHaveLength(0);
    expect(again.body.data.result).toMatchObject({ success: true, completed: true, message: first.body.data.result.message, metadata: { cacheStatus: "HIT" } });
    expect(again.body.data.cacheEntry.cacheKey).toBe(first.body.data.cacheEntry.cacheKey);

    // The bypass header runs the model again.
    fake.reset();
    scriptTimes(fake, siteBrain({ start: begin() }));
    await navigate(id, "site/index.html");
    const bypassed = await json("POST", `/sessions/${id}/agentExecute`, request(), { headers: { ...withKey.headers, "browserbase-cache-bypass": "true" } });
    expect(bypassed.body.data.result.completed).toBe(true);
    expect(bypassed.body.data.result.metadata.cacheStatus).toBeUndefined();
    expect(stepRequests(fake).length).toBe(7);
    fake.reset();
  });

  it("streamed: agent steps arrive as log events carrying the RunEvent, then finished", async () => {
    await navigate(id, "site/index.html");
    fake.reset();
    scriptTimes(fake, siteBrain({ start: begin() }));
    // Bypassing the cache so the model (and its steps) run again.
    const r = await stream(`/sessions/${id}/agentExecute`, request(), { headers: { ...withKey.headers, "browserbase-cache-bypass": "true" } });
    fake.reset();
    const logs = r.events.filter((e) => e.data.type === "log").map((e) => e.data.data.message);
    const runEvents = logs.filter((l) => l.category === "agent").map((l) => l.auxiliary.event);
    expect(runEvents[0]).toMatchObject({ type: "run_start" });
    expect(runEvents.at(-1)).toMatchObject({ type: "run_end", result: { completed: true } });
    expect(runEvents.some((e) => e.type === "tool_call")).toBe(true);
    for (const l of logs) expect(l).toMatchObject({ message: expect.any(String), level: expect.any(Number) });
    // Values never travel in events; the result itself is the caller's own.
    expect(JSON.stringify(logs)).not.toContain("Ada Lovelace");
    expect(r.events.at(-1)!.data.data).toMatchObject({ status: "finished", result: { completed: true, success: true } });
  });

  it("a client that disconnects aborts the run: no more model calls, the replay says aborted", async () => {
    await navigate(id, "site/index.html");
    fake.reset();
    scriptTimes(fake, { kind: "delay", ms: 600, then: step("wait", { ms: 10 }, "wait a little") }, 40);
    const controller = new AbortController();
    const res = await call("POST", `/sessions/${id}/agentExecute`, { agentConfig: { model: model() }, executeOptions: { instruction: "wait forever", maxSteps: 40 } }, { ...withKey, signal: controller.signal, headers: { ...withKey.headers, "x-stream-response": "true" } });
    const reader = res.body!.getReader();
    let seen = "";
    while (!seen.includes('"type":"log"')) seen += new TextDecoder().decode((await reader.read()).value);
    await waitFor(() => fake.requests.length >= 2);
    controller.abort();
    await reader.cancel().catch(() => {});
    const replayed = await waitFor(async () => {
      const r = await json("GET", `/sessions/${id}/replay`);
      return (r.body.data.pages as any[]).flatMap((p) => p.actions).find((a) => a.method === "agent" && a.parameters.instruction === "wait forever");
    });
    expect(replayed.result).toMatchObject({ completed: false, metadata: { stopReason: "aborted" } });
    const count = fake.requests.length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(fake.requests.length).toBe(count);
    expect(count).toBeLessThan(10);
    fake.reset();
  });

  it("a request in flight when its session is ended answers 410 naming why (503 is for a server shutting down)", async () => {
    const own = await start();
    fake.reset();
    scriptTimes(fake, { kind: "delay", ms: 500, then: step("wait", { ms: 10 }) }, 40);
    const pending = json("POST", `/sessions/${own}/agentExecute`, { agentConfig: { model: model() }, executeOptions: { instruction: "wait forever", maxSteps: 40 } }, withKey);
    await waitFor(() => fake.requests.length >= 1);
    expect((await json("POST", `/sessions/${own}/end`, {})).status).toBe(200);
    const r = await pending;
    fake.reset();
    expect(r.status).toBe(410);
    expect(r.body.message).toMatch(/ended by the client/);
  });

  it("the replay masks variable values and names only the variables", async () => {
    const replay = await json("GET", `/sessions/${id}/replay`);
    const text = JSON.stringify(replay.body);
    expect(text).not.toContain("Ada Lovelace");
    expect(text).not.toContain("ada@example.com");
    const agent = (replay.body.data.pages as any[]).flatMap((p) => p.actions).find((a) => a.method === "agent");
    expect(agent.parameters).toMatchObject({ instruction: TASK, variables: ["customer", "email"], model: "openai/gpt-test" });
  });

  it("the session remembers the values: a later navigate and observe without variables are masked too (URL spellings included)", async () => {
    const before = fake.requests.length;
    await navigate(id, "site/confirm.html?item=fern&customer=Ada+Lovelace&quantity=2&email=ada%40example.com");
    const observed = await json("POST", `/sessions/${id}/observe`, { instruction: "find the order number", options: { model: model() } }, withKey);
    expect(observed.status).toBe(200);
    const sent = fake.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.snapshot).toContain("%customer% ordered 2 × Boston Fern");
    expect(sent[0]!.url).toContain("customer=%customer%&quantity=2&email=%email%");
    const replay = JSON.stringify((await json("GET", `/sessions/${id}/replay`)).body);
    expect(replay).toContain("customer=%customer%");
    for (const v of ["Ada Lovelace", "Ada+Lovelace", "Ada%20Lovelace", "ada@example.com", "ada%40example.com"]) {
      expect(replay).not.toContain(v);
      expect(JSON.stringify(sent[0]!.body)).not.toContain(v);
    }
  });

  it("the model key never appears in the server's log lines or in any stream", async () => {
    const streamed = await stream(`/sessions/${id}/observe`, { instruction: "find the search box", options: { model: model() } }, withKey);
    expect(streamed.text).not.toContain(MODEL_KEY);
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join("\n")).not.toContain(MODEL_KEY);
    expect(logLines.join("\n")).not.toContain(KEY);
  });
});

describe("idle expiry and shutdown", () => {
  let srv: RunningServer;
  const serverLog: string[] = [];
  beforeAll(async () => {
    srv = await startServer({
      port: 0,
      apiKeys: [KEY],
      cacheDir: join(base, "cache-2"),
      idleTimeoutS: 1,
      shutdownGraceS: 0.3,
      launch: { executablePath: CHROMIUM, headless: true },
      log: (line) => void serverLog.push(line),
    });
  });
  afterAll(async () => {
    await srv?.close();
  });

  it("a session without requests for idleTimeoutS is ended and its browser released", async () => {
    const id = await start({}, { srv });
    await waitFor(async () => (await json("GET", `/sessions/${id}`, undefined, { srv })).body.status === "COMPLETED");
    expect((await json("POST", `/sessions/${id}/act`, { input: "click" }, { srv })).status).toBe(404);
    expect(serverLog.some((l) => l.includes(`api session ${id} idle`))).toBe(true);
  });

  it("keepAlive browsers outlive their session: the end of an attached one, the idle expiry of any", async () => {
    const created = await json("POST", "/sessions", { keepAlive: true }, { srv });
    const attached = await start({ browserbaseSessionID: created.body.id }, { srv });
    expect(attached).toBe(created.body.id);
    expect((await json("POST", `/sessions/${attached}/end`, undefined, { srv })).status).toBe(200);
    expect((await json("GET", `/sessions/${attached}`, undefined, { srv })).body.status).toBe("RUNNING");

    const own = await start({ browserbaseSessionCreateParams: { keepAlive: true } }, { srv });
    await waitFor(async () => (await json("GET", `/sessions/${own}/replay`, undefined, { srv })).status === 404);
    expect((await json("GET", `/sessions/${own}`, undefined, { srv })).body.status).toBe("RUNNING");
    // A later start resumes it.
    expect(await start({ browserbaseSessionID: own }, { srv })).toBe(own);
    for (const id of [attached, own]) await json("POST", `/sessions/${id}`, { status: "REQUEST_RELEASE" }, { srv });
  });

  it("browser.cdpUrl attaches to a given browser (ws:// or http://) and leaves it running at the end", async () => {
    const created = await json("POST", "/sessions", {}, { srv });
    const ws = created.body.connectUrl as string;
    const http = ws.replace(/^ws/, "http").replace(/\/devtools\/browser\/.*$/, "");
    for (const cdpUrl of [ws, http]) {
      const r = await json("POST", "/sessions/start", { modelName: "openai/gpt-test", browser: { type: "local", cdpUrl } }, { srv });
      expect(r.body, cdpUrl).toMatchObject({ success: true, data: { available: true, cdpUrl } });
      const id = r.body.data.sessionId as string;
      expect(id).not.toBe(created.body.id);
      const nav = await json("POST", `/sessions/${id}/navigate`, { url: site.url("forms.html") }, { srv });
      expect(nav.body.data.result).toMatchObject({ status: 200 });
      expect((await json("POST", `/sessions/${id}/end`, undefined, { srv })).status).toBe(200);
      expect((await json("GET", `/sessions/${created.body.id}`, undefined, { srv })).body.status).toBe("RUNNING");
    }
    const bad = await json("POST", "/sessions/start", { modelName: "openai/gpt-test", browser: { type: "local", cdpUrl: site.url("forms.html") } }, { srv });
    expect(bad).toMatchObject({ status: 400, body: { message: expect.stringMatching(/^browser\.cdpUrl: /) } });
    await json("POST", `/sessions/${created.body.id}`, { status: "REQUEST_RELEASE" }, { srv });
  });

  it("shutdown ends a running stream with an error event naming the reason", async () => {
    const id = await start({}, { srv });
    fake.reset();
    scriptTimes(fake, { kind: "delay", ms: 500, then: step("wait", { ms: 10 }) }, 40);
    const pending = stream(`/sessions/${id}/agentExecute`, { agentConfig: { model: model() }, executeOptions: { instruction: "wait forever", maxSteps: 40 } }, { ...withKey, srv, headers: { ...withKey.headers } });
    await waitFor(() => fake.requests.length >= 1);
    await srv.close("maintenance window");
    const r = await pending;
    fake.reset();
    expect(r.events.slice(0, 2).map((e) => e.data.data.status)).toEqual(["starting", "connected"]);
    expect(r.events.at(-1)!.data.data).toEqual({ status: "error", error: "maintenance window", code: "UNAVAILABLE" });
    // The listener is closed: nothing answers any more.
    await expect(fetch(`${srv.url}/healthz`)).rejects.toThrow();
  });
});
