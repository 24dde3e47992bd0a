/**
 * A tenant's page that loops on alert()/confirm() (dialog-forever.html, started by a click) does not hold
 * the session API: an act with a timeout ends at it, and one without ends once the page has not answered a
 * trivial script for 30 s (PAGE_ANSWER_TIMEOUT_MS), each with the documented TIMEOUT answer. Before, each call
 * waited for Chrome's 180 s protocol timeout. The session ends cleanly afterwards.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAGE_ANSWER_TIMEOUT_MS } from "../../src/local/backend.js";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM } from "../support/browser.js";
import { startFixtureServer, type FixtureServer } from "../support/server.js";
import { apiClient, expectNoChrome } from "../support/session-api.js";
import { markTmpdir } from "../support/process.js";

const KEY = "dialog-loop-key-1";
const base = mkdtempSync(join(tmpdir(), "svc-server-dialogs-"));
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

const { json } = apiClient({ server: () => server, key: KEY });
const click = (id: string) => ({ input: { selector: `#${id}`, description: id, method: "click", arguments: [] } });
/** The bound plus the request's own round trips, generous for a loaded machine (without it: 180 s each). */
const SLACK_MS = 25_000;

describe("a dialog loop on a session API page", () => {
  it("act with and without a timeout: TIMEOUT within its bound; the session still ends", async () => {
    const started = await json("POST", "/sessions/start", { modelName: "openai/gpt-test" });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const id = started.body.data.sessionId as string;
    const nav = await json("POST", `/sessions/${id}/navigate`, { url: site.url("dialog-forever.html?start=click") });
    expect(nav.status, JSON.stringify(nav.body)).toBe(200);

    // The click starts the loop; the act (its checks after the press) ends at its own timeout.
    let t0 = Date.now();
    const first = await json("POST", `/sessions/${id}/act`, { ...click("go"), options: { timeout: 3000 } });
    expect(first.status, JSON.stringify(first.body)).toBe(422);
    expect(first.body).toMatchObject({ success: false, code: "TIMEOUT" });
    expect(Date.now() - t0).toBeLessThan(3000 + SLACK_MS);

    // No timeout given: the page answers nothing, so the act ends after the page-answer bound.
    t0 = Date.now();
    const second = await json("POST", `/sessions/${id}/act`, click("go"));
    expect(second.status, JSON.stringify(second.body)).toBe(422);
    expect(second.body).toMatchObject({ success: false, code: "TIMEOUT", message: expect.stringMatching(/the page does not answer/) });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(PAGE_ANSWER_TIMEOUT_MS - 1000);
    expect(Date.now() - t0).toBeLessThan(PAGE_ANSWER_TIMEOUT_MS + SLACK_MS);

    const end = await json("POST", `/sessions/${id}/end`, {});
    expect(end.status, JSON.stringify(end.body)).toBe(200);
  }, 180_000);
});
