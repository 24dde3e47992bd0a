/**
 * The recorder's download budget (src/browser/recorder-downloads.ts) against real Chrome, with a budget small
 * enough to pass: a download that would take the folder past it is cancelled and reported
 * (`svc.downloadRefused`), nothing of it stays in the folder, and a small one after it still lands.
 * (A platform session's budget is downloadsMaxBytesPerSession, default 256 MiB; the mechanism is this one.)
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { launchBrowser, type LaunchedBrowser } from "../../src/index.js";
import { startRecorder, type BrowserRecorder } from "../../src/internal.js";
import { CdpConnection } from "../../src/browser/cdp/connection.js";
import { CHROMIUM, waitFor } from "../support/browser.js";
import { DOWNLOAD_BODY, startFixtureServer, type FixtureServer } from "../support/server.js";

const base = mkdtempSync(join(tmpdir(), "svc-recorder-limits-"));
const dir = join(base, "downloads");
let site: FixtureServer;
let browser: LaunchedBrowser;
let recorder: BrowserRecorder;
const events: Array<{ method: string; params: Record<string, unknown> }> = [];

beforeAll(async () => {
  site = await startFixtureServer();
  browser = await launchBrowser({ executablePath: CHROMIUM, headless: true });
  recorder = await startRecorder(browser.wsEndpoint, { event: (_page, method, params) => void events.push({ method, params }), recording: () => {} }, { downloads: { dir, maxBytes: 100_000 } });
}, 60_000);

afterAll(async () => {
  await recorder?.close();
  await browser?.close();
  await site?.close();
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

it("a download past the budget is cancelled and logged; a small one still lands", async () => {
  const cdp = await CdpConnection.connect(browser.wsEndpoint);
  try {
    const { targetId } = await cdp.root.send("Target.createTarget", { url: site.url("downloads.html") });
    const { sessionId } = await cdp.root.send("Target.attachToTarget", { targetId, flatten: true });
    const page = cdp.session(sessionId)!;
    const evaluate = async (expression: string) => (await page.send("Runtime.evaluate", { expression, returnByValue: true })).result.value as unknown;
    await waitFor(async () => (await evaluate("document.readyState === 'complete' && !!document.getElementById('big')")) === true);
    // Half of it now, the rest held back (gate): Chrome knows its size (300,000 bytes) from the first progress.
    await evaluate("const a = document.createElement('a'); a.href = '/download?name=big.bin&bytes=300000&gate=limits'; document.body.append(a); a.click()");
    const refused = await waitFor(() => events.find((e) => e.method === "svc.downloadRefused"));
    expect(refused.params).toMatchObject({ reason: expect.stringMatching(/would pass 100000 bytes/) });
    await waitFor(() => events.some((e) => e.method === "Browser.downloadProgress" && e.params.state === "canceled"));
    await evaluate("document.getElementById('report').click()");
    await waitFor(() => events.some((e) => e.method === "Browser.downloadProgress" && e.params.state === "completed"));
    expect(readdirSync(dir)).toEqual(["report.txt"]);
    expect(DOWNLOAD_BODY.length).toBeLessThan(100_000);
  } finally {
    await cdp.close();
  }
}, 60_000);
