/**
 * `svc serve` stops an operation whose client goes away (real server in process, real Chrome): an act typing
 * into a slow field stops between two keys when its HTTP request is aborted, and nothing types on after.
 * Requests on one session's page run one at a time: a navigate sent while an act types waits for it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM, waitFor } from "../support/browser.js";
import { startFixtureServer, type FixtureServer } from "../support/server.js";
import { apiClient, expectNoChrome } from "../support/session-api.js";
import { markTmpdir } from "../support/process.js";

const KEY = "test-key-cccccccc";
const base = mkdtempSync(join(tmpdir(), "svc-server-cancel-"));
let restoreTmp = (): void => {};
let site: FixtureServer;
let server: RunningServer;

beforeAll(async () => {
  restoreTmp = markTmpdir(base);
  site = await startFixtureServer();
  server = await startServer({ port: 0, apiKeys: [KEY], cacheDir: join(base, "cache"), launch: { executablePath: CHROMIUM, headless: true }, log: () => {} });
});

afterAll(async () => {
  await server?.close();
  await site?.close();
  await expectNoChrome(base);
  restoreTmp();
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

const { call, json } = apiClient({ server: () => server, key: KEY });

/** `typed: N` of slow-keys.html, read through the session (an extract queues behind a running act). */
async function typed(id: string): Promise<number> {
  const r = await json("POST", `/sessions/${id}/extract`, {});
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return Number(/typed: (\d+)/.exec(String(r.body.data.result.pageText))![1]);
}

describe("client disconnect", () => {
  it("an act whose client disconnects stops typing; the replay records it as stopped", async () => {
    const started = await json("POST", "/sessions/start", { modelName: "openai/gpt-test" }, { headers: { "x-model-api-key": "sk-unused" } });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const id = started.body.data.sessionId as string;
    expect((await json("POST", `/sessions/${id}/navigate`, { url: site.url("slow-keys.html") })).status).toBe(200);
    const controller = new AbortController();
    const action = { selector: "#field", description: "the field", method: "type", arguments: ["x".repeat(200)] };
    const pending = call("POST", `/sessions/${id}/act`, { input: action }, { signal: controller.signal }).catch((e: unknown) => e);
    setTimeout(() => controller.abort(), 800);
    expect(await pending).toBeInstanceOf(Error);
    const atStop = await typed(id);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await typed(id)).toBe(atStop);
    expect(atStop).toBeLessThan(200);
    const act = await waitFor(async () => {
      const r = await json("GET", `/sessions/${id}/replay`);
      return (r.body.data.pages as any[]).flatMap((p) => p.actions).find((a) => a.method === "act");
    });
    expect(JSON.stringify(act.result)).toMatch(/client disconnected \(typed \d+ of 200 characters\)/);
    await json("POST", `/sessions/${id}/end`, {});
  });
});

describe("one operation at a time", () => {
  it("a navigate sent while an act types waits for the act, which types every character", async () => {
    const started = await json("POST", "/sessions/start", { modelName: "openai/gpt-test" }, { headers: { "x-model-api-key": "sk-unused" } });
    const id = started.body.data.sessionId as string;
    expect((await json("POST", `/sessions/${id}/navigate`, { url: site.url("slow-keys.html") })).status).toBe(200);
    const order: string[] = [];
    const action = { selector: "#field", description: "the field", method: "type", arguments: ["x".repeat(40)] };
    const acting = json("POST", `/sessions/${id}/act`, { input: action }).then((r) => (order.push("act"), r));
    await new Promise((r) => setTimeout(r, 300));
    const navigating = json("POST", `/sessions/${id}/navigate`, { url: site.url("forms.html") }).then((r) => (order.push("navigate"), r));
    const [acted, navigated] = await Promise.all([acting, navigating]);
    expect([acted.status, navigated.status]).toEqual([200, 200]);
    expect(acted.body.data.result).toMatchObject({ success: true });
    expect(order).toEqual(["act", "navigate"]);
    await json("POST", `/sessions/${id}/end`, {});
  });
});
