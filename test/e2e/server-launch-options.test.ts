/**
 * The official launch options (locale, deviceScaleFactor, hasTouch, acceptDownloads …) on POST /v1/sessions/start:
 * page settings show in every page of the session, whoever opened it; accepted downloads land in the session's folder
 * and denied ones do not; the operator's keys are ignored with a warning; `args` / `executablePath` stay refused.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM, waitFor } from "../support/browser.js";
import { startFixtureServer, type FixtureServer } from "../support/server.js";
import { apiClient, expectNoChrome } from "../support/session-api.js";
import { EVENT_WAIT_MS } from "../support/timing.js";
import { markTmpdir } from "../support/process.js";

const KEY = "launch-opts-key-aaaa";
const base = mkdtempSync(join(tmpdir(), "svc-launch-opts-"));
const downloadsDir = join(base, "downloads");
let restoreTmp = (): void => {};
let site: FixtureServer;
let server: RunningServer;
const { json } = apiClient({ server: () => server, key: KEY });

beforeAll(async () => {
  restoreTmp = markTmpdir(base);
  site = await startFixtureServer();
  // artifactsTtlS: an ended session's downloads are deleted a second after it ended (checked below).
  server = await startServer({ port: 0, apiKeys: [KEY], cacheDir: join(base, "cache"), downloadsDir, artifactsTtlS: 1, launch: { executablePath: CHROMIUM, headless: true } });
});

afterAll(async () => {
  await server?.close();
  await site?.close();
  await expectNoChrome(base);
  restoreTmp();
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

/** A bare CDP client over the session's cdpUrl: opens a page at `url` and evaluates expressions in it. */
async function openPage(cdpUrl: string, url: string) {
  const ws = new WebSocket(cdpUrl);
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  let next = 0;
  const waiting = new Map<number, (m: any) => void>();
  const events: any[] = [];
  ws.on("message", (raw) => {
    const m = JSON.parse(String(raw));
    if (m.id !== undefined) waiting.get(m.id)?.(m);
    else events.push(m);
  });
  const send = (method: string, params: object = {}, sessionId?: string): Promise<any> =>
    new Promise((resolve, reject) => {
      const id = ++next;
      waiting.set(id, (m) => (m.error ? reject(new Error(m.error.message)) : resolve(m.result)));
      ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  const { targetId } = await send("Target.createTarget", { url });
  const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
  const evaluate = async (expression: string) => (await send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true }, sessionId)).result.value;
  // The new target shows about:blank (already "complete") until the navigation to `url` commits.
  await waitFor(async () => (await evaluate("location.href === " + JSON.stringify(url) + " && document.readyState === 'complete'")) === true);
  return { evaluate, close: () => ws.close() };
}

const DOWNLOAD = "(() => { const a = document.createElement('a'); a.href = '/manifest.json'; a.download = 'saved.json'; document.body.append(a); a.click(); return true; })()";

function savedFiles(): string[] {
  if (!existsSync(downloadsDir)) return [];
  return readdirSync(downloadsDir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => d.name);
}

