/**
 * The platform API against real Chrome: sessions (create, get, list, release, expiry, limits, ownership), the CDP
 * proxy (Playwright over ws:// and http://, svc's Service over cdpUrl, bad tokens), the debug route, and no Chrome
 * outliving its session or the server. TMPDIR marks every Chrome launched here, found wherever svc put its run dir
 * (test/support/process.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { Service } from "../../src/service.js";
import { CHROMIUM, waitFor } from "../support/browser.js";
import { startFixtureServer, type FixtureServer } from "../support/server.js";
import { chromeBrowsersOf, chromeProcessesOf, expectNoChrome, markTmpdir, pidAlive } from "../support/process.js";

const KEY = "test-key-one-0001";
const OTHER_KEY = "test-key-two-0002";
const base = mkdtempSync(join(tmpdir(), "svc-server-platform-"));
let restoreTmp = (): void => {};
const logs: string[] = [];

let fixtures: FixtureServer;
let server: RunningServer;
let shortServer: RunningServer;

function start(extra: Partial<Parameters<typeof startServer>[0]> = {}): Promise<RunningServer> {
  return startServer({
    port: 0,
    apiKeys: [KEY, OTHER_KEY],
    cacheDir: join(base, "cache"),
    launch: { executablePath: CHROMIUM, headless: true },
    log: (line) => logs.push(line),
    // Two keys isolate the tenants: their browsers reach the fixture server only because it is allowed.
    allowNet: [`localhost:${fixtures.port}`, `127.0.0.1:${fixtures.port}`],
    ...extra,
  });
}

beforeAll(async () => {
  restoreTmp = markTmpdir(base);
  fixtures = await startFixtureServer();
  server = await start({ maxSessions: 2 });
  shortServer = await start({ sessionTimeoutS: 2 });
});

afterAll(async () => {
  await server?.close();
  await shortServer?.close();
  await fixtures?.close();
  try {
    // Every Chrome process (browser, renderers, GPU …) launched from this file is gone.
    await expectNoChrome(base);
  } finally {
    restoreTmp();
    rmSync(base, { recursive: true, force: true, maxRetries: 3 });
  }
});

type Json = Record<string, any>;

async function api(srv: RunningServer, method: string, path: string, body?: unknown, key: string | null = KEY): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${srv.url}${path}`, {
    method,
    headers: { ...(key ? { "x-bb-api-key": key } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

async function createSession(srv: RunningServer, params: Json = {}, key = KEY): Promise<Json> {
  const r = await api(srv, "POST", "/v1/sessions", params, key);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as Json;
}

async function release(srv: RunningServer, id: string, key = KEY): Promise<Json> {
  const r = await api(srv, "POST", `/v1/sessions/${id}`, { status: "REQUEST_RELEASE" }, key);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as Json;
}

/** The browser process of each Chrome launched from this file. */
const chromeBrowsers = (): number[] => chromeBrowsersOf(base);

/** Creates a session and returns it with the pid of the Chrome that appeared for it. */
async function createWithPid(srv: RunningServer, params: Json = {}): Promise<{ session: Json; pid: number }> {
  const before = new Set(chromeBrowsers());
  const session = await createSession(srv, params);
  const fresh = chromeBrowsers().filter((p) => !before.has(p));
  expect(fresh).toHaveLength(1);
  return { session, pid: fresh[0]! };
}

