/**
 * A platform session without keepAlive ends when its last CDP client has been gone for the grace period, as the
 * platform does: Playwright disconnects without releasing and the session becomes COMPLETED, its Chrome gone. With
 * keepAlive it stays RUNNING; a client back within the grace keeps it; a session nobody connected to waits for its
 * timeout.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM, waitFor } from "../support/browser.js";
import { chromeBrowsersOf, markTmpdir } from "../support/process.js";

const KEY = "disconnect-key-0001";
const GRACE_MS = 1500;
const base = mkdtempSync(join(tmpdir(), "svc-disconnect-"));
let restoreTmp = (): void => {};
let server: RunningServer;

beforeAll(async () => {
  restoreTmp = markTmpdir(base);
  server = await startServer({ port: 0, apiKeys: [KEY], cacheDir: join(base, "cache"), launch: { executablePath: CHROMIUM, headless: true }, disconnectGraceMs: GRACE_MS });
});

afterAll(async () => {
  await server?.close();
  restoreTmp();
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

type Session = { id: string; status: string; connectUrl: string };

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${server.url}/v1${path}`, { method, headers: { "x-bb-api-key": KEY, "content-type": "application/json" }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  return res.json();
}

const status = async (id: string): Promise<string> => ((await api("GET", `/sessions/${id}`)) as Session).status;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Chrome browser processes of this file (marked with its TMPDIR). */
const allChromes = (): number[] => chromeBrowsersOf(base);

/**
 * The Chromes started since `before` (taken just before the session's start). A Chrome that was there already
 * is not this test's: once, under a full parallel run, one more Chrome marked with this file's TMPDIR was there
 * before its first session started (its command line, if it shows up again: see the failure message).
 */
let before: number[] = [];
const chromes = (): number[] => allChromes().filter((pid) => !before.includes(pid));
const commandLines = (pids: number[]) => pids.map((pid) => { try { return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").slice(0, 400); } catch { return `${pid}: gone`; } }).join("\n");
beforeEach(() => {
  before = allChromes();
  if (before.length) console.warn(`server-disconnect: Chrome(s) marked with this file's TMPDIR before the test:\n${commandLines(before)}`);
});

/** Connects with Playwright, opens the page, disconnects without releasing. */
async function visit(session: Session): Promise<void> {
  const browser = await chromium.connectOverCDP(session.connectUrl);
  const page = browser.contexts()[0]!.pages()[0] ?? (await browser.contexts()[0]!.newPage());
  expect(await page.evaluate(() => 1 + 1)).toBe(2);
  await browser.close(); // over CDP: only disconnects
}

describe("a platform session and its CDP clients", () => {
  it("without keepAlive: the last client leaving ends it after the grace, and its Chrome is gone", async () => {
    const session = (await api("POST", "/sessions", {})) as Session;
    expect(chromes(), commandLines(chromes())).toHaveLength(1);
    // Nobody connected yet: it waits for a client (or its timeout), not for the grace.
    await sleep(GRACE_MS + 1000);
    expect(await status(session.id)).toBe("RUNNING");
    await visit(session);
    await waitFor(async () => (await status(session.id)) === "COMPLETED", GRACE_MS + 10_000);
    await waitFor(() => chromes().length === 0);
    expect(chromes()).toEqual([]);
  }, 60_000);

  it("with keepAlive: it stays RUNNING after its clients leave, until released", async () => {
    const session = (await api("POST", "/sessions", { keepAlive: true })) as Session;
    await visit(session);
    await sleep(GRACE_MS + 1500);
    expect(await status(session.id)).toBe("RUNNING");
    expect(chromes()).toHaveLength(1);
    await api("POST", `/sessions/${session.id}`, { status: "REQUEST_RELEASE" });
    await waitFor(() => chromes().length === 0);
  }, 60_000);

  it("a client back within the grace keeps it; leaving for good ends it", async () => {
    const session = (await api("POST", "/sessions", {})) as Session;
    await visit(session);
    const back = await chromium.connectOverCDP(session.connectUrl);
    await sleep(GRACE_MS + 1500);
    expect(await status(session.id)).toBe("RUNNING");
    await back.close();
    await waitFor(async () => (await status(session.id)) === "COMPLETED", GRACE_MS + 10_000);
    await waitFor(() => chromes().length === 0);
  }, 60_000);

  it("a session-API session on it holds it like a client", async () => {
    const platform = (await api("POST", "/sessions", {})) as Session;
    const started = await api("POST", "/sessions/start", { modelName: "openai/gpt-test", browserbaseSessionID: platform.id });
    expect(started.success, JSON.stringify(started)).toBe(true);
    await visit(platform);
    await sleep(GRACE_MS + 1500);
    expect(await status(platform.id)).toBe("RUNNING");
    await api("POST", `/sessions/${platform.id}/end`, {});
    await waitFor(async () => (await status(platform.id)) === "COMPLETED", GRACE_MS + 10_000);
    await waitFor(() => chromes().length === 0);
  }, 60_000);
});