describe("official launch options", () => {
  it("locale, deviceScaleFactor, hasTouch are applied to the session's pages; a download lands; operator keys are warnings", async () => {
    const launchOptions = { locale: "de-DE", deviceScaleFactor: 2, hasTouch: true, acceptDownloads: true, chromiumSandbox: false, userDataDir: "/tmp/theirs", port: 9333 };
    const start = await json("POST", "/sessions/start", { modelName: "openai/gpt-test", browser: { type: "local", launchOptions } });
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    const data = start.body.data as { sessionId: string; cdpUrl: string; warnings: string[] };
    expect(data.warnings).toEqual([
      expect.stringMatching(/^browser\.launchOptions\.chromiumSandbox is ignored: /),
      expect.stringMatching(/^browser\.launchOptions\.userDataDir is ignored: /),
      expect.stringMatching(/^browser\.launchOptions\.port is ignored: /),
    ]);
    const page = await openPage(data.cdpUrl, site.url("forms.html"));
    try {
      expect(await page.evaluate("navigator.language")).toBe("de-DE");
      expect(await page.evaluate("Intl.DateTimeFormat().resolvedOptions().locale")).toBe("de-DE");
      expect(await page.evaluate("window.devicePixelRatio")).toBe(2);
      expect(await page.evaluate("'ontouchstart' in window && navigator.maxTouchPoints > 0")).toBe(true);
      expect(await page.evaluate(DOWNLOAD)).toBe(true);
      await waitFor(() => savedFiles().includes("saved.json"));
    } finally {
      page.close();
      await json("POST", `/sessions/${data.sessionId}/end`, {});
    }
    // Accepted downloads are the session's, bounded and deleted like a platform session's (they once stayed forever).
    await waitFor(() => !savedFiles().includes("saved.json"), EVENT_WAIT_MS, 100);
  }, 60_000);

  it("without them the pages keep Chrome's own; acceptDownloads: false denies downloads", async () => {
    const before = savedFiles().length;
    const start = await json("POST", "/sessions/start", { modelName: "openai/gpt-test", browser: { type: "local", launchOptions: { acceptDownloads: false } } });
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    expect(start.body.data.warnings).toBeUndefined();
    const page = await openPage(start.body.data.cdpUrl, site.url("forms.html"));
    try {
      expect(await page.evaluate("window.devicePixelRatio")).toBe(1);
      expect(await page.evaluate("'ontouchstart' in window")).toBe(false);
      expect(await page.evaluate(DOWNLOAD)).toBe(true);
      await new Promise((r) => setTimeout(r, 1500));
      expect(savedFiles().length).toBe(before);
    } finally {
      page.close();
      await json("POST", `/sessions/${start.body.data.sessionId}/end`, {});
    }
  }, 60_000);

  it("on an isolated server acceptDownloads is a warning (tenants never save files on it); options for an attached browser too", async () => {
    const isolatedServer = await startServer({ port: 0, apiKeys: [KEY], isolate: true, cacheDir: join(base, "cache-iso"), downloadsDir, launch: { executablePath: CHROMIUM, headless: true } });
    try {
      const iso = apiClient({ server: () => isolatedServer, key: KEY });
      const r = await iso.json("POST", "/sessions/start", { modelName: "openai/gpt-test", browser: { type: "local", launchOptions: { acceptDownloads: true, locale: "fr-FR" } } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.data.warnings).toEqual([expect.stringMatching(/^browser\.launchOptions\.acceptDownloads is ignored: downloads are denied/)]);
      const platform = (await (await fetch(`${isolatedServer.url}/v1/sessions`, { method: "POST", headers: { "x-bb-api-key": KEY, "content-type": "application/json" }, body: "{}" })).json()) as { id: string };
      const attached = await iso.json("POST", "/sessions/start", { modelName: "openai/gpt-test", browserbaseSessionID: platform.id, browser: { launchOptions: { locale: "fr-FR" } } });
      expect(attached.status, JSON.stringify(attached.body)).toBe(200);
      expect(attached.body.data.warnings).toEqual([expect.stringMatching(/^browser\.launchOptions are ignored: they apply only to a browser this start launches/)]);
    } finally {
      await isolatedServer.close();
    }
  }, 60_000);

  it("args and executablePath stay refused (400 naming the field); unknown keys too", async () => {
    for (const [launchOptions, field] of [
      [{ args: ["--renderer-cmd-prefix=x"] }, "browser.launchOptions.args"],
      [{ executablePath: "/bin/sh" }, "browser.launchOptions.executablePath"],
      [{ lcoale: "de-DE" }, "browser.launchOptions.lcoale"],
      [{ locale: "not a locale" }, "browser.launchOptions.locale"],
    ] as const) {
      const r = await json("POST", "/sessions/start", { modelName: "openai/gpt-test", browser: { type: "local", launchOptions } });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, code: "INVALID_ARGUMENT", message: expect.stringContaining(field) });
    }
  });
});