/** Sends a WebSocket handshake; resolves with the HTTP status (101 when the upgrade succeeded). */
function handshake(wsUrl: string): Promise<number> {
  const u = new URL(wsUrl.replace(/^ws/, "http"));
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: u.hostname,
      port: u.port,
      path: `${u.pathname}${u.search}`,
      headers: { Connection: "Upgrade", Upgrade: "websocket", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13", Origin: "http://evil.example" },
    });
    req.on("upgrade", (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on("response", (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

function tokenOf(connectUrl: string): string {
  return /\/v1\/connect\/[^/]+\/([^/]+)\//.exec(connectUrl)![1]!;
}

describe("platform sessions", () => {
  it("create, get, list, release: the wire shape, the Chrome behind it, and its end", async () => {
    const { session, pid } = await createWithPid(server, {
      browserSettings: { viewport: { width: 1000, height: 700 }, solveCaptchas: false },
      userMetadata: { team: "red", nested: { run: "7" } },
      proxies: false,
    });
    expect(session.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(session.status).toBe("RUNNING");
    expect(session.keepAlive).toBe(false);
    expect(session.proxyBytes).toBe(0);
    expect(session.userMetadata).toEqual({ team: "red", nested: { run: "7" } });
    expect(Date.parse(session.expiresAt) - Date.parse(session.createdAt)).toBe(3600_000);
    for (const k of ["createdAt", "updatedAt", "startedAt", "projectId", "region"]) expect(session[k], k).toBeTruthy();
    const origin = server.url.replace(/^http/, "ws");
    expect(session.connectUrl).toMatch(new RegExp(`^${origin}/v1/connect/${session.id}/[A-Za-z0-9_-]{32,}/devtools/browser/[0-9a-f-]+$`));
    expect(session.connectUrl).not.toContain(KEY);
    expect(pidAlive(pid)).toBe(true);
    // No reaper per session: the server holds its Chrome's pipe itself, so nothing of this file's launches
    // but Chrome's own processes runs.
    expect(chromeProcessesOf(base).filter((p) => p.kind === "reaper")).toEqual([]);

    // The create response alone carries the SDK's seleniumRemoteUrl and signingKey (src/server/platform/wire.ts).
    const { seleniumRemoteUrl, signingKey, ...retrievable } = session;
    expect(seleniumRemoteUrl).toBe(`${server.url}/v1/selenium/${session.id}`);
    expect(signingKey).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect((await api(server, "GET", `/v1/sessions/${session.id}`)).body).toEqual(retrievable);
    const listed = (await api(server, "GET", "/v1/sessions?status=RUNNING")).body as Json[];
    expect(listed.map((s) => s.id)).toContain(session.id);
    expect(((await api(server, "GET", "/v1/sessions?status=COMPLETED")).body as Json[]).map((s) => s.id)).not.toContain(session.id);
    const byMeta = (await api(server, "GET", `/v1/sessions?q=${encodeURIComponent("user_metadata['nested']['run']:'7'")}`)).body as Json[];
    expect(byMeta.map((s) => s.id)).toEqual([session.id]);
    expect((await api(server, "GET", `/v1/sessions?q=${encodeURIComponent("user_metadata['team']:'blue'")}`)).body).toEqual([]);

    // Another key: the session does not exist for it.
    expect((await api(server, "GET", `/v1/sessions/${session.id}`, undefined, OTHER_KEY)).status).toBe(404);
    expect((await api(server, "POST", `/v1/sessions/${session.id}`, { status: "REQUEST_RELEASE" }, OTHER_KEY)).status).toBe(404);
    expect((await api(server, "GET", `/v1/sessions/${session.id}/debug`, undefined, OTHER_KEY)).status).toBe(404);
    expect((await api(server, "GET", "/v1/sessions", undefined, OTHER_KEY)).body).toEqual([]);
    expect(pidAlive(pid)).toBe(true);

    const bad = await api(server, "POST", `/v1/sessions/${session.id}`, { status: "STOP" });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^status:/);

    const released = await release(server, session.id);
    expect(released.status).toBe("COMPLETED");
    expect(released.endedAt).toBeTruthy();
    expect(released.connectUrl).toBeUndefined();
    await waitFor(() => !pidAlive(pid));
    expect((await api(server, "GET", `/v1/sessions/${session.id}`)).body.status).toBe("COMPLETED");
    expect(((await api(server, "GET", "/v1/sessions?status=COMPLETED")).body as Json[]).map((s) => s.id)).toContain(session.id);
    // Releasing again is harmless; the old connectUrl leads nowhere.
    expect((await release(server, session.id)).status).toBe("COMPLETED");
    expect(await handshake(session.connectUrl)).toBe(410);
  });

  it("validates what it uses, names the field, and wants a key", async () => {
    const cases: [unknown, RegExp][] = [
      [{ timeout: 10 }, /^timeout:/],
      [{ keepAlive: "yes" }, /^keepAlive:/],
      [{ browserSettings: { viewport: { width: "wide" } } }, /^browserSettings\.viewport\.width:/],
      [{ userMetadata: "x" }, /^userMetadata:/],
      [[1, 2], /expected object/],
    ];
    for (const [body, message] of cases) {
      const r = await api(server, "POST", "/v1/sessions", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toMatch(message);
    }
    const badStatus = await api(server, "GET", "/v1/sessions?status=DONE");
    expect(badStatus.status).toBe(400);
    expect(badStatus.body.message).toMatch(/^query\.status:/);
    expect((await api(server, "GET", "/v1/sessions?q=team%3Dred")).status).toBe(400);
    expect((await api(server, "GET", "/v1/sessions", undefined, null)).status).toBe(401);
    expect((await api(server, "POST", "/v1/sessions", {}, "not-a-known-key")).status).toBe(401);
    expect((await api(server, "GET", "/v1/sessions/00000000-0000-0000-0000-000000000000")).status).toBe(404);
    expect(chromeBrowsers()).toEqual([]);
  });

  it("answers 429 past maxSessions, counting sessions still starting", async () => {
    const results = await Promise.all([0, 1, 2].map(() => api(server, "POST", "/v1/sessions", {})));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 429]);
    const limited = results.find((r) => r.status === 429)!;
    expect(limited.headers.get("retry-after")).toBeTruthy();
    expect(limited.body.message).toMatch(/at most 2/);
    try {
      expect(chromeBrowsers()).toHaveLength(2);
    } finally {
      for (const r of results.filter((x) => x.status === 201)) await release(server, r.body.id);
    }
    await waitFor(() => chromeBrowsers().length === 0);
    // Room again once released.
    const again = await createSession(server);
    await release(server, again.id);
  });
});

describe("CDP proxy", () => {
  // One session for the proxy's tests (none is about its start or end), released after them.
  let session: Json;
  beforeAll(async () => {
    session = await createSession(server, { browserSettings: { viewport: { width: 1000, height: 700 } } });
  });
  afterAll(async () => {
    if (session) await release(server, session.id);
  });

  it("Playwright connects over ws:// and http://, sees the session's viewport, and drives the page", async () => {
    const browser = await chromium.connectOverCDP(session.connectUrl);
    const page = browser.contexts()[0]!.pages()[0] ?? (await browser.contexts()[0]!.newPage());
    await page.goto(fixtures.url("forms.html"));
    expect(await page.title()).toBe("Forms");
    expect(await page.evaluate(() => [window.innerWidth, window.innerHeight])).toEqual([1000, 700]);
    const tab = await browser.contexts()[0]!.newPage();
    expect(await tab.evaluate(() => [window.innerWidth, window.innerHeight])).toEqual([1000, 700]);
    await tab.close();
    await browser.close(); // a CDP-connected browser only disconnects
    expect((await api(server, "GET", `/v1/sessions/${session.id}`)).body.status).toBe("RUNNING");

    const httpBase = session.connectUrl.replace(/^ws/, "http").replace(/\/devtools\/browser\/.*$/, "");
    const version = (await (await fetch(`${httpBase}/json/version`)).json()) as Json;
    expect(version.webSocketDebuggerUrl).toBe(session.connectUrl);
    const again = await chromium.connectOverCDP(httpBase);
    const urls = again.contexts()[0]!.pages().map((p) => p.url());
    expect(urls).toContain(fixtures.url("forms.html"));
    await again.close();
  });

  it("svc's own Service attaches through the proxy with cdpUrl", async () => {
    const svc = new Service({ verbose: 0, localBrowserLaunchOptions: { cdpUrl: session.connectUrl } });
    try {
      await svc.init();
      await svc.page.goto(fixtures.url("forms.html"));
      expect(await svc.page.evaluate(() => document.title)).toBe("Forms");
    } finally {
      await svc.close();
    }
    // Attached, not launched: closing the Service leaves the session's Chrome to the session.
    expect((await api(server, "GET", `/v1/sessions/${session.id}`)).body.status).toBe("RUNNING");
  });

  it("rejects a wrong token, an unknown session, and paths outside DevTools", async () => {
    const token = tokenOf(session.connectUrl);
    const wrong = session.connectUrl.replace(token, `${token.slice(0, -2)}xx`);
    expect(await handshake(session.connectUrl)).toBe(101);
    expect(await handshake(wrong)).toBe(401);
    expect(await handshake(session.connectUrl.replace(session.id, "00000000-0000-0000-0000-000000000000"))).toBe(404);
    expect(await handshake(`${server.url.replace(/^http/, "ws")}/v1/sessions`)).toBe(404);
    const httpBase = session.connectUrl.replace(/^ws/, "http").replace(/\/devtools\/browser\/.*$/, "");
    expect((await fetch(`${httpBase.replace(token, `${token.slice(0, -2)}xx`)}/json/version`)).status).toBe(401);
    expect((await fetch(`${httpBase}/json/version`)).status).toBe(200);
    expect((await fetch(`${httpBase}/metrics`)).status).toBe(404);
    // The proxy needs no API key, and never asks Chrome with the caller's Host or Origin.
    expect(logs.join("\n")).not.toContain(KEY);
  });

  it("debug: live view URLs of the session and of every page (svc's own page, a token derived from the session's)", async () => {
    const browser = await chromium.connectOverCDP(session.connectUrl);
    // A page of its own: the page found below is this test's.
    await (await browser.contexts()[0]!.newPage()).goto(fixtures.url("forms.html?debug"));
    await browser.close();
    const r = await api(server, "GET", `/v1/sessions/${session.id}/debug`);
    expect(r.status).toBe(200);
    const debug = r.body as Json;
    expect(debug.wsUrl).toBe(session.connectUrl);
    const page = (debug.pages as Json[]).find((p) => p.url === fixtures.url("forms.html?debug"))!;
    expect(page).toBeTruthy();
    expect(page.title).toBe("Forms");
    expect(debug.debuggerUrl).toMatch(new RegExp(`^${server.url}/v1/live/${session.id}/[A-Za-z0-9_-]{43}$`));
    expect(debug.debuggerFullscreenUrl).toBe(debug.debuggerUrl);
    expect(page.debuggerUrl).toBe(`${debug.debuggerUrl}?tab=${page.id}`);
    // The live view's token is not connectUrl's: the page it opens never grants raw CDP.
    const connectToken = new URL(session.connectUrl).pathname.split("/")[4]!;
    expect(debug.debuggerUrl).not.toContain(connectToken);
    const view = await fetch(page.debuggerUrl);
    expect(view.status).toBe(200);
    expect(await view.text()).toContain("data-svc-live");
  });
});

describe("session ends", () => {
  it("an expired session is TIMED_OUT and its Chrome ends", async () => {
    const { session, pid } = await createWithPid(shortServer);
    expect(Date.parse(session.expiresAt) - Date.parse(session.createdAt)).toBe(2000);
    await waitFor(async () => (await api(shortServer, "GET", `/v1/sessions/${session.id}`)).body.status === "TIMED_OUT");
    await waitFor(() => !pidAlive(pid));
    const ended = (await api(shortServer, "GET", `/v1/sessions/${session.id}`)).body as Json;
    expect(ended.endedAt).toBeTruthy();
  });

  it("a Chrome closed by a client ends its session", async () => {
    const { session, pid } = await createWithPid(server);
    const browser = await chromium.connectOverCDP(session.connectUrl);
    const cdp = await browser.newBrowserCDPSession();
    await cdp.send("Browser.close").catch(() => {});
    await waitFor(() => !pidAlive(pid));
    await waitFor(async () => (await api(server, "GET", `/v1/sessions/${session.id}`)).body.status === "COMPLETED");
  });

  it("closing the server ends every session and cuts proxied connections", async () => {
    const own = await start();
    const a = await createSession(own);
    const b = await createSession(own, {}, OTHER_KEY);
    const browser = await chromium.connectOverCDP(a.connectUrl);
    const disconnected = new Promise<void>((r) => browser.on("disconnected", () => r()));
    expect(chromeBrowsers().length).toBeGreaterThanOrEqual(2);
    await own.close();
    await disconnected;
    await own.close(); // idempotent
    await expect(fetch(`${own.url}/healthz`)).rejects.toThrow();
    expect(b.status).toBe("RUNNING");
    await waitFor(() => chromeBrowsers().length === 0);
  });
});
