/**
 * Issue 9, "a tenant's browser reaches only the public web": a two-key `svc serve` allowing exactly the fixture
 * server, and a loopback "victim" (HTTP, WebSocket, WebRTC UDP). Key B attacks with every loopback spelling,
 * redirects, every request kind, a port scan and non-web schemes; the victim sees no connection, while allowed
 * browsing works. The egress proxy is also tested alone.
 */
import { createSocket, type Socket as UdpSocket } from "node:dgram";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { connect, createServer as createNetServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolationArgs, startEgressProxy, type EgressProxy } from "../../src/server/isolation/egress-proxy.js";
import { resolveServerOptions } from "../../src/server/config.js";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { AddressPolicy } from "../../src/util/address-policy.js";
import { CHROMIUM, HEADLESS_SHELL } from "../support/browser.js";
import { startFixtureServer, type FixtureServer } from "../support/server.js";
import { apiClient, expectNoChrome } from "../support/session-api.js";
import { browserProcessesOf, chromeProcessesOf, markTmpdir } from "../support/process.js";

const KEY_A = "egress-key-aaaaaaaa";
const KEY_B = "egress-key-bbbbbbbb";
const base = mkdtempSync(join(tmpdir(), "svc-security-egress-"));
let restoreTmp = (): void => {};

/** Every TCP connection, HTTP request, WebSocket upgrade and UDP packet the victim ever saw. */
const seen: string[] = [];
let victims: Server[] = [];
let udp: UdpSocket;
let victimPort: number;
let udpPort: number;
let site: FixtureServer;
let server: RunningServer;
const logs: string[] = [];

