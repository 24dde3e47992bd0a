/**
 * Contexts (saved logins) with `@browserbasehq/sdk`: a login on the cookie fixture (session-only HttpOnly cookie +
 * localStorage) made with `persist: true` is there in the next session; `persist: false` reads without saving;
 * another key's context is 404; a second persisting session 409; the stored file holds no cookie in clear; the upload
 * URL is 501.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Browserbase from "@browserbasehq/sdk";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyFingerprint, startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM, waitFor } from "../support/browser.js";
import { startFixtureServer, type FixtureServer } from "../support/server.js";
import { markTmpdir } from "../support/process.js";

const KEY = "test-key-ctx-one-0001";
const OTHER_KEY = "test-key-ctx-two-0002";
const base = mkdtempSync(join(tmpdir(), "svc-server-contexts-"));
let restoreTmp = (): void => {};
const logs: string[] = [];

let fixtures: FixtureServer;
let server: RunningServer;
let bb: Browserbase;
let other: Browserbase;

beforeAll(async () => {
  restoreTmp = markTmpdir(base);
  fixtures = await startFixtureServer();
  server = await startServer({
    port: 0,
    apiKeys: [KEY, OTHER_KEY],
    cacheDir: join(base, "cache"),
    dataDir: join(base, "data"),
    // A warm Chrome is ready, but a session with a context must get a fresh one (its profile prepared).
    warmBrowsers: 1,
    launch: { executablePath: CHROMIUM, headless: true },
    log: (line) => logs.push(line),
    allowNet: [`localhost:${fixtures.port}`, `127.0.0.1:${fixtures.port}`],
  });
  bb = new Browserbase({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
  other = new Browserbase({ apiKey: OTHER_KEY, baseURL: server.url, maxRetries: 0 });
});

afterAll(async () => {
  await server?.close();
  await fixtures?.close();
  restoreTmp();
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

/** Opens the session's first page over CDP, runs `fn`, then disconnects (the session keeps running). */
async function inSession<T>(connectUrl: string, fn: (page: import("playwright-core").Page) => Promise<T>): Promise<T> {
  const browser = await chromium.connectOverCDP(connectUrl);
  try {
    const context = browser.contexts()[0]!;
    const page = context.pages()[0] ?? (await context.newPage());
    return await fn(page);
  } finally {
    await browser.close();
  }
}

async function release(id: string): Promise<void> {
  await bb.sessions.update(id, { status: "REQUEST_RELEASE", projectId: "p" });
}

/** Writes `value` under "k" in the page origin's IndexedDB "ctxdb". */
async function idbPut(page: import("playwright-core").Page, value: string): Promise<void> {
  await page.evaluate(
    (v) =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open("ctxdb", 1);
        open.onupgradeneeded = () => open.result.createObjectStore("kv");
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const tx = open.result.transaction("kv", "readwrite");
          tx.objectStore("kv").put(v, "k");
          tx.oncomplete = () => (open.result.close(), resolve());
          tx.onerror = () => reject(tx.error);
        };
      }),
    value,
  );
}

async function idbGet(page: import("playwright-core").Page): Promise<unknown> {
  return page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const open = indexedDB.open("ctxdb", 1);
        open.onupgradeneeded = () => open.result.createObjectStore("kv");
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const get = open.result.transaction("kv").objectStore("kv").get("k");
          get.onsuccess = () => (open.result.close(), resolve(get.result ?? null));
          get.onerror = () => reject(get.error);
        };
      }),
  );
}

async function status(page: import("playwright-core").Page): Promise<string> {
  await page.goto(fixtures.url("/login"));
  return `${await page.textContent("#status")} | ${await page.textContent("#local")} | ${page.url().length ? await page.evaluate(() => document.cookie) : ""}`;
}

