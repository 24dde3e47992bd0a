/**
 * Issue 9, the CDP side of isolation, on a two-key `svc serve`: key B attacks A's browser and the server's files
 * through everything CDP-shaped (malformed proxy paths, raw commands over its connectUrl, every spelling of a
 * `cdpUrl` to A's Chrome, launch options), while ordinary use keeps working. And a web page cannot open a WebSocket
 * to another Chrome's DevTools port.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { launchBrowser, type LaunchedBrowser } from "../../src/index.js";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { CHROME_OWN_PAGES_BACK, CHROMIUM, makeService, waitFor } from "../support/browser.js";
import { freePort } from "../support/free-port.js";
import { browserProcessesOf, chromeBrowsersOf, markTmpdir } from "../support/process.js";
import { startFixtureServer, type FixtureServer } from "../support/server.js";
import { apiClient, expectNoChrome } from "../support/session-api.js";
import { type CdpReply, rawCdp } from "../support/raw-cdp.js";

const KEY_A = "cdp-key-aaaaaaaaaa";
const KEY_B = "cdp-key-bbbbbbbbbb";
const base = mkdtempSync(join(tmpdir(), "svc-security-cdp-"));
let restoreTmp = (): void => {};
const logs: string[] = [];

let site: FixtureServer;
let server: RunningServer;
/** An operator-allowed remote browser (allowNet names its port: it opted in to one). */
let remote: LaunchedBrowser;
/**
 * A Chrome on a loopback DevTools port the operator did not allow (launched without
 * --remote-allow-origins). The server's own Chromes have no TCP port at all: this one stands for any
 * DevTools endpoint on the machine.
 */
let loop: LaunchedBrowser;
/** An allowed host that answers with key A's Chrome: its /json/version names it, its WebSocket redirects to it. */
let lure: Server;
let lurePort = 0;
/** Key A's platform session; the stand-in's DevTools port and browser WebSocket URL. */
let a: { id: string; connectUrl: string };
let loopPort = 0;
let loopBrowserWs = "";
/** The run folder of key A's Chrome (its DevTools endpoint's socket is there). */
let aRunDir = "";

const { json } = apiClient({ server: () => server, key: KEY_B });
const page = (path: string) => site.url(path, "127.0.0.1");

/** Chrome browser processes launched under `base` (their pids). */
function chromeBrowsers(): number[] {
  return chromeBrowsersOf(base);
}

beforeAll(async () => {
  restoreTmp = markTmpdir(base);
  site = await startFixtureServer();
  remote = await launchBrowser({ executablePath: CHROMIUM, headless: true, port: await freePort() });
  loop = await launchBrowser({ executablePath: CHROMIUM, headless: true, port: await freePort(), ignoreDefaultArgs: ["--remote-allow-origins=*"] });
  loopPort = loop.port!;
  lure = createServer((req, res) => {
    if (req.url === "/json/version") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ webSocketDebuggerUrl: loopBrowserWs }));
    if (req.url === "/hop/json/version") return void res.writeHead(302, { location: `http://127.0.0.1:${loopPort}/json/version` }).end();
    res.writeHead(404).end();
  });
  lure.on("upgrade", (_req, socket) => socket.end(`HTTP/1.1 302 Found\r\nLocation: ${loopBrowserWs}\r\nContent-Length: 0\r\n\r\n`));
  await new Promise<void>((r) => lure.listen(0, "127.0.0.1", r));
  lurePort = (lure.address() as AddressInfo).port;
  server = await startServer({
    port: 0,
    apiKeys: [KEY_A, KEY_B],
    cacheDir: join(base, "cache"),
    // Chrome's own address-bar popups (chrome://omnibox-popup…), which svc's defaults no longer preload, are
    // back (the last --disable-features wins): Chrome's own pages for the filter to refuse.
    launch: { executablePath: CHROMIUM, headless: true, args: [CHROME_OWN_PAGES_BACK] },
    allowNet: [`127.0.0.1:${site.port}`, `127.0.0.1:${lurePort}`, `127.0.0.1:${remote.port}`],
    log: (line) => void logs.push(line),
  });

  // keepAlive: the session outlives the Playwright connection below (without it, it ends once its last client left).
  const created = await json("POST", "/sessions", { keepAlive: true }, { key: KEY_A });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  a = created.body;
  // A's Chrome is the one server Chrome running now: its run folder is taken here, once. Later, other sessions'
  // Chromes end and start beside it. A forked child of a Chrome that has not yet exec'd shares its folder.
  const browsers = browserProcessesOf(base);
  const others = new Set(browsers.filter((p) => p.pid === remote.pid || p.pid === loop.pid).map((p) => p.runDir));
  const servers = new Set(browsers.map((p) => p.runDir).filter((d) => !others.has(d)));
  expect([...servers]).toHaveLength(1);
  aRunDir = [...servers][0]!;
  loopBrowserWs = ((await (await fetch(`http://127.0.0.1:${loopPort}/json/version`)).json()) as { webSocketDebuggerUrl: string }).webSocketDebuggerUrl;
  const browser = await chromium.connectOverCDP(a.connectUrl);
  await browser.contexts()[0]!.pages()[0]!.goto(page("forms.html"));
  await browser.close();
});

