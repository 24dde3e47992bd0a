/**
 * `svc serve` admission and draining through the built CLI: its flags are validated (exit 2 naming the
 * flag); with --max-sessions 1 --queue 1 GET /v1/pressure shows the queue; SIGTERM during a running
 * agentExecute (fake model, slow steps) turns /readyz and new sessions to 503 DRAINING, lets the operation
 * finish, then the process exits 0 with every browser gone.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../support/browser.js";
import { type FakeModel, startFakeModel } from "../support/fake-model.js";
import { parseSse } from "../support/session-api.js";
import { step } from "../e2e/agent-support.js";
import { type Sandbox, assertBuilt, expectOneLine, sandbox, svc, expectNoChrome } from "./helpers.js";
import { type Served, startServe } from "./serve-helpers.js";

const KEY = "serve-drain-key-0123456789";

let fake: FakeModel;
let sb: Sandbox;
let served: Served | undefined;

beforeAll(async () => {
  assertBuilt();
  fake = await startFakeModel();
  sb = sandbox({ OPENAI_API_KEY: "sk-operator-openai" });
});
afterEach(() => {
  served?.child.kill("SIGKILL");
  served = undefined;
});
afterAll(async () => {
  sb.cleanup();
  await fake.close();
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, any>; headers: Headers }> {
  const res = await fetch(`${served!.url}/v1${path}`, { method, headers: { "x-bb-api-key": KEY, "content-type": "application/json" }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  return { status: res.status, json: (await res.json()) as Record<string, any>, headers: res.headers };
}

describe("svc serve: admission flags", () => {
  it("bad --queue, --queue-timeout, --max-cpu, --max-memory, --drain-timeout: exit 2 naming the flag", async () => {
    const cases: [string[], RegExp][] = [
      [["--queue", "-1"], /^svc: --queue must be a whole number ≥ 0, got "-1"/],
      [["--queue-timeout", "0"], /^svc: --queue-timeout must be a number above 0/],
      [["--max-cpu", "120"], /^svc: --max-cpu must be a number above 0 and at most 100, got "120"/],
      [["--max-memory", "lots"], /^svc: --max-memory must be a size such as 6G, 512M or a number of bytes, got "lots"/],
      [["--max-memory", "0"], /^svc: --max-memory must be a size/],
      [["--drain-timeout", "soon"], /^svc: --drain-timeout must be a number of seconds from 0 to 3600, got "soon"/],
    ];
    for (const [args, message] of cases) {
      const r = await svc(["serve", "--port", "0", "--api-key", KEY, ...args], sb.env);
      expect(r.code, args.join(" ")).toBe(2);
      expect(expectOneLine(r.stderr), args.join(" ")).toMatch(message);
    }
  }, 60_000);
});

describe("svc serve: SIGTERM drains", () => {
  it("/readyz and new sessions 503 DRAINING, the running agentExecute finishes, then exit 0 with no browser left", async () => {
    served = await startServe(sb.env, ["--api-key", KEY, "--max-sessions", "1", "--queue", "1", "--queue-timeout", "60", "--max-memory", "64G", "--drain-timeout", "60", "--warm-browsers", "0"]);
    expect(await call("GET", "/pressure")).toMatchObject({ status: 200, json: { running: 0, queued: 0, maxSessions: 1, maxQueued: 1, maxMemory: 64 * 1024 ** 3, maxCpu: null, available: true, reason: null, draining: false } });

    const started = await call("POST", "/sessions/start", { modelName: "openai/gpt-test" });
    expect(started.status, JSON.stringify(started.json)).toBe(200);
    const id = started.json.data.sessionId as string;
    expect(await call("GET", "/pressure")).toMatchObject({ json: { running: 1, queued: 0, reason: "full", available: true } });

    fake.reset();
    fake.script(...Array.from({ length: 3 }, () => ({ kind: "delay" as const, ms: 800, then: step("wait", { ms: 10 }) })), step("done", { message: "waited", success: true }));
    const model = { modelName: "openai/gpt-test", baseURL: fake.baseURL() };
    const running = fetch(`${served.url}/v1/sessions/${id}/agentExecute`, {
      method: "POST",
      headers: { "x-bb-api-key": KEY, "content-type": "application/json", "x-stream-response": "true" },
      body: JSON.stringify({ agentConfig: { model }, executeOptions: { instruction: "wait three times", maxSteps: 10 } }),
    }).then(async (r) => ({ status: r.status, events: parseSse(await r.text()) }));
    await waitFor(() => fake.requests.length >= 1);

    served.child.kill("SIGTERM");
    await waitFor(async () => (await fetch(`${served!.url}/readyz`)).status === 503);
    expect(await (await fetch(`${served.url}/readyz`)).json()).toEqual({ status: "unavailable", reason: "draining" });
    const fresh = await call("POST", "/sessions", {});
    expect(fresh.status).toBe(503);
    expect(fresh.json).toMatchObject({ success: false, code: "DRAINING" });
    expect(fresh.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await call("GET", "/pressure")).toMatchObject({ status: 200, json: { draining: true, available: false, reason: "draining", running: 1 } });

    const r = await running;
    expect(r.status).toBe(200);
    const last = r.events.at(-1)!.data.data;
    expect(last.status, JSON.stringify(last)).toBe("finished");
    expect(last.result).toMatchObject({ success: true, completed: true });
    const done = await served.done;
    expect(done.code).toBe(0);
    await expectNoChrome(sb.tmp);
  }, 90_000);
});
