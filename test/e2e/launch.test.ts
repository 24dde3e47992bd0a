/**
 * Every `localBrowserLaunchOptions` field (docs/wire-formats.md "Construction options"), each checked where it shows: Chrome's command
 * line (/proc/<pid>/cmdline), what the page sees, the DevTools endpoint, a proxy that demands credentials,
 * a self-signed HTTPS server.
 */
import { pidAlive, processesMentioning } from "../support/process.js";
import { rawCdp } from "../support/raw-cdp.js";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createServer as createHttpServer, request as httpRequest, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFixtureServer, type FixtureServer } from "../support/server.js";
import { CHROMIUM, action, cmdlineOf, launchedOf, makeService, waitFor } from "../support/browser.js";
import { DEFAULT_ARGS } from "../../src/browser/launch.js";
import type { LocalBrowserLaunchOptions } from "../../src/browser/types.js";
import type { Service } from "../../src/service.js";
import { ServiceBrowserNotFoundError, ServiceInitError, ServiceNavigationError } from "../../src/errors.js";

// The Debian /usr/bin/chromium wrapper adds flags of its own (--no-default-browser-check, maybe
// --disable-dev-shm-usage); command-line checks use the real binary so only svc's flags are there.
const REAL_BINARY = ["/usr/lib/chromium/chromium"].find(existsSync) ?? CHROMIUM;

let server: FixtureServer;
const tmp = mkdtempSync(join(tmpdir(), "svc-launch-test-"));
beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(async () => {
  await server?.close();
  if (https) {
    https.closeAllConnections();
    await new Promise((r) => https!.close(r));
  }
  rmSync(tmp, { recursive: true, force: true });
});

/** A self-signed HTTPS server for localhost, started on first use. */
let https: Server | undefined;
let httpsBase: Promise<string> | undefined;
function httpsUrl(): Promise<string> {
  httpsBase ??= (async () => {
    const key = join(tmp, "key.pem");
    const cert = join(tmp, "cert.pem");
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost"], { stdio: "ignore" });
    https = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end('<!doctype html><title>Self-signed</title><button id="b" onclick="this.textContent=\'clicked\'">Press</button>');
    });
    return `https://localhost:${await listen(https)}/`;
  })();
  return httpsBase;
}

/** Inits a Service with these launch options, runs `body`, always closes (force). */
async function withBrowser(launch: LocalBrowserLaunchOptions, body: (svc: Service) => Promise<void>, extra: { keepAlive?: boolean } = {}): Promise<void> {
  const svc = makeService({ ...extra, localBrowserLaunchOptions: launch });
  await svc.init();
  try {
    await body(svc);
  } finally {
    await svc.close({ force: true });
  }
}

