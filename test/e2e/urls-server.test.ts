/**
 * `svc serve`'s doors that open a page, against the one table of hostile URLs (test/support/hostile-urls.ts), on an
 * isolated server in real Chrome: the session API's navigate, agentExecute's goto (asked by the fake model) and the live
 * view's address box refuse the "web" policy's rows with INVALID_ARGUMENT in the same words (a 400, the model's step
 * error, the viewer's line); the tab keeps its page.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM } from "../support/browser.js";
import { startFakeModel, type FakeModel } from "../support/fake-model.js";
import { hostileUrls, secretFile, refusal, refusedBy } from "../support/hostile-urls.js";
import { liveNavigate, liveSocket } from "../support/live-view.js";
import { markTmpdir } from "../support/process.js";
import { startFixtureServer, type FixtureServer } from "../support/server.js";
import { apiClient, expectNoChrome } from "../support/session-api.js";
import { step } from "./agent-support.js";

const KEY = "urls-key-one-0001";
const OTHER_KEY = "urls-key-two-0002";
const base = mkdtempSync(join(tmpdir(), "svc-urls-server-"));
const { secret, secretUrl } = secretFile(base);

let restoreTmp = (): void => {};
let fake: FakeModel;
let site: FixtureServer;
let server: RunningServer;
let cdp: Browser | undefined;

beforeAll(async () => {
  restoreTmp = markTmpdir(base);
  [fake, site] = await Promise.all([startFakeModel(), startFixtureServer()]);
  server = await startServer({
    port: 0,
    apiKeys: [KEY, OTHER_KEY],
    cacheDir: join(base, "cache"),
    launch: { executablePath: CHROMIUM, headless: true },
    allowNet: [`localhost:${site.port}`, `127.0.0.1:${site.port}`, new URL(fake.baseURL()).host],
  });
});

afterAll(async () => {
  await cdp?.close().catch(() => {});
  await server?.close();
  await Promise.all([fake?.close(), site?.close()]);
  await expectNoChrome(base);
  restoreTmp();
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

const { json } = apiClient({ server: () => server, key: KEY });
const withKey = { headers: { "x-model-api-key": "sk-test-key" } };

/** Where the session's tab is, and whether anything of a row (the secret) reached it. */
async function where(page: Page): Promise<{ tabs: number; href: string; leaked: boolean }> {
  const seen = await page.evaluate(() => ({ href: location.href, all: document.title + document.documentElement.outerHTML }));
  return { tabs: page.context().pages().length, href: seen.href, leaked: seen.all.includes(secret) };
}

describe("svc serve: one URL policy on navigate, agentExecute and the live view", () => {
  it("every row the \"web\" policy refuses gets INVALID_ARGUMENT with the same words on each door, and the tab stays", async () => {
    const started = await json("POST", "/sessions/start", { modelName: "openai/gpt-test" }, withKey);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const id = started.body.data.sessionId as string;
    const page = site.url("forms.html");
    expect((await json("POST", `/sessions/${id}/navigate`, { url: page })).status).toBe(200);
    cdp = await chromium.connectOverCDP(started.body.data.cdpUrl as string);
    const tab = cdp.contexts()[0]!.pages()[0]!;
    const debug = await json("GET", `/sessions/${id}/debug`);
    const view = await liveSocket(debug.body.debuggerFullscreenUrl as string);
    try {
      const rows = refusedBy("web", hostileUrls({ secretUrl, secret, page }));
      expect(rows.length).toBeGreaterThanOrEqual(8);
      for (const [i, row] of rows.entries()) {
        const words = refusal("web", row);
        const nav = await json("POST", `/sessions/${id}/navigate`, { url: row.url });
        expect(nav.status, row.url).toBe(400);
        expect(`${nav.body.code}: ${nav.body.message}`, row.url).toBe(words);

        fake.reset();
        fake.script(step("goto", { url: row.url }, "the page asks me to open this"), step("done", { message: "finished", success: true }));
        const agent = await json("POST", `/sessions/${id}/agentExecute`, { agentConfig: { model: { modelName: "openai/gpt-test", baseURL: fake.baseURL() } }, executeOptions: { instruction: `do what the page asks (${i})` } }, withKey);
        expect(agent.status, JSON.stringify(agent.body)).toBe(200);
        const steps = fake.requestsFor("agent_step");
        expect(steps.length, row.url).toBe(2);
        expect(steps[1]!.userText, row.url).toContain(`→ error: ${words.replace(/^INVALID_ARGUMENT: /, "")}`);

        expect(await liveNavigate(view, row.url), `${row.url} ${JSON.stringify(view.messages.filter((m) => m.type !== "frame"))}`).toEqual([words]);
        expect(await where(tab), row.url).toEqual({ tabs: 1, href: page, leaked: false });
      }
    } finally {
      view.ws.close();
      await json("POST", `/sessions/${id}/end`, {});
    }
  }, 180_000);
});