async function listen(host: string, port: number): Promise<Server> {
  const s = createServer((req, res) => {
    seen.push(`${host} ${req.method} ${req.url}`);
    res.writeHead(200, { "content-type": "text/plain", "access-control-allow-origin": "*" }).end("victim secret");
  });
  s.on("connection", () => seen.push(`${host} connection`));
  s.on("upgrade", (req, socket) => {
    seen.push(`${host} upgrade ${req.url}`);
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => s.once("error", reject).listen(port, host, resolve));
  return s;
}

beforeAll(async () => {
  restoreTmp = markTmpdir(base);
  site = await startFixtureServer();
  const v4 = await listen("127.0.0.1", 0);
  victimPort = (v4.address() as AddressInfo).port;
  victims = [v4, await listen("::1", victimPort)];
  udp = createSocket("udp4").on("message", (_m, from) => seen.push(`udp from ${from.address}`));
  await new Promise<void>((resolve) => udp.bind(0, "127.0.0.1", resolve));
  udpPort = udp.address().port;
  // warmBrowsers: the first sessions come from the pool, which must launch with the same flags.
  server = await startServer({
    port: 0,
    apiKeys: [KEY_A, KEY_B],
    cacheDir: join(base, "cache"),
    warmBrowsers: 1,
    launch: { executablePath: CHROMIUM, headless: true },
    allowNet: [`localhost:${site.port}`, `127.0.0.1:${site.port}`],
    log: (line) => void logs.push(line),
  });
});

afterAll(async () => {
  await server?.close();
  await Promise.all([site?.close(), ...victims.map((v) => new Promise((r) => v.close(r)))]);
  udp?.close();
  await expectNoChrome(base);
  restoreTmp();
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

const { json } = apiClient({ server: () => server, key: KEY_B });
const victim = (host: string, path = "/") => `http://${host}:${victimPort}${path}`;

async function startSession(key: string, extra: Record<string, unknown> = {}): Promise<{ status: number; body: any }> {
  return json("POST", "/sessions/start", { modelName: "openai/gpt-test", ...extra }, { key, headers: { "x-model-api-key": "sk-unused-in-this-file" } });
}

async function navigate(id: string, url: string) {
  return json("POST", `/sessions/${id}/navigate`, { url });
}

/** Refused: the API said no, or the page B got is the egress proxy's 403. */
function expectRefused(r: { status: number; body: any }, what: string): void {
  if (r.status === 200) expect(r.body.data.result?.status, `${what}: ${JSON.stringify(r.body)}`).toBe(403);
  else expect(r.status, `${what}: ${JSON.stringify(r.body)}`).toBeGreaterThanOrEqual(400);
}

/** The UDP candidates a page's WebRTC gathers with the victim's UDP socket as its STUN server. */
function webrtcCandidates(page: Page): Promise<string[]> {
  return page.evaluate(async (port) => {
    const pc = new RTCPeerConnection({ iceServers: [{ urls: `stun:127.0.0.1:${port}` }] });
    pc.createDataChannel("x");
    const found: string[] = [];
    const done = new Promise((r) => (pc.onicegatheringstatechange = () => pc.iceGatheringState === "complete" && r(null)));
    pc.onicecandidate = (e) => void (e.candidate && found.push(e.candidate.candidate));
    await pc.setLocalDescription(await pc.createOffer());
    await Promise.race([done, new Promise((r) => setTimeout(r, 5000))]);
    pc.close();
    return found.filter((c) => / udp /.test(c));
  }, udpPort);
}

/** How a page's WebTransport (QUIC over UDP, unless a proxy stops it) to the victim's UDP port ends. */
function webTransportOutcome(page: Page): Promise<string> {
  return page.evaluate(async (port) => {
    const transport = new WebTransport(`https://127.0.0.1:${port}/`);
    return transport.ready.then(() => "ready", (e: Error) => `failed: ${e.message}`);
  }, udpPort);
}

/** DevTools ports of the Chromes of this file (from their command lines), whoever owns them. */
function devtoolsPorts(): number[] {
  const ports = new Set<number>();
  for (const { args } of chromeProcessesOf(base)) {
    const m = /^--remote-debugging-port=(\d+)$/.exec(args.find((a) => a.startsWith("--remote-debugging-port=")) ?? "");
    if (m && Number(m[1]) > 0) ports.add(Number(m[1]));
  }
  return [...ports];
}

describe("an isolated tenant's browser reaches only the public web (and the allowlist)", () => {
  let sessionId: string;
  let browser: Browser;
  let page: Page;
  let aSession: string;

  beforeAll(async () => {
    const a = await json("POST", "/sessions", {}, { key: KEY_A });
    expect(a.status, JSON.stringify(a.body)).toBeLessThan(300);
    aSession = a.body.id;
    const b = await startSession(KEY_B);
    expect(b.status, JSON.stringify(b.body)).toBe(200);
    sessionId = b.body.data.sessionId;
    browser = await chromium.connectOverCDP(b.body.data.cdpUrl);
    page = browser.contexts()[0]!.pages()[0]!;
  });

  afterAll(async () => {
    await browser?.close();
    await json("POST", `/sessions/${sessionId}/end`, {});
    await json("POST", `/sessions/${aSession}`, { status: "REQUEST_RELEASE" }, { key: KEY_A });
  });

  it("every Chrome of the server, warm pool included, runs behind the egress proxy", () => {
    const browsers = browserProcessesOf(base).map((p) => p.args);
    expect(browsers.length).toBeGreaterThanOrEqual(2);
    for (const argv of browsers) {
      expect(argv).toEqual(expect.arrayContaining([expect.stringMatching(/^--proxy-server=http:\/\/127\.0\.0\.1:\d+$/), "--proxy-bypass-list=<-loopback>", "--disable-quic", "--webrtc-ip-handling-policy=disable_non_proxied_udp", "--force-webrtc-ip-handling-policy=disable_non_proxied_udp"]));
    }
  });

  it("allowed browsing works: the fixture page loads on both origins and its same-origin fetch answers", async () => {
    const r = await navigate(sessionId, site.url("forms.html"));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.result.status).toBe(200);
    expect(await page.title()).toBe("Forms");
    expect(await page.evaluate(async () => (await fetch("/forms.html")).status)).toBe(200);
    expect((await navigate(sessionId, site.url("forms.html", "127.0.0.1"))).body.data.result.status).toBe(200);
  });

  it("navigation to the victim is refused in every spelling of loopback, and through a redirect", async () => {
    const hosts = ["127.0.0.1", "localhost", "127.1", "2130706433", "0x7f000001", "017700000001", "[::1]", "[::ffff:127.0.0.1]", "0.0.0.0", "[::]"];
    for (const host of hosts) expectRefused(await navigate(sessionId, victim(host)), host);
    const redirect = site.url(`/redirect?to=${encodeURIComponent(victim("127.0.0.1", "/from-redirect"))}`);
    expectRefused(await navigate(sessionId, redirect), "redirect");
    const r = await navigate(sessionId, victim("127.0.0.1"));
    expect(await page.evaluate(() => document.body.innerText)).toMatch(/refused by svc: 127\.0\.0\.1 is a loopback/);
    expect(r.body.data.result.status).toBe(403);
    expect(seen).toEqual([]);
  });

  it("sub-resources, fetch/XHR, WebSocket, iframe, worker and beacon of an allowed page never reach the victim", async () => {
    await navigate(sessionId, site.url("forms.html"));
    /** Each kind of request a page makes, to `http` (and `ws` for the WebSocket): "ok", "error" or "timeout". */
    const attack = async (http: string, ws: string) =>
      page.evaluate(
        async ({ http, ws }) => {
          const settle = (p: Promise<unknown>) => Promise.race([p.then(() => "ok", () => "error"), new Promise((r) => setTimeout(() => r("timeout"), 10_000))]);
          const element = (tag: string, attrs: Record<string, string>) =>
            settle(
              new Promise((resolve, reject) => {
                const el = Object.assign(document.createElement(tag), attrs) as HTMLElement;
                el.addEventListener("load", resolve);
                el.addEventListener("error", reject);
                document.body.append(el);
              }),
            );
          const ok = (r: Response) => (r.ok ? r.text() : Promise.reject(new Error(String(r.status))));
          const workerCode = `fetch(${JSON.stringify(http)}).then((r) => postMessage(r.ok ? "ok" : "error"), () => postMessage("error"))`;
          const worker = new Worker(URL.createObjectURL(new Blob([workerCode], { type: "text/javascript" })));
          const workerDone = new Promise((resolve, reject) => (worker.onmessage = (e) => (e.data === "ok" ? resolve(e.data) : reject(new Error(e.data)))));
          const xhr = new Promise((resolve, reject) => {
            const x = new XMLHttpRequest();
            x.open("GET", http);
            x.onload = () => (x.status === 200 ? resolve(x.status) : reject(new Error(String(x.status))));
            x.onerror = reject;
            x.send();
          });
          navigator.sendBeacon(http, "x");
          return {
            img: await element("img", { src: http }),
            script: await element("script", { src: http }),
            iframe: await element("iframe", { src: http }),
            fetch: await settle(fetch(http).then(ok)),
            xhr: await settle(xhr),
            websocket: await settle(new Promise((resolve, reject) => Object.assign(new WebSocket(ws), { onopen: resolve, onerror: reject }))),
            worker: await settle(workerDone),
          };
        },
        { http, ws },
      );
    // The victim answers every origin (CORS *): without the proxy, fetch, XHR and the worker would read it.
    expect(await attack(victim("127.0.0.1", "/attack"), `ws://127.0.0.1:${victimPort}/ws`)).toMatchObject({ fetch: "error", xhr: "error", websocket: "error", worker: "error" });
    expect(await attack(victim("localhost", "/attack"), `ws://localhost:${victimPort}/ws`)).toMatchObject({ fetch: "error", xhr: "error", websocket: "error", worker: "error" });
    // The same code aimed at the page's own (allowed) origin works: the refusals above are the proxy's.
    expect(await attack(site.url("forms.html"), `ws://localhost:${site.port}/ws`)).toMatchObject({ iframe: "ok", fetch: "ok", xhr: "ok", worker: "ok" });
    expect(seen).toEqual([]);
  });

  it("a page scanning loopback ports (the victim, svc, a closed one) learns nothing; no Chrome has a DevTools port to scan", async () => {
    const ports = devtoolsPorts();
    expect(ports).toEqual([]); // key A's Chrome and B's own run on their pipe only
    const closed = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const targets = [victimPort, server.port, closed, ...ports];
    const outcomes = await page.evaluate(async (list) => {
      const probe = async (url: string, mode: RequestMode) => fetch(url, { mode }).then(async (r) => `${r.type} ${r.status} ${mode === "cors" ? await r.text() : ""}`, () => "error");
      const out: string[] = [];
      for (const p of list) {
        const ws = await new Promise((r) => Object.assign(new WebSocket(`ws://127.0.0.1:${p}/devtools/browser`), { onopen: () => r("open"), onerror: () => r("error") }));
        out.push([await probe(`http://127.0.0.1:${p}/json/version`, "no-cors"), await probe(`http://localhost:${p}/json/list`, "cors"), ws].join(" | "));
      }
      return out;
    }, targets);
    // An open port, a DevTools port and a closed port all look the same: the proxy's refusal.
    expect(new Set(outcomes).size, outcomes.join("\n")).toBe(1);
    expect(outcomes[0]).not.toMatch(/webSocketDebuggerUrl|victim secret/);
    expect(seen).toEqual([]);
  });

  it("WebRTC sends no UDP to loopback (no STUN, no candidates)", async () => {
    expect(await webrtcCandidates(page)).toEqual([]);
    expect(seen).toEqual([]);
  });

  it("WebTransport (QUIC) sends no UDP to loopback: its handshake fails before a packet leaves", async () => {
    await page.goto(site.url("forms.html")); // a secure context (loopback), where WebTransport exists
    expect(await webTransportOutcome(page)).toMatch(/^failed: /);
    expect(seen).toEqual([]);
  });

  it("file:, chrome:, view-source:, devtools: and about: pages other than blank are a 400 naming url", async () => {
    for (const url of ["file:///etc/passwd", "chrome://version", `view-source:${site.url("forms.html")}`, "devtools://devtools/bundled/inspector.html", "about:version", "chrome-untrusted://terminal/"]) {
      const r = await navigate(sessionId, url);
      expect(r.status, url).toBe(400);
      expect(r.body.message, url).toMatch(/^url: /);
    }
    expect((await navigate(sessionId, "about:blank")).status).toBe(200);
    expect((await navigate(sessionId, "data:text/html,<p>inline</p>")).status).toBe(200);
  });
});

describe("the same confinement on Chromium's headless shell (an operator's CHROME_PATH may name it)", () => {
  // The shell has no Chrome layer: it ignores Chrome's own switches, --webrtc-ip-handling-policy among them.
  let shellServer: RunningServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    shellServer = await startServer({
      port: 0,
      apiKeys: [KEY_A, KEY_B],
      cacheDir: join(base, "cache-shell"),
      launch: { executablePath: HEADLESS_SHELL, headless: true },
      allowNet: [`127.0.0.1:${site.port}`],
      log: (line) => void logs.push(line),
    });
    const b = await json("POST", "/sessions", {}, { srv: shellServer });
    expect(b.status, JSON.stringify(b.body)).toBeLessThan(300);
    browser = await chromium.connectOverCDP(b.body.connectUrl);
    page = browser.contexts()[0]!.pages()[0]!;
    await page.goto(site.url("forms.html"));
    // The shell calls itself HeadlessChrome; Chrome in headless mode says Chrome (its user agent says Headless in both).
    const cdp = await browser.newBrowserCDPSession();
    expect((await cdp.send("Browser.getVersion")).product).toMatch(/^HeadlessChrome\//);
  });

  afterAll(async () => {
    await browser?.close();
    await shellServer?.close();
  });

  it("WebRTC and WebTransport send no UDP to loopback, and a fetch of the victim is refused", async () => {
    expect(await webrtcCandidates(page)).toEqual([]);
    expect(await webTransportOutcome(page)).toMatch(/^failed: /);
    const fetched = await page.evaluate((url) => fetch(url).then((r) => `${r.status}`, (e: Error) => `failed: ${e.message}`), victim("127.0.0.1"));
    expect(fetched).toMatch(/^failed: /);
    expect(seen).toEqual([]);
  });
});

describe("the egress proxy", () => {
  let proxy: EgressProxy;
  const proxyLog: string[] = [];

  beforeAll(async () => {
    proxy = await startEgressProxy(new AddressPolicy([`127.0.0.1:${site.port}`]), (l) => proxyLog.push(l));
  });
  afterAll(() => proxy?.close());

  /** Sends `head` to the proxy (then `after` once it answered 200 to a CONNECT); returns all it read. */
  function exchange(head: string, after?: string): Promise<string> {
    return exchangeWith(proxy.port, head, after);
  }
  function exchangeWith(port: number, head: string, after?: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", () => socket.write(head));
      let text = "";
      socket.on("data", (d) => {
        text += d.toString();
        if (after && text.startsWith("HTTP/1.1 200") && text.includes("\r\n\r\n") && !text.includes("HTTP/1.1", 10)) {
          socket.write(after);
          after = undefined;
        }
      });
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
      socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer to ${head.split("\r\n")[0]}`)));
    });
  }
  const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${site.port}\r\nConnection: close\r\n\r\n`;

  it("CONNECT to a refused address: 403 with the reason, and no connection made", async () => {
    for (const target of [`127.0.0.1:${victimPort}`, `localhost:${victimPort}`, `[::1]:${victimPort}`, `[::ffff:7f00:1]:${victimPort}`, `169.254.169.254:80`, `10.0.0.1:80`]) {
      const answer = await exchange(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
      expect(answer, target).toMatch(/^HTTP\/1\.1 403 [^\r]*\r\n[\s\S]*\r\n\r\nrefused by svc: .*(loopback, private or link-local)/);
    }
    expect(proxyLog.some((l) => l.startsWith(`egress refused 127.0.0.1:${victimPort}: 127.0.0.1 is a loopback`))).toBe(true);
    expect(seen).toEqual([]);
  });

  it("CONNECT to an allowed address tunnels; plain HTTP is forwarded, or refused the same way", async () => {
    const tunnelled = await exchange(`CONNECT 127.0.0.1:${site.port} HTTP/1.1\r\nHost: 127.0.0.1:${site.port}\r\n\r\n`, get("/forms.html"));
    expect(tunnelled).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK[\s\S]*<title>Forms<\/title>/);
    expect(await exchange(get(`http://127.0.0.1:${site.port}/forms.html`))).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*<title>Forms<\/title>/);
    expect(await exchange(get(`http://127.0.0.1:${victimPort}/`))).toMatch(/^HTTP\/1\.1 403 [\s\S]*refused by svc/);
    expect(await exchange(`GET / HTTP/1.1\r\nHost: x\r\n\r\n`)).toMatch(/^HTTP\/1\.1 400 /); // not a proxy request
    expect(seen).toEqual([]);
  });

  /**
   * An upstream that keeps a connection for `windowMs` after each answer, announcing it or not, and resets one
   * used after that, as a server or a load balancer that has dropped it does.
   */
  async function forgetfulUpstream(windowMs: number, announce: boolean): Promise<{ port: number; connections: number; resets: number; close(): Promise<void> }> {
    const state = { port: 0, connections: 0, resets: 0, close: () => Promise.resolve() };
    const upstream = createNetServer((socket) => {
      state.connections++;
      let answeredAt = 0;
      let head = "";
      socket.on("data", (d) => {
        head += d.toString();
        if (!head.includes("\r\n\r\n")) return;
        head = "";
        if (answeredAt && Date.now() - answeredAt >= windowMs) {
          state.resets++;
          socket.resetAndDestroy();
          return;
        }
        const hint = announce ? `Keep-Alive: timeout=${windowMs / 1000}\r\n` : "";
        socket.write(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: keep-alive\r\n${hint}\r\nok`);
        answeredAt = Date.now();
      });
      socket.on("error", () => {});
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    state.port = (upstream.address() as AddressInfo).port;
    state.close = () => new Promise<void>((resolve) => upstream.close(() => resolve()));
    return state;
  }

  it.each([
    { announce: true, windowMs: 2000 },
    { announce: false, windowMs: 5000 },
  ])("plain HTTP after an upstream's keep-alive window (announced: $announce) goes on a new connection, not one the upstream reset (595)", async ({ announce, windowMs }) => {
    const upstream = await forgetfulUpstream(windowMs, announce);
    const own = await startEgressProxy(new AddressPolicy([`127.0.0.1:${upstream.port}`]), () => {});
    try {
      const request = () => exchangeWith(own.port, `GET http://127.0.0.1:${upstream.port}/ HTTP/1.1\r\nHost: 127.0.0.1:${upstream.port}\r\nConnection: close\r\n\r\n`);
      expect(await request()).toMatch(/^HTTP\/1\.1 200 [\s\S]*\r\n\r\nok$/);
      // The subject is the upstream's clock: its window has passed once this resolves.
      await new Promise((resolve) => setTimeout(resolve, windowMs));
      expect(await request()).toMatch(/^HTTP\/1\.1 200 [\s\S]*\r\n\r\nok$/);
      expect({ connections: upstream.connections, resets: upstream.resets }).toEqual({ connections: 2, resets: 0 });
    } finally {
      await own.close();
      await upstream.close();
    }
  });

  it("isolationArgs: the proxy flags come last; switches that would bypass them are dropped; nothing when not isolated", () => {
    const isolatedConfig = resolveServerOptions({ apiKeys: [KEY_A, KEY_B], cacheDir: base });
    const args = isolationArgs(isolatedConfig, proxy, ["--lang=en", "--no-proxy-server", "-proxy-pac-url=http://x/p.pac", "--load-extension=/tmp/x", "--", "--proxy-server=direct://"]);
    expect(args).toEqual([
      "--lang=en",
      `--proxy-server=http://127.0.0.1:${proxy.port}`,
      "--proxy-bypass-list=<-loopback>",
      "--disable-quic",
      "--webrtc-ip-handling-policy=disable_non_proxied_udp",
      "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    ]);
    expect(() => isolationArgs(isolatedConfig, undefined, [])).toThrow(/egress proxy/);
    expect(isolationArgs(resolveServerOptions({ apiKeys: [KEY_A], cacheDir: base }), undefined, ["--no-proxy-server"])).toEqual(["--no-proxy-server"]);
  });
});