afterAll(async () => {
  await server?.close();
  await remote?.close();
  await loop?.close();
  await new Promise<void>((r) => (lure ? lure.close(() => r()) : r()));
  await site?.close();
  await expectNoChrome(base);
  restoreTmp();
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

/** The unix socket of key A's Chrome's DevTools endpoint (the one server Chrome that is not a stand-in). */
function aSocket(): string {
  return join(aRunDir, "devtools.sock");
}

/** Key A's page targets as A's Chrome lists them (id and URL), read through A's own proxied endpoint. */
async function aPages(): Promise<string[]> {
  const proxied = a.connectUrl.replace(/^ws/, "http").replace(/\/devtools\/browser\/.*$/, "");
  const list = (await (await fetch(`${proxied}/json/list`)).json()) as Array<{ id: string; type: string; url: string }>;
  return list
    .filter((t) => t.type === "page")
    .map((t) => `${t.id} ${t.url}`)
    .sort();
}

/** Sends a raw request head; resolves with the status line's code (the socket is closed after). */
function rawUpgrade(target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, "127.0.0.1");
    let text = "";
    socket.on("data", (d) => {
      text += d.toString("latin1");
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (m) {
        socket.destroy();
        resolve(Number(m[1]));
      }
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(0));
    socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`);
  });
}

describe("the proxy's upgrade path", () => {
  it("malformed percent-escapes and request targets are 4xx answers; the server keeps answering", async () => {
    const token = /\/v1\/connect\/[^/]+\/([^/]+)\//.exec(a.connectUrl)![1]!;
    const targets = [
      "/v1/connect/%ff/x/devtools/browser/x",
      "/v1/connect/x/%ff/devtools/browser/x",
      "/v1/connect/%/x/devtools/browser/x",
      "/v1/connect/x/%/devtools/browser/x",
      "/v1/connect/%E0%A4%A/x/devtools/browser/x",
      "/v1/connect/%C0%AF/x/devtools/browser/x",
      "/v1/connect/x/%C0%80/devtools/page/x",
      "/v1/connect/%ED%A0%80/x/devtools/browser/x",
      `/v1/connect/${a.id}/%ff${token}/devtools/browser/x`,
      `/v1/connect/${a.id}/${token}/devtools/page/%E0%A4%A`,
      "//",
      "/v1/connect/a/b/json/version",
    ];
    for (const target of targets) {
      const status = await rawUpgrade(target);
      expect(status, target).toBeGreaterThanOrEqual(400);
      expect(status, target).toBeLessThan(500);
      expect((await fetch(`${server.url}/healthz`)).status, target).toBe(200);
    }
    expect(logs.some((l) => l.includes("malformed percent-escape"))).toBe(true);
    expect(logs.join("\n")).not.toContain(token);
    // The real path still upgrades.
    const ok = await rawCdp(a.connectUrl);
    expect((await ok.send("Browser.getVersion")).result.product).toMatch(/Chrome/);
    ok.close();
  });
});

describe("raw CDP over a tenant's connectUrl", () => {
  let b: { id: string; connectUrl: string };
  let cdp: Awaited<ReturnType<typeof rawCdp>>;
  let sid = "";
  const href = async () => (await cdp.send("Runtime.evaluate", { expression: "location.href" }, sid)).result.result.value as string;
  const refused = (r: CdpReply) => expect(r.error?.message ?? JSON.stringify(r)).toMatch(/refused by svc: /);

  beforeAll(async () => {
    const created = await json("POST", "/sessions", {});
    expect(created.status).toBe(201);
    b = created.body;
    cdp = await rawCdp(b.connectUrl);
    const targets = (await cdp.send("Target.getTargets")).result.targetInfos as Array<{ targetId: string; type: string }>;
    const tab = targets.find((t) => t.type === "page")!;
    sid = (await cdp.send("Target.attachToTarget", { targetId: tab.targetId, flatten: true })).result.sessionId;
    expect((await cdp.send("Page.navigate", { url: page("forms.html") }, sid)).error).toBeUndefined();
    await waitFor(async () => (await href()) === page("forms.html"));
  });
  afterAll(async () => {
    cdp?.close();
    await json("POST", `/sessions/${b.id}`, { status: "REQUEST_RELEASE" });
  });

  it("navigations to anything but a web page are refused with a CDP error, in every spelling, and the page stays", async () => {
    const urls = [
      "file:///etc/passwd",
      "FILE:///etc/passwd",
      "  file:///etc/passwd",
      "fi\tle:///etc/passwd",
      "file://localhost/etc/passwd",
      `file://${base}`,
      "chrome://version",
      "about:version",
      "view-source:" + page("forms.html"),
      "devtools://devtools/bundled/inspector.html",
      "chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/x.html",
      "filesystem:http://example.com/temporary/x",
      "/etc/passwd",
    ];
    for (const url of urls) {
      const r = await cdp.send("Page.navigate", { url }, sid);
      expect(r.error?.code, url).toBe(-32000);
      refused(r);
      expect(r.sessionId).toBe(sid);
    }
    // The browser target too, and new targets.
    refused(await cdp.send("Target.createTarget", { url: "file:///etc/passwd" }));
    refused(await cdp.send("Network.loadNetworkResource", { url: "file:///etc/passwd", options: { disableCache: true, includeCredentials: false } }, sid));
    refused(await cdp.send("Fetch.continueRequest", { requestId: "x", url: "file:///etc/passwd" }, sid));
    const pages = ((await cdp.send("Target.getTargets")).result.targetInfos as Array<{ type: string; url: string }>).filter((t) => t.type === "page");
    expect(pages.map((p) => p.url)).toEqual([page("forms.html")]);
    expect(await href()).toBe(page("forms.html"));
  });

  it("one parser decides: duplicate keys reach Chrome as the filter read them", async () => {
    // Chrome's parser could take the first "method"; it is sent only the one that was checked.
    const first = await cdp.raw(`{"id":9001,"sessionId":"${sid}","method":"Page.navigate","method":"Runtime.evaluate","params":{"url":"file:///etc/passwd","expression":"6*7"}}`, 9001);
    expect(first.result.result.value).toBe(42);
    const second = await cdp.raw(`{"id":9002,"sessionId":"${sid}","method":"Page.navigate","params":{"url":"file:///etc/passwd","url":"${page("iframes.html")}"}}`, 9002);
    expect(second.error).toBeUndefined();
    await waitFor(async () => (await href()) === page("iframes.html"));
    // Not JSON, and binary (CBOR) frames: answered here, the connection stays.
    expect((await cdp.raw("{not json", 0)).error?.code).toBe(-32700);
    expect((await cdp.raw(Buffer.from(`{"id":9003,"method":"Browser.getVersion"}`), 0, true)).error?.message).toMatch(/binary .* refused by svc/);
    expect((await cdp.send("Page.navigate", { url: page("forms.html") }, sid)).error).toBeUndefined();
    await waitFor(async () => (await href()) === page("forms.html"));
  });

  it("file inputs, dropped files and extensions read nothing of the server's disk", async () => {
    await cdp.send("Runtime.evaluate", { expression: "document.body.insertAdjacentHTML('beforeend', '<input type=file id=f>')" }, sid);
    const doc = (await cdp.send("DOM.getDocument", {}, sid)).result.root.nodeId;
    const nodeId = (await cdp.send("DOM.querySelector", { nodeId: doc, selector: "#f" }, sid)).result.nodeId;
    expect(nodeId).toBeGreaterThan(0);
    refused(await cdp.send("DOM.setFileInputFiles", { files: ["/etc/passwd"], nodeId }, sid));
    expect((await cdp.send("Runtime.evaluate", { expression: "document.getElementById('f').files.length" }, sid)).result.result.value).toBe(0);
    refused(await cdp.send("Input.dispatchDragEvent", { type: "drop", x: 5, y: 5, data: { items: [], files: ["/etc/passwd"], dragOperationsMask: 1 } }, sid));
    refused(await cdp.send("Extensions.loadUnpacked", { path: "/etc" }));
    refused(await cdp.send("PWA.launchFilesInApp", { manifestId: "x", files: ["file:///etc/passwd"] }));
    refused(await cdp.send("Browser.getBrowserCommandLine"));
  });

  it("downloads land in the session's own folder whatever behaviour and path are asked: nothing is written elsewhere", async () => {
    const dir = mkdtempSync(join(base, "downloads-"));
    for (const behavior of ["allow", "deny"]) {
      const set = await cdp.send("Browser.setDownloadBehavior", { behavior, downloadPath: dir, eventsEnabled: true });
      expect(set.error).toBeUndefined();
    }
    await cdp.send("Runtime.evaluate", { expression: "const l = document.createElement('a'); l.download = 'x.txt'; l.href = 'data:text/plain,secret'; document.body.append(l); l.click()" }, sid);
    const done = await waitFor(() => cdp.events.find((e) => e.method === "Browser.downloadProgress" && e.params.state !== "inProgress"));
    expect(done.params.state).toBe("completed");
    expect(readdirSync(dir)).toEqual([]);
    const zip = await fetch(`${server.url}/v1/sessions/${b.id}/downloads`, { headers: { "x-bb-api-key": KEY_B } });
    expect(Object.keys(unzipSync(new Uint8Array(await zip.arrayBuffer())))).toEqual(["x.txt"]);
  });

  it("no way around the filter or the egress policy: contexts with a proxy, remote locations, raw CDP for pages, tethering", async () => {
    const contexts = async () => (await cdp.send("Target.getBrowserContexts")).result.browserContextIds as string[];
    const before = await contexts();
    refused(await cdp.send("Target.createBrowserContext", { proxyServer: "http://127.0.0.1:1" }));
    refused(await cdp.send("Target.createBrowserContext", { proxyBypassList: "<-loopback>" }));
    refused(await cdp.send("Target.createBrowserContext", { originsWithUniversalNetworkAccess: ["file://"] }));
    expect(await contexts()).toEqual(before);
    const plain = await cdp.send("Target.createBrowserContext");
    expect(plain.error).toBeUndefined();
    await cdp.send("Target.disposeBrowserContext", { browserContextId: plain.result.browserContextId });
    refused(await cdp.send("Target.setRemoteLocations", { locations: [{ host: "127.0.0.1", port: loopPort }] }));
    const tabs = (await cdp.send("Target.getTargets")).result.targetInfos as Array<{ targetId: string; type: string }>;
    refused(await cdp.send("Target.exposeDevToolsProtocol", { targetId: tabs.find((t) => t.type === "page")!.targetId }));
    refused(await cdp.send("Target.sendMessageToTarget", { message: JSON.stringify({ id: 1, method: "Page.navigate", params: { url: "file:///etc/passwd" } }), sessionId: sid }));
    refused(await cdp.send("Tethering.bind", { port: 9 }));
    expect(await href()).toBe(page("forms.html"));
  });

  it("Chrome's own pages (chrome://, devtools://) are not driven: their sessions are refused, and so is a page socket to them", async () => {
    const targets = (await cdp.send("Target.getTargets")).result.targetInfos as Array<{ targetId: string; type: string; url: string }>;
    const internal = targets.find((t) => t.type === "browser_ui" || /^(chrome|devtools):/.test(t.url));
    expect(internal, JSON.stringify(targets)).toBeDefined();
    const attached = await cdp.send("Target.attachToTarget", { targetId: internal!.targetId, flatten: true });
    refused(await cdp.send("Runtime.evaluate", { expression: "location.href" }, attached.result.sessionId));
    const pageSocket = b.connectUrl.replace(/\/devtools\/browser\/.*$/, `/devtools/page/${internal!.targetId}`);
    expect(await rawUpgrade(new URL(pageSocket).pathname)).toBe(403);
    const tab = targets.find((t) => t.type === "page")!;
    expect(await rawUpgrade(new URL(b.connectUrl.replace(/\/devtools\/browser\/.*$/, `/devtools/page/${tab.targetId}`)).pathname)).toBe(101);
  });

  it("ordinary use works: Playwright drives the page and opens contexts", async () => {
    const browser = await chromium.connectOverCDP(b.connectUrl);
    try {
      const p = browser.contexts()[0]!.pages().find((x) => x.url() === page("forms.html"))!;
      expect(await p.title()).toBe("Forms");
      await p.goto(page("iframes.html"));
      expect(p.url()).toBe(page("iframes.html"));
      const context = await browser.newContext();
      const fresh = await context.newPage();
      await fresh.goto(page("forms.html"));
      expect(await fresh.title()).toBe("Forms");
      await context.close();
    } finally {
      await browser.close();
    }
    expect(logs.some((l) => /refused Page\.navigate/.test(l))).toBe(true);
  });
});

