/**
 * Issue 15: a platform session's logs, recording and downloads through `@browserbasehq/sdk` on a two-key server:
 * console, a 404, an aborted request, an in-document navigation and a throw all in `sessions.logs.list`; the
 * recording replays in rrweb's Replayer; a Playwright download lands in the zip whatever folder it asked; other keys
 * get 404; all readable after release.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import Browserbase from "@browserbasehq/sdk";
import { unzipSync } from "fflate";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBase } from "../../src/browser/run-dir.js";
import { keyFingerprint, startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM, waitFor } from "../support/browser.js";
import { DOWNLOAD_BODY, startFixtureServer, type FixtureServer } from "../support/server.js";
import { EVENT_WAIT_MS } from "../support/timing.js";
import { markTmpdir } from "../support/process.js";

const KEY = "artifacts-key-aaaaaa";
const OTHER_KEY = "artifacts-key-bbbbbb";
const base = mkdtempSync(join(tmpdir(), "svc-session-artifacts-"));
let restoreTmp = (): void => {};

let site: FixtureServer;
let server: RunningServer;
let client: Browserbase;
let other: Browserbase;
let pw: Browser | undefined;
let sessionId = "";

type Log = { method: string; pageId: number; sessionId: string; frameId?: string; request?: { params: Record<string, any> } };

beforeAll(async () => {
  restoreTmp = markTmpdir(base);
  site = await startFixtureServer();
  server = await startServer({
    port: 0,
    apiKeys: [KEY, OTHER_KEY],
    cacheDir: join(base, "cache"),
    dataDir: join(base, "data"),
    launch: { executablePath: CHROMIUM, headless: true },
    allowNet: [`localhost:${site.port}`, `127.0.0.1:${site.port}`],
  });
  client = new Browserbase({ apiKey: KEY, baseURL: server.url });
  other = new Browserbase({ apiKey: OTHER_KEY, baseURL: server.url });
  const session = await client.sessions.create({ projectId: "p", keepAlive: true });
  sessionId = session.id;
  pw = await chromium.connectOverCDP(session.connectUrl);
}, 60_000);

afterAll(async () => {
  await pw?.close().catch(() => {});
  await server?.close();
  await site?.close();
  restoreTmp();
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

const logs = async () => (await client.sessions.logs.list(sessionId)) as unknown as Log[];
const zipOf = async (c: Browserbase, id: string) => unzipSync(new Uint8Array(await (await c.sessions.downloads.list(id)).arrayBuffer()));

describe("session logs, recording and downloads", () => {
  it("logs navigations, console messages, failed requests, 404s and uncaught exceptions", async () => {
    const page = pw!.contexts()[0]!.pages()[0] ?? (await pw!.contexts()[0]!.newPage());
    const url = site.url("session-logs.html");
    await page.goto(url);
    const has = (list: Log[], method: string, test: (p: Record<string, any>) => boolean) => list.some((e) => e.method === method && test(e.request?.params ?? {}));
    const expected = {
      exception: (l: Log[]) => has(l, "Runtime.exceptionThrown", (p) => /svc-uncaught-marker/.test(p.exceptionDetails?.exception?.description ?? "")),
      aborted: (l: Log[]) => has(l, "Network.loadingFailed", (p) => p.canceled === true),
      notFound: (l: Log[]) => has(l, "Network.responseReceived", (p) => p.response.status === 404 && String(p.response.url).endsWith("/missing-for-session-logs")),
      hash: (l: Log[]) => has(l, "Page.navigatedWithinDocument", (p) => p.url === `${url}#later`),
    };
    let missing: string[] = [];
    const list = await waitFor(async () => {
      const l = await logs();
      missing = Object.entries(expected).flatMap(([k, test]) => (test(l) ? [] : [k]));
      return missing.length === 0 ? l : undefined;
    }, EVENT_WAIT_MS, 200).catch((e: Error) => Promise.reject(new Error(`${e.message}; missing from the log: ${missing.join(", ")}`)));
    const nav = list.find((e) => e.method === "Page.frameNavigated" && e.request?.params.frame.url === url)!;
    expect(nav).toBeDefined();
    expect(nav.sessionId).toBe(sessionId);
    expect(nav.frameId).toBe(nav.request!.params.frame.id);
    const consoleEntry = list.find((e) => e.method === "Runtime.consoleAPICalled" && e.request?.params.args?.[0]?.value === "svc-console-marker")!;
    expect(consoleEntry.request!.params.args[1]).toMatchObject({ type: "number", value: 42 });
    expect(consoleEntry.pageId).toBe(nav.pageId);
    // The recorder's own isolated world says nothing in the page's log.
    expect(list.every((e) => e.method !== "Runtime.consoleAPICalled" || !JSON.stringify(e).includes("rrweb"))).toBe(true);
  }, 60_000);

  it("records the page with rrweb, replayable in rrweb's Replayer with the page's text", async () => {
    const events = await waitFor(async () => {
      const list = (await client.sessions.recording.retrieve(sessionId)) as unknown as Array<{ type: number; data: any; timestamp: number; sessionId: string }>;
      // 2 = FullSnapshot; a later mutation (3 with source 0) adds the paragraph.
      return list.some((e) => e.type === 2) && JSON.stringify(list).includes("added after load") ? list : undefined;
    }, EVENT_WAIT_MS, 200);
    expect(events.every((e) => e.sessionId === sessionId && typeof e.timestamp === "number")).toBe(true);
    expect(events[0]!.type).toBe(4); // Meta first
    // The recorder lives in its own world: the page sees neither rrweb nor the binding, so cannot forge events.
    const recorded = pw!.contexts()[0]!.pages()[0]!;
    expect(await recorded.evaluate(() => [typeof (window as any).rrweb, Object.keys(window).filter((k) => /svc|rrweb/i.test(k))])).toEqual(["undefined", []]);
    // What is typed is masked: the input event is recorded, its value is not.
    await recorded.fill("#field", "typed-value-not-recorded");
    const typed = await waitFor(async () => {
      const list = (await client.sessions.recording.retrieve(sessionId)) as unknown as Array<{ type: number; data: any }>;
      return list.some((e) => e.type === 3 && e.data.source === 5) ? JSON.stringify(list) : undefined;
    }, EVENT_WAIT_MS, 200);
    expect(typed).not.toContain("typed-value-not-recorded");
    const before = events.length;
    await recorded.evaluate(() => (window as any).__svcRecordEvent?.(JSON.stringify({ type: 2, data: { forged: true }, timestamp: Date.now() })));
    const after = (await client.sessions.recording.retrieve(sessionId)) as unknown as Array<{ data: any }>;
    expect(after.length).toBeGreaterThanOrEqual(before);
    expect(JSON.stringify(after)).not.toContain("forged");
    const rrwebDir = dirname(createRequire(import.meta.url).resolve("rrweb"));
    // Its TMPDIR as svc would choose one: this file's own may be too long for Chrome's singleton socket.
    const viewer = await chromium.launch({ executablePath: CHROMIUM, headless: true, env: { ...process.env, TMPDIR: runBase() } });
    try {
      const page = await viewer.newPage();
      await page.setContent("<!doctype html><div id=root></div>");
      await page.addScriptTag({ content: readFileSync(join(rrwebDir, "rrweb.umd.min.cjs"), "utf8") });
      await page.addStyleTag({ content: readFileSync(join(rrwebDir, "style.css"), "utf8") });
      const text = await page.evaluate(async (evts) => {
        const { Replayer } = (window as any).rrweb;
        const replayer = new Replayer(evts, { root: document.getElementById("root"), showWarning: false, speed: 8 });
        // Played to its end (every event applied), as a viewer would watch it.
        const finished = new Promise((r) => replayer.on("finish", r));
        replayer.play();
        await Promise.race([finished, new Promise((r) => setTimeout(r, 15_000))]);
        return replayer.iframe.contentDocument.body.textContent as string;
      }, events);
      expect(text).toContain("svc recording marker: this text is in the replay");
      expect(text).toContain("added after load");
    } finally {
      await viewer.close();
    }
  }, 60_000);

  it("a download Playwright clicks lands in the session's zip, not in the folder Playwright asked for", async () => {
    expect(Object.keys(await zipOf(client, sessionId))).toEqual([]);
    // A context of Playwright's own: only its setDownloadBehavior (rewritten by the CDP filter) decides there.
    const context = await pw!.newContext();
    const page = await context.newPage();
    await page.goto(site.url("downloads.html"));
    const started = page.waitForEvent("download");
    await page.click("#report");
    const download = await started;
    expect(download.suggestedFilename()).toBe("report.txt");
    const files = await waitFor(async () => {
      const z = await zipOf(client, sessionId);
      return z["report.txt"] ? z : undefined;
    }, EVENT_WAIT_MS, 200);
    expect(new TextDecoder().decode(files["report.txt"])).toBe(DOWNLOAD_BODY);
    const list = await logs();
    expect(list.some((e) => e.method === "Browser.downloadWillBegin" && e.request?.params.suggestedFilename === "report.txt")).toBe(true);
    expect(list.some((e) => e.method === "Page.frameNavigated" && e.pageId > 0)).toBe(true); // the second tab
  }, 60_000);

  it("a tab opened later and its out-of-process iframe are recorded too, under that tab's pageId", async () => {
    const page = await pw!.contexts()[0]!.newPage();
    await page.goto(site.url("iframes.html"));
    const cross = page.frames().find((f) => f.url().startsWith(site.url("", "127.0.0.1")))!;
    await cross.evaluate(() => console.log("svc-oopif-marker"));
    const list = await waitFor(async () => {
      const l = await logs();
      return l.some((e) => e.method === "Runtime.consoleAPICalled" && e.request?.params.args?.[0]?.value === "svc-oopif-marker") ? l : undefined;
    }, EVENT_WAIT_MS, 200);
    const tab = list.find((e) => e.method === "Page.frameNavigated" && e.request?.params.frame.url === site.url("iframes.html"))!;
    const child = list.find((e) => e.method === "Runtime.consoleAPICalled" && e.request?.params.args?.[0]?.value === "svc-oopif-marker")!;
    expect(child.pageId).toBe(tab.pageId);
    expect(list.some((e) => e.method === "Page.frameNavigated" && e.request?.params.frame.url === site.url("frame-child.html", "127.0.0.1") && e.pageId === tab.pageId)).toBe(true);
    await page.close();
  }, 60_000);

  it("recordSession: false and logSession: false (the SDK's switches) keep no recording and no log; the page still works", async () => {
    const quiet = await client.sessions.create({ projectId: "p", keepAlive: true, browserSettings: { recordSession: false, logSession: false } });
    const browser = await chromium.connectOverCDP(quiet.connectUrl);
    try {
      const page = browser.contexts()[0]!.pages()[0] ?? (await browser.contexts()[0]!.newPage());
      await page.goto(site.url("session-logs.html"));
      await page.evaluate(() => console.log("svc-quiet-marker"));
      // Time for a recorder to report what it would have (the logging test above sees its events within this).
      await new Promise((r) => setTimeout(r, 500));
      expect(await client.sessions.logs.list(quiet.id)).toEqual([]);
      expect(await client.sessions.recording.retrieve(quiet.id)).toEqual([]);
    } finally {
      await browser.close().catch(() => {});
      await client.sessions.update(quiet.id, { status: "REQUEST_RELEASE" });
    }
  }, 60_000);

  it("another key's session is a 404 on every route", async () => {
    await expect(other.sessions.logs.list(sessionId)).rejects.toMatchObject({ status: 404 });
    await expect(other.sessions.recording.retrieve(sessionId)).rejects.toMatchObject({ status: 404 });
    await expect(other.sessions.downloads.list(sessionId)).rejects.toMatchObject({ status: 404 });
  });

  it("logs, recording and downloads stay readable after the session is released", async () => {
    await pw?.close();
    pw = undefined;
    await client.sessions.update(sessionId, { status: "REQUEST_RELEASE", projectId: "p" });
    await waitFor(async () => (await client.sessions.retrieve(sessionId)).status === "COMPLETED");
    expect((await logs()).some((e) => e.method === "Runtime.consoleAPICalled")).toBe(true);
    expect(((await client.sessions.recording.retrieve(sessionId)) as unknown[]).length).toBeGreaterThan(1);
    expect(Object.keys(await zipOf(client, sessionId))).toEqual(["report.txt"]);
  }, 30_000);

  it("the session's downloads folder is the server's, and goes with the session records when the server stops", async () => {
    const folder = join(base, "data", "downloads", keyFingerprint(KEY), sessionId);
    expect(readdirSync(folder)).toEqual(["report.txt"]);
    await server.close();
    expect(existsSync(folder)).toBe(false);
  }, 30_000);
});
