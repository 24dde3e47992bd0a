/**
 * An act's `timeout` bounds it when its model stalls (issue 41): through the real HTTP session API (the
 * wire's `options.timeout`) and the library's `act({timeout})`, a model endpoint that accepted the request
 * and never answers — before its headers, or after them in the body — ends the act at the timeout with the
 * wire's timeout error (422 `TIMEOUT`), not at a later deadline of the model client's own.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM, makeService } from "../support/browser.js";
import { startFakeModel, type FakeModel, type FakeReply } from "../support/fake-model.js";
import { rejection } from "../support/rejection.js";
import { startFixtureServer, type FixtureServer } from "../support/server.js";
import { apiClient, expectNoChrome } from "../support/session-api.js";
import { markTmpdir } from "../support/process.js";
import { waitFor } from "../support/wait.js";

const KEY = "act-timeout-key-aaaaaaaa";
const TIMEOUT_MS = 5000;
/** What the act may take past its timeout: the stop is immediate, this is the answer's way back on a busy machine. */
const MARGIN_MS = 2000;
const STALLS: Array<[string, FakeReply]> = [
  ["no headers", { kind: "hang" }],
  ["headers, then a stalled body", { kind: "hang", afterHeaders: true }],
];

const base = mkdtempSync(join(tmpdir(), "svc-act-timeout-"));
let unmark: (() => void) | undefined;
let fake: FakeModel;
let site: FixtureServer;
let server: RunningServer;
const { json } = apiClient({ server: () => server, key: KEY });

beforeAll(async () => {
  unmark = markTmpdir(base);
  [fake, site] = await Promise.all([startFakeModel(), startFixtureServer()]);
  server = await startServer({ port: 0, apiKeys: [KEY], cacheDir: join(base, "cache"), launch: { executablePath: CHROMIUM, headless: true } });
});

afterAll(async () => {
  await server?.close();
  await Promise.all([fake?.close(), site?.close()]);
  await expectNoChrome(base);
  unmark?.();
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

it("session API: act with options.timeout 5000 on a stalled model answers 422 TIMEOUT within the timeout and a margin", async () => {
  const model = { modelName: "openai/gpt-test", baseURL: fake.baseURL() };
  const started = await json("POST", "/sessions/start", { modelName: "openai/gpt-test" });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const id = started.body.data.sessionId as string;
  expect((await json("POST", `/sessions/${id}/navigate`, { url: site.url("forms.html") })).status).toBe(200);
  for (const [stall, reply] of STALLS) {
    fake.reset();
    fake.mode = reply;
    const t0 = Date.now();
    const r = await json("POST", `/sessions/${id}/act`, { input: "please click the Submit button", options: { timeout: TIMEOUT_MS, model } }, { headers: { "x-model-api-key": "sk-test" } });
    const took = Date.now() - t0;
    expect(r.status, stall).toBe(422);
    expect(r.body, stall).toEqual({ success: false, message: `act did not finish within ${TIMEOUT_MS} ms`, code: "TIMEOUT" });
    expect(took, stall).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(took, stall).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    // The stall was the model's: its one request went out and was never answered.
    expect(fake.requestsFor("act"), stall).toHaveLength(1);
  }
  expect((await json("POST", `/sessions/${id}/end`, {})).status).toBe(200);
}, 60_000);

it("library: act({timeout: 5000}) on a stalled model rejects with TIMEOUT within the timeout and a margin", async () => {
  const svc = makeService({ model: { modelName: "openai/gpt-test", apiKey: "sk-test", baseURL: fake.baseURL() }, localBrowserLaunchOptions: { executablePath: CHROMIUM } });
  await svc.init();
  try {
    await svc.page.goto(site.url("forms.html"));
    for (const [stall, reply] of STALLS) {
      fake.reset();
      fake.mode = reply;
      const t0 = Date.now();
      const acting = svc.act("please click the Submit button", { timeout: TIMEOUT_MS, serverCache: false });
      await waitFor(() => fake.requests.length === 1);
      const e = await rejection(acting);
      const took = Date.now() - t0;
      expect(e.code, stall).toBe("TIMEOUT");
      expect(took, stall).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    }
  } finally {
    await svc.close();
  }
}, 60_000);
