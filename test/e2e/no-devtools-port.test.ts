/**
 * Issue 21: no Chrome svc starts opens a DevTools TCP port. A library launch, a CLI session and a `svc serve` session
 * are each checked: no process of the Chrome's tree listens on TCP (socket inodes against /proc/net/tcp*), and the
 * endpoint is a 0600 socket in a 0700 dir. A Chrome that opted into a port is the control. Another user's connect
 * fails with EACCES.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, dirname } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devtoolsJson, parseUnixWsEndpoint } from "../../src/util/devtools-socket.js";
import { launchBrowser, type LaunchedBrowser } from "../../src/index.js";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { assertBuilt, CHROMIUM, json, sandbox, svc, type Sandbox } from "../cli/helpers.js";
import { freePort } from "../support/free-port.js";
import { tcpListenersOf } from "../support/listening.js";
import { chromeBrowsersOf, expectNoChrome, markTmpdir } from "../support/process.js";
import { apiClient } from "../support/session-api.js";

const KEY = "no-port-key-aaaaaaaa";
const NOBODY = 65534;

/** A started Chrome as the checks need it: its main pid and its endpoint's socket. */
interface Started {
  what: string;
  pid: number;
  socketPath: string;
}

function expectNoTcpAndPrivateSocket(s: Started): void {
  expect(tcpListenersOf(s.pid), `${s.what}: listening TCP sockets of Chrome's tree`).toEqual([]);
  expect(readFileSync(`/proc/${s.pid}/cmdline`, "utf8").split("\0")).toContain("--remote-debugging-pipe");
  expect(readFileSync(`/proc/${s.pid}/cmdline`, "utf8")).not.toMatch(/--remote-debugging-port/);
  const sock = statSync(s.socketPath);
  expect(sock.isSocket(), s.what).toBe(true);
  expect(sock.mode & 0o777, s.what).toBe(0o600);
  expect(statSync(dirname(s.socketPath)).mode & 0o777, s.what).toBe(0o700);
}

/** Another user's connect() to `socketPath`: the error code it gets (or "connected"). */
function connectAs(uid: number, socketPath: string): string {
  const code = `require("node:net").connect(${JSON.stringify(socketPath)}).on("connect", () => { console.log("connected"); process.exit(0); }).on("error", (e) => { console.log(e.code); process.exit(0); });`;
  const r = spawnSync(process.execPath, ["-e", code], { uid, gid: uid, encoding: "utf8", timeout: 10_000, cwd: "/" });
  return (r.stdout || r.stderr || String(r.error)).trim();
}

describe("no DevTools TCP port on any Chrome svc starts", () => {
  let sb: Sandbox;
  let server: RunningServer;
  let library: LaunchedBrowser;
  const { json: api } = apiClient({ server: () => server, key: KEY });

  let restoreTmp = (): void => {};
  beforeAll(() => {
    assertBuilt();
    sb = sandbox();
    restoreTmp = markTmpdir(sb.tmp);
  });

  afterAll(async () => {
    await library?.close();
    await server?.close();
    await svc(["sessions", "end", "--all"], sb.env).catch(() => undefined);
    await expectNoChrome(sb.tmp);
    sb.cleanup();
    restoreTmp();
  });

  const started: Started[] = [];

  it("the library's launch", async () => {
    library = await launchBrowser({ executablePath: CHROMIUM, headless: true });
    expect(parseUnixWsEndpoint(library.wsEndpoint)?.socketPath).toBe(library.socketPath);
    expect(library.port).toBeUndefined();
    const s = { what: "library", pid: library.pid, socketPath: library.socketPath };
    expectNoTcpAndPrivateSocket(s);
    // The endpoint answers like Chrome's own.
    const version = await devtoolsJson(library.socketPath, "/json/version");
    expect(version.body).toMatchObject({ Browser: expect.stringMatching(/Chrome/), webSocketDebuggerUrl: expect.stringMatching(/\/devtools\/browser\//) });
    started.push(s);
  });

  it("a CLI session (svc sessions start)", async () => {
    const r = await svc(["--json", "sessions", "start"], sb.env);
    expect(r.code, r.stderr).toBe(0);
    const { session } = json<{ session: { pid: number; wsEndpoint: string; port?: number } }>(r.stdout);
    const socketPath = parseUnixWsEndpoint(session.wsEndpoint)?.socketPath;
    expect(socketPath, session.wsEndpoint).toBeDefined();
    expect(session.port).toBeUndefined();
    const s = { what: "CLI session", pid: session.pid, socketPath: socketPath! };
    expectNoTcpAndPrivateSocket(s);
    // Commands of the session reach Chrome through that socket.
    const goto = await svc(["--json", "goto", "about:blank"], sb.env);
    expect(goto.code, goto.stderr).toBe(0);
    started.push(s);
  });

  it("a svc serve platform session (and it stays usable through the server's proxy)", async () => {
    server = await startServer({ port: 0, apiKeys: [KEY], cacheDir: join(sb.tmp, "cache"), launch: { executablePath: CHROMIUM, headless: true } });
    const created = await api("POST", "/sessions", { keepAlive: true });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const pid = chromeBrowsersOf(sb.tmp).find((p) => !started.some((s) => s.pid === p));
    expect(pid).toBeDefined();
    const userDataDir = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").find((a) => a.startsWith("--user-data-dir="))!.slice("--user-data-dir=".length);
    const s = { what: "svc serve session", pid: pid!, socketPath: join(dirname(userDataDir), "devtools.sock") };
    expectNoTcpAndPrivateSocket(s);
    const proxied = (created.body.connectUrl as string).replace(/^ws/, "http").replace(/\/devtools\/browser\/.*$/, "");
    const list = (await (await fetch(`${proxied}/json/list`)).json()) as Array<{ type: string; webSocketDebuggerUrl: string }>;
    expect(list.some((t) => t.type === "page" && t.webSocketDebuggerUrl.startsWith(proxied.replace(/^http/, "ws")))).toBe(true);
    started.push(s);
  });

  it("the check finds a listener where there is one (a Chrome that opted in to a port)", async () => {
    const port = await freePort();
    const opted = await launchBrowser({ executablePath: CHROMIUM, headless: true, port });
    try {
      const found = tcpListenersOf(opted.pid);
      expect(found.some((l) => l.endsWith(`:${port.toString(16).toUpperCase().padStart(4, "0")}`)), found.join("\n")).toBe(true);
    } finally {
      await opted.close();
    }
  });

  it("another local user cannot connect to any of those sockets (EACCES)", (ctx) => {
    if (process.getuid?.() !== 0) {
      console.warn("skipped: connecting as another user needs root to switch users");
      return ctx.skip();
    }
    expect(started.map((s) => s.what)).toEqual(["library", "CLI session", "svc serve session"]);
    for (const s of started) expect(connectAs(NOBODY, s.socketPath), s.what).toBe("EACCES");
    // The same attempt as the owner connects: the refusal is the permission, not a dead socket.
    expect(connectAs(process.getuid(), started[0]!.socketPath)).toBe("connected");
  });
});