async function freePort(): Promise<number> {
  const srv = createNetServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

function listen(srv: Server): Promise<number> {
  return new Promise((resolve) => srv.listen(0, "127.0.0.1", () => resolve((srv.address() as AddressInfo).port)));
}

/**
 * A Chrome launched once for the describe block's tests (options that only show at launch are read off it);
 * closed (force) after them unless a test closed it.
 */
function useBrowser(launch: LocalBrowserLaunchOptions | (() => LocalBrowserLaunchOptions), env: NodeJS.ProcessEnv = {}): { readonly svc: Service } {
  let svc: Service | undefined;
  beforeAll(async () => {
    // Chrome reads its environment at launch: set for the launch only.
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
    Object.assign(process.env, env);
    try {
      svc = makeService({ localBrowserLaunchOptions: typeof launch === "function" ? launch() : launch });
      await svc.init();
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
  afterAll(async () => {
    await svc?.close({ force: true });
  });
  return {
    get svc(): Service {
      if (!svc) throw new Error("useBrowser: not launched");
      return svc;
    },
  };
}

/** svc's default args found on a Chrome's command line. */
async function defaultArgsOf(svc: Service): Promise<string[]> {
  const cmd = await cmdlineOf(launchedOf(svc).pid);
  return DEFAULT_ARGS.filter((a) => cmd.includes(a));
}

describe("no launch options (every default at once)", () => {
  // headless: undefined overrides the test helper's headless: true, so this is svc's own default.
  const home = mkdtempSync(join(tmp, "home-"));
  // A CA bundle in the environment, as distributions and companies set one: Chrome keeps it, the reaper goes without.
  const b = useBrowser({ headless: undefined }, { HOME: home, NODE_EXTRA_CA_CERTS: "/etc/ssl/certs/ca-certificates.crt" });

  it("headless is the default", async () => {
    expect(await cmdlineOf(launchedOf(b.svc).pid)).toContain("--headless=new");
    expect(await b.svc.page.evaluate(() => navigator.userAgent)).toContain("HeadlessChrome");
  });

  it("ignoreDefaultArgs unset: all default args present; no DevTools auto-open flag, no DevTools port", async () => {
    expect(await defaultArgsOf(b.svc)).toEqual([...DEFAULT_ARGS]);
    const cmd = await cmdlineOf(launchedOf(b.svc).pid);
    expect(cmd).not.toContain("--auto-open-devtools-for-tabs");
    expect(cmd.some((a) => a.startsWith("--remote-debugging-port"))).toBe(false);
  });

  it("Chrome preloads none of its address bar's own pages (chrome://omnibox-popup…, 1.2 s of CPU per launch)", async () => {
    const cdp = await rawCdp(launchedOf(b.svc).wsEndpoint);
    try {
      const { result } = await cdp.send("Target.getTargets", { filter: [{}] });
      const urls = (result.targetInfos as Array<{ url: string }>).map((t) => t.url);
      expect(urls).toContain("about:blank");
      expect(urls.filter((u) => u.startsWith("chrome://"))).toEqual([]);
    } finally {
      cdp.close();
    }
  });

  it("the reaper starts without NODE_EXTRA_CA_CERTS (it opens no TLS connection; Node would parse the bundle as it starts); Chrome keeps its environment", () => {
    const { runDir, pid } = launchedOf(b.svc);
    const environ = (p: number) => readFileSync(`/proc/${p}/environ`, "utf8").split("\0");
    const [reaper] = processesMentioning("reaper.js", runDir);
    expect(reaper).toBeDefined();
    expect(environ(reaper!).filter((v) => v.startsWith("NODE_EXTRA_CA_CERTS="))).toEqual([]);
    expect(environ(reaper!)).toContain(`HOME=${home}`);
    expect(environ(pid)).toContain("NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt");
  });

  it("ignoreHTTPSErrors unset: a self-signed certificate fails navigation", async () => {
    const err = await b.svc.page.goto(await httpsUrl()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceNavigationError);
    expect(String((err as Error).message)).toMatch(/CERT/);
  });

  it("a page's download lands in the Chrome's own run dir, never in $HOME/Downloads; close() ends the reaper (it reads the pid file close() deletes) and removes the run dir", async () => {
    const svc = b.svc;
    const srv = createHttpServer((req, res) => {
      if (req.url === "/file") {
        res.writeHead(200, { "content-type": "application/octet-stream", "content-disposition": 'attachment; filename="report.bin"' });
        res.end("downloaded bytes");
      } else {
        res.writeHead(200, { "content-type": "text/html" });
        res.end('<a id="dl" href="/file">get</a>');
      }
    });
    const port = await listen(srv);
    const { runDir } = launchedOf(svc);
    const reapers = () => processesMentioning("reaper.js", runDir);
    try {
      await svc.page.goto(`http://127.0.0.1:${port}/`);
      await svc.act(action("click", "#dl"));
      const saved = join(runDir, "downloads", "report.bin");
      await waitFor(() => existsSync(saved) && readFileSync(saved, "utf8") === "downloaded bytes");
    } finally {
      srv.closeAllConnections(); // the Chrome still runs and keeps its connection alive
      await new Promise((r) => srv.close(r));
    }
    expect(existsSync(join(home, "Downloads"))).toBe(false);
    expect(reapers()).toHaveLength(1);
    await svc.close();
    await waitFor(() => reapers().length === 0);
    await waitFor(() => !existsSync(runDir));
  });
});

describe("executablePath, headless: true, ignoreDefaultArgs: false (one Chrome with all three)", () => {
  // The real binary: the Debian wrapper adds some of svc's default args itself.
  const b = useBrowser({ executablePath: REAL_BINARY, headless: true, ignoreDefaultArgs: false });

  it("executablePath picks the binary; a missing one fails with an install hint", async () => {
    expect((await cmdlineOf(launchedOf(b.svc).pid))[0]).toBe(REAL_BINARY);
    await b.svc.page.goto(server.url("forms.html"));
    expect(await b.svc.page.title()).toBe("Forms");
    const svc = makeService({ localBrowserLaunchOptions: { executablePath: "/nonexistent/chrome" } });
    const err = await svc.init().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceBrowserNotFoundError);
    expect((err as ServiceBrowserNotFoundError).hint).toMatch(/install|CHROME_PATH|executablePath/i);
    await svc.close();
  });

  it("headless: true means headless", async () => {
    expect(await cmdlineOf(launchedOf(b.svc).pid)).toContain("--headless=new");
  });

  it("ignoreDefaultArgs: false (the default, checked unset in the first describe): all default args present", async () => {
    expect(await defaultArgsOf(b.svc)).toEqual([...DEFAULT_ARGS]);
    await b.svc.page.goto(server.url("iframes.html"));
    await b.svc.act(action("click", "#main-button"));
  });

  it.skipIf(!process.env.DISPLAY)("headless: false opens a window (needs a display)", async () => {
    await withBrowser({ headless: false }, async (svc) => {
      expect((await cmdlineOf(launchedOf(svc).pid)).some((a) => a.startsWith("--headless"))).toBe(false);
      expect(await svc.page.evaluate(() => navigator.userAgent)).not.toContain("HeadlessChrome");
    });
  });
});

describe("ignoreDefaultArgs", () => {
  // The real binary: the Debian wrapper adds some of these flags itself.
  const present = async (launch: LocalBrowserLaunchOptions): Promise<string[]> => {
    let found: string[] = [];
    await withBrowser({ executablePath: REAL_BINARY, ...launch }, async (svc) => {
      found = await defaultArgsOf(svc);
      // the browser is usable whatever was removed
      await svc.page.goto(server.url("iframes.html"));
      await svc.act(action("click", "#main-button"));
    });
    return found;
  };

  it("lists the documented default args", () => {
    expect([...DEFAULT_ARGS]).toEqual(["--remote-allow-origins=*", "--no-first-run", "--no-default-browser-check", "--disable-dev-shm-usage", "--site-per-process"]);
  });

  it("true: none of them", async () => {
    expect(await present({ ignoreDefaultArgs: true })).toEqual([]);
  });

  it("an array removes exactly those", async () => {
    const removed = ["--no-first-run", "--site-per-process"];
    expect(await present({ ignoreDefaultArgs: removed })).toEqual(DEFAULT_ARGS.filter((a) => !removed.includes(a)));
  });
});

describe("userDataDir", () => {
  it("userDataDir is used and kept after close", async () => {
    const dir = mkdtempSync(join(tmp, "profile-"));
    let pid = 0;
    await withBrowser({ userDataDir: dir }, async (svc) => {
      pid = launchedOf(svc).pid;
      expect(launchedOf(svc).userDataDir).toBe(dir);
      expect(await cmdlineOf(pid)).toContain(`--user-data-dir=${dir}`);
      await svc.page.goto(server.url("forms.html"));
      await svc.page.evaluate(() => localStorage.setItem("svc-test", "kept"));
      await waitFor(() => readdirSync(dir).length > 0);
    });
    await waitFor(() => !pidAlive(pid));
    expect(existsSync(dir)).toBe(true);
    expect(readdirSync(dir).length).toBeGreaterThan(0);
    // and a second browser on the same profile sees its data
    await withBrowser({ userDataDir: dir }, async (svc) => {
      await svc.page.goto(server.url("forms.html"));
      expect(await svc.page.evaluate(() => localStorage.getItem("svc-test"))).toBe("kept");
    });
    expect(existsSync(dir)).toBe(true);
  });
});

describe("args and viewport (one Chrome with both)", () => {
  const b = useBrowser({ args: ["--lang=fr", "--accept-lang=fr", "--enable-features=SvcTestFeature"], viewport: { width: 1000, height: 700 } });

  it("args are passed to Chrome (--lang=fr → navigator.language)", async () => {
    expect(await cmdlineOf(launchedOf(b.svc).pid)).toEqual(expect.arrayContaining(["--lang=fr"]));
    await b.svc.page.goto(server.url("forms.html"));
    expect(await b.svc.page.evaluate(() => navigator.language)).toMatch(/^fr/);
  });

  it("an --enable-features of args is merged with svc's WebMCP into one switch (Chrome reads only the last)", async () => {
    const switches = (await cmdlineOf(launchedOf(b.svc).pid)).filter((a) => a.startsWith("--enable-features="));
    expect(switches).toEqual(["--enable-features=SvcTestFeature,WebMCP"]);
    await b.svc.page.goto(server.url("forms.html"));
    expect(await b.svc.page.evaluate(() => "modelContext" in document)).toBe(true);
  });

  it("viewport sets the page size, for new pages too", async () => {
    await b.svc.page.goto(server.url("forms.html"));
    expect(await b.svc.page.evaluate(() => [window.innerWidth, window.innerHeight])).toEqual([1000, 700]);
    const other = await b.svc.context.newPage(server.url("dropdown.html"));
    expect(await other.evaluate(() => [window.innerWidth, window.innerHeight])).toEqual([1000, 700]);
  });
});

describe("devtools", () => {
  it("devtools adds the auto-open flag and pages still work (without it: no flag, checked in the first describe)", async () => {
    await withBrowser({ devtools: true }, async (svc) => {
      expect(await cmdlineOf(launchedOf(svc).pid)).toContain("--auto-open-devtools-for-tabs");
      await svc.page.goto(server.url("iframes.html"));
      expect(svc.page.url()).toBe(server.url("iframes.html"));
      await svc.act(action("click", "#main-button"));
      expect(await svc.page.locator("#result").textContent()).toBe("clicked: main-button");
    });
  });
});

describe("proxy", () => {
  const USER = "svc-user";
  const PASS = "s3cret:pass";
  let proxy: Server;
  let proxyPort = 0;
  const seen: Array<{ url: string; authorized: boolean }> = [];

  beforeAll(async () => {
    const expected = "Basic " + Buffer.from(`${USER}:${PASS}`).toString("base64");
    proxy = createHttpServer((req, res) => {
      const authorized = req.headers["proxy-authorization"] === expected;
      seen.push({ url: req.url ?? "", authorized });
      if (!authorized) {
        res.writeHead(407, { "proxy-authenticate": 'Basic realm="svc-test"', "content-type": "text/plain" });
        res.end("proxy authentication required");
        return;
      }
      // Absolute-form request line: forward it to the origin (the fixture server).
      const headers = { ...req.headers };
      delete headers["proxy-authorization"];
      delete headers["proxy-connection"];
      const upstream = httpRequest(req.url!, { method: req.method, headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, { ...up.headers, "x-via-test-proxy": "1" });
        up.pipe(res);
      });
      upstream.on("error", () => {
        res.writeHead(502);
        res.end();
      });
      req.pipe(upstream);
    });
    proxyPort = await listen(proxy);
  });
  afterAll(async () => {
    proxy.closeAllConnections();
    await new Promise((r) => proxy.close(r));
  });

  // One Chrome for both tests: the proxy with credentials, and a bypass list (Chrome never proxies loopback
  // unless told to: <-loopback> removes that implicit bypass; 127.0.0.1 goes direct, localhost through it).
  const b = useBrowser(() => ({ proxy: { server: `http://127.0.0.1:${proxyPort}`, username: USER, password: PASS, bypass: "<-loopback>;127.0.0.1" } }));

  it("sends page traffic through a proxy that demands credentials", async () => {
    seen.length = 0;
    const svc = b.svc;
    expect(await cmdlineOf(launchedOf(svc).pid)).toContain(`--proxy-server=http://127.0.0.1:${proxyPort}`);
    const { status } = await svc.page.goto(server.url("forms.html", "localhost"));
    expect(status).toBe(200);
    expect(await svc.page.title()).toBe("Forms");
    await svc.act(action("fill", "#name", ["through the proxy"]));
    expect(await svc.page.locator("#name").inputValue()).toBe("through the proxy");
    expect(seen.some((s) => s.url === server.url("forms.html", "localhost") && s.authorized)).toBe(true);
    // the password never travels in the clear beyond the Proxy-Authorization header
    expect(seen.every((s) => !s.url.includes(PASS))).toBe(true);
  });

  it("bypass sends matching hosts direct", async () => {
    seen.length = 0;
    const svc = b.svc;
    expect(await cmdlineOf(launchedOf(svc).pid)).toContain("--proxy-bypass-list=<-loopback>;127.0.0.1");
    await svc.page.goto(server.url("forms.html", "127.0.0.1"));
    expect(await svc.page.title()).toBe("Forms");
    await svc.page.goto(server.url("dropdown.html", "localhost"));
    expect(await svc.page.title()).toBe("Dropdowns");
    expect(seen.some((s) => s.url.includes("127.0.0.1"))).toBe(false);
    expect(seen.some((s) => s.url === server.url("dropdown.html") && s.authorized)).toBe(true);
  });
});

describe("ignoreHTTPSErrors", () => {
  it("with it a self-signed certificate's page loads and works (without it navigation fails: the first describe)", async () => {
    const url = await httpsUrl();
    await withBrowser({ ignoreHTTPSErrors: true }, async (svc) => {
      const { status } = await svc.page.goto(url);
      expect(status).toBe(200);
      expect(await svc.page.title()).toBe("Self-signed");
      await svc.act(action("click", "#b"));
      expect(await svc.page.locator("#b").textContent()).toBe("clicked");
    });
  });
});

describe("cdpUrl", () => {
  it("port opts in to a DevTools TCP port on that number; another Service attaches to the browser left running (its ws+unix: endpoint; ws:// and http:// on that port)", async () => {
    const chosen = await freePort();
    const owner = makeService({ keepAlive: true, localBrowserLaunchOptions: { port: chosen } });
    const { sessionUrl } = await owner.init();
    const { pid, port } = launchedOf(owner);
    expect(sessionUrl).toMatch(/^ws\+unix:\/\/\/.+\.sock:\/devtools\/browser\//);
    try {
      expect(port).toBe(chosen);
      const res = await fetch(`http://127.0.0.1:${chosen}/json/version`);
      expect(res.ok).toBe(true);
      const body = (await res.json()) as { webSocketDebuggerUrl: string };
      expect(body.webSocketDebuggerUrl).toContain(`:${chosen}/devtools/browser/`);
      expect(await cmdlineOf(pid)).toContain(`--remote-debugging-port=${chosen}`);
      await owner.page.goto(server.url("iframes.html"));
      await owner.close();
      const forms = [
        [sessionUrl, new RegExp(`^${sessionUrl.replace(/[.+*?^$()[\]{}|\\]/g, "\\$&")}$`)],
        // Chrome's own TCP endpoint names its browser with an id of its own.
        [`http://127.0.0.1:${port}`, new RegExp(`^ws://127\\.0\\.0\\.1:${port}/devtools/browser/[\\w-]+$`)],
      ] as const;
      for (const [cdpUrl, expected] of forms) {
        const svc = makeService({ localBrowserLaunchOptions: { cdpUrl } });
        const init = await svc.init();
        expect(init.sessionUrl).toMatch(expected);
        expect(svc.page.url()).toBe(server.url("iframes.html"));
        await svc.act(action("click", "/html/body/iframe[2]/html/body/button"));
        expect(await waitFor(async () => (await svc.page.deepLocator("#cross-frame >> #child-result").textContent()) === "clicked: child-button")).toBe(true);
        await svc.page.goto(server.url("iframes.html")); // reset for the next attach
        await svc.close();
        expect(pidAlive(pid)).toBe(true);
      }
    } finally {
      const last = makeService({ localBrowserLaunchOptions: { cdpUrl: sessionUrl } });
      await last.init().then(() => last.close({ force: true }), () => undefined);
      await waitFor(() => !pidAlive(pid)).catch(() => process.kill(pid, "SIGKILL"));
    }
  });

  it("an unreachable cdpUrl fails init with ServiceInitError", async () => {
    const svc = makeService({ localBrowserLaunchOptions: { cdpUrl: `http://127.0.0.1:${await freePort()}` } });
    const err = await svc.init().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceInitError);
    await svc.close();
  });
});