describe("client cdpUrl and launch options", () => {
  const start = (browser: Record<string, unknown>) => json("POST", "/sessions/start", { modelName: "openai/gpt-test", browser: { type: "local", ...browser } }, { headers: { "x-model-api-key": "sk-test-1234567890" } });

  it("every spelling of a loopback DevTools endpoint is refused with 400 naming browser.cdpUrl, and A's page is untouched", async () => {
    const path = new URL(loopBrowserWs).pathname;
    const before = await aPages();
    expect(before.some((p) => p.endsWith(page("forms.html")))).toBe(true);
    expect(existsSync(aSocket()), aSocket()).toBe(true);
    const spellings = [
      `ws://127.0.0.1:${loopPort}${path}`,
      `ws://[::ffff:127.0.0.1]:${loopPort}${path}`,
      `ws://[::ffff:7f00:1]:${loopPort}${path}`,
      `ws://[::ffff:0.0.0.0]:${loopPort}${path}`,
      `ws://[::ffff:0:0]:${loopPort}${path}`,
      `http://[::ffff:7f00:1]:${loopPort}/json/version`,
      `http://[::ffff:7f00:1]:${loopPort}`,
      `ws://127.1:${loopPort}${path}`,
      `ws://2130706433:${loopPort}${path}`,
      `ws://0x7f.0.0.1:${loopPort}${path}`,
      `ws://0177.0.0.1:${loopPort}${path}`,
      `ws://localhost:${loopPort}${path}`,
      `ws://0.0.0.0:${loopPort}${path}`,
      `ws://[::]:${loopPort}${path}`,
      `ws://[::1]:${loopPort}${path}`,
      `http://localhost:${loopPort}`,
      // Allowed hosts that lead to A's Chrome: a /json/version naming it, a redirect to it (HTTP and WebSocket).
      `http://127.0.0.1:${lurePort}`,
      `http://127.0.0.1:${lurePort}/hop`,
      `ws://127.0.0.1:${lurePort}/devtools/browser/x`,
      // The server's own connectUrl of A's session is loopback too.
      a.connectUrl,
      // A's Chrome itself: its endpoint's unix socket (the server's user could open it).
      `ws+unix://${aSocket()}:/devtools/browser/x`,
      `ws+unix://${aSocket()}:/json/version`,
    ];
    for (const cdpUrl of spellings) {
      const r = await start({ cdpUrl });
      expect(r.status, `${cdpUrl} ${JSON.stringify(r.body)}`).toBe(400);
      expect(r.body.message, cdpUrl).toMatch(/^browser\.cdpUrl: /);
    }
    expect(await aPages()).toEqual(before);
    expect((await json("GET", "/sessions?status=RUNNING")).body).toEqual([]);
  });

  it("a browser the operator allowed is attached over the pinned connection", async () => {
    const r = await start({ cdpUrl: `http://127.0.0.1:${remote.port}` });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id = r.body.data.sessionId as string;
    const nav = await json("POST", `/sessions/${id}/navigate`, { url: page("forms.html") });
    expect(nav.status, JSON.stringify(nav.body)).toBe(200);
    const list = (await (await fetch(`http://127.0.0.1:${remote.port}/json/list`)).json()) as Array<{ url: string }>;
    expect(list.map((t) => t.url)).toContain(page("forms.html"));
    expect((await json("POST", `/sessions/${id}/end`)).status).toBe(200);
  });

  it("launch options that would leave the egress policy or the headless sandbox are refused", async () => {
    const before = chromeBrowsers().length;
    const proxy = await start({ launchOptions: { proxy: { server: `http://127.0.0.1:${loopPort}` } } });
    expect(proxy).toMatchObject({ status: 400, body: { message: expect.stringMatching(/^browser\.launchOptions\.proxy: /) } });
    const headed = await start({ launchOptions: { headless: false } });
    expect(headed).toMatchObject({ status: 400, body: { message: expect.stringMatching(/^browser\.launchOptions\.headless: /) } });
    expect(chromeBrowsers().length).toBe(before);
  });
});

describe("no DevTools port a page can reach", () => {
  it("a page's WebSocket to a server Chrome's DevTools endpoint is refused, while a client without Origin connects", async () => {
    // The attacker's page runs in a plain library session, where loopback is reachable; the target is a
    // Chrome with an opted-in DevTools port, launched without --remote-allow-origins (as svc serve's are).
    const svc = makeService({ localBrowserLaunchOptions: { executablePath: CHROMIUM, headless: true } });
    try {
      await svc.init();
      await svc.page.goto(page("forms.html"));
      // A string, so the page's own WebSocket is used (not the one this file imports).
      const outcome = await svc.page.evaluate(
        `new Promise((resolve) => { const ws = new WebSocket(${JSON.stringify(loopBrowserWs)}); ws.onopen = () => { ws.close(); resolve("open"); }; ws.onerror = () => resolve("refused"); })`,
      );
      expect(outcome).toBe("refused");
      // The endpoint itself is up: svc's own clients send no Origin.
      const direct = new WebSocket(loopBrowserWs);
      await new Promise<void>((resolve, reject) => direct.once("open", () => resolve()).once("error", reject));
      direct.close();
    } finally {
      await svc.close();
    }
  });
});