describe("contexts", () => {
  it("create, retrieve, update and delete with the SDK's shapes; the upload URL answers 501", async () => {
    const created = await bb.contexts.create({ projectId: "proj-1" });
    expect(created).toMatchObject({ id: expect.any(String), cipherAlgorithm: "AES-256-CBC", initializationVectorSize: 16, publicKey: "", uploadUrl: `${server.url}/v1/contexts/${created.id}/upload` });
    const got = await bb.contexts.retrieve(created.id);
    expect(got).toEqual({ id: created.id, projectId: "proj-1", createdAt: expect.any(String), updatedAt: expect.any(String) });
    expect(Number.isNaN(Date.parse(got.createdAt))).toBe(false);
    expect(await bb.contexts.update(created.id)).toMatchObject({ id: created.id, uploadUrl: created.uploadUrl });
    const upload = await fetch(created.uploadUrl, { method: "PUT", body: "x" });
    expect(upload.status).toBe(501);
    expect(((await upload.json()) as { message: string }).message).toMatch(/context upload is not supported/);
    await expect(other.contexts.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.contexts.delete(created.id)).rejects.toMatchObject({ status: 404 });
    await bb.contexts.delete(created.id);
    await expect(bb.contexts.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(bb.contexts.retrieve("../../etc/passwd")).rejects.toMatchObject({ status: 404 });
  });

  // One context for both stories (each session start and end costs a Chrome): the last session reads what
  // neither the read-only session nor the Chrome gone early may have changed.
  it("a login saved by a persisting session is there in the next; persist: false reads without saving; a Chrome gone before its session ends (closed by a client, or crashed) overwrites nothing", async () => {
    const ctx = await bb.contexts.create();
    const s1 = await bb.sessions.create({ projectId: "p", browserSettings: { context: { id: ctx.id, persist: true } } });
    // The SDK's Session names the context it started with.
    expect((await bb.sessions.retrieve(s1.id)).contextId).toBe(ctx.id);
    const sid = await inSession(s1.connectUrl, async (page) => {
      expect(await status(page)).toMatch(/^signed out \| local theme: none/);
      await page.fill("#user", "alice");
      await page.click("#signin");
      await page.waitForSelector("text=signed in as alice");
      // A persistent cookie beside the fixture's session-only one.
      await page.evaluate(() => (document.cookie = "remember=yes; max-age=86400; path=/"));
      await idbPut(page, "kept in IndexedDB");
      const cookies = await page.context().cookies();
      expect(cookies.find((c) => c.name === "sid")?.expires).toBe(-1);
      return cookies.find((c) => c.name === "sid")!.value;
    });
    await release(s1.id);
    await waitFor(() => logs.some((l) => l.includes(`context ${ctx.id}: saved`)));

    // At rest: sealed, no cookie value or stored value in clear.
    const file = readFileSync(join(base, "data", "contexts", keyFingerprint(KEY), ctx.id));
    expect(file.includes(Buffer.from(sid))).toBe(false);
    expect(file.includes(Buffer.from("alice"))).toBe(false);
    expect(file.includes(Buffer.from("remember"))).toBe(false);

    // persist: false sees the login, and what it changes is not kept.
    const s2 = await bb.sessions.create({ projectId: "p", browserSettings: { context: { id: ctx.id, persist: false } } });
    await inSession(s2.connectUrl, async (page) => {
      expect(await status(page)).toBe("signed in as alice | local theme: dark | remember=yes");
      expect(await idbGet(page)).toBe("kept in IndexedDB");
      await idbPut(page, "changed");
      await page.evaluate(() => localStorage.setItem("theme", "light"));
      await page.context().clearCookies();
      expect(await status(page)).toMatch(/^signed out \| local theme: light/);
    });
    await release(s2.id);
    await waitFor(() => logs.some((l) => l.includes(`session ${s2.id}: context ${ctx.id}: read only`)));

    // A persisting session whose Chrome is closed by a client (after clearing the cookies) saves nothing.
    const gone = await bb.sessions.create({ projectId: "p", keepAlive: true, browserSettings: { context: { id: ctx.id, persist: true } } });
    const browser = await chromium.connectOverCDP(gone.connectUrl);
    const page = browser.contexts()[0]!.pages()[0] ?? (await browser.contexts()[0]!.newPage());
    await page.goto(fixtures.url("/login"));
    await page.context().clearCookies();
    const cdp = await browser.newBrowserCDPSession();
    await cdp.send("Browser.close").catch(() => {});
    await browser.close().catch(() => {});
    await waitFor(() => logs.some((l) => l.includes(`session ${gone.id}: context ${ctx.id}: Chrome exited before the session ended`)));

    const s3 = await bb.sessions.create({ projectId: "p", browserSettings: { context: { id: ctx.id } } });
    await inSession(s3.connectUrl, async (page) => {
      expect(await status(page)).toBe("signed in as alice | local theme: dark | remember=yes");
      expect(await idbGet(page)).toBe("kept in IndexedDB");
    });
    await release(s3.id);
    expect(logs.filter((l) => l.includes(`context ${ctx.id}: saved`))).toEqual([expect.stringMatching(/saved \(\d+ cookies, [1-9]\d* storage files\)/)]);
  });

  it("another key's or an unknown context: 404 before any Chrome; a bad field: 400 naming it", async () => {
    const ctx = await bb.contexts.create();
    const chromes = () => logs.filter((l) => / started \(chrome pid/.test(l)).length;
    const before = chromes();
    await expect(other.sessions.create({ projectId: "p", browserSettings: { context: { id: ctx.id } } })).rejects.toMatchObject({ status: 404 });
    await expect(bb.sessions.create({ projectId: "p", browserSettings: { context: { id: "00000000-0000-4000-8000-000000000000" } } })).rejects.toMatchObject({ status: 404 });
    const res = await fetch(`${server.url}/v1/sessions`, {
      method: "POST",
      headers: { "x-bb-api-key": KEY, "content-type": "application/json" },
      body: JSON.stringify({ browserSettings: { context: { id: ctx.id, persist: "yes" } } }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/browserSettings\.context\.persist/);
    // The session API's browserbaseSessionCreateParams are the same body, checked the same way.
    const start = (params: unknown, key = KEY) =>
      fetch(`${server.url}/v1/sessions/start`, {
        method: "POST",
        headers: { "x-bb-api-key": key, "x-model-api-key": "sk-test", "content-type": "application/json" },
        body: JSON.stringify({ modelName: "openai/gpt-test", browserbaseSessionCreateParams: params }),
      });
    expect((await start({ browserSettings: { context: { id: ctx.id } } }, OTHER_KEY)).status).toBe(404);
    const bad = await start({ browserSettings: { context: { id: "" } } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/^browserbaseSessionCreateParams\.browserSettings\.context\.id: /);
    expect(chromes()).toBe(before);
  });

  it("a second session persisting the same context gets 409 CONTEXT_IN_USE; a reading one may start", async () => {
    const ctx = await bb.contexts.create();
    const first = await bb.sessions.create({ projectId: "p", keepAlive: true, browserSettings: { context: { id: ctx.id, persist: true } } });
    try {
      const res = await fetch(`${server.url}/v1/sessions`, {
        method: "POST",
        headers: { "x-bb-api-key": KEY, "content-type": "application/json" },
        body: JSON.stringify({ browserSettings: { context: { id: ctx.id, persist: true } } }),
      });
      expect(res.status).toBe(409);
      expect(await res.json()).toMatchObject({ code: "CONTEXT_IN_USE" });
      const reader = await bb.sessions.create({ projectId: "p", browserSettings: { context: { id: ctx.id, persist: false } } });
      await release(reader.id);
    } finally {
      await release(first.id);
    }
    // Once the first one ended, the context is free again.
    await waitFor(() => logs.some((l) => l.includes(`context ${ctx.id}: saved`)));
    const again = await bb.sessions.create({ projectId: "p", browserSettings: { context: { id: ctx.id, persist: true } } });
    await release(again.id);
  });
});
