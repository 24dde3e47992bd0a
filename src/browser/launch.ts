/**
 * Starting a local Chrome/Chromium with chrome-launcher so it never outlives its owner. chrome-launcher detaches Chrome,
 * so nothing kills it when Node dies by SIGKILL; so Chrome runs with --remote-debugging-pipe only (no TCP port another
 * local user could find) and quits when the pipe's last holder is gone. The holder is the `Lifeline` (docs/library.md);
 * the run dir's sweep: run-dir.ts.
 */
import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import { accessSync, constants as fsConstants, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import * as chromeLauncher from "chrome-launcher";
import { ServiceBrowserNotFoundError, ServiceInitError } from "../errors.js";
import { checkDisplay, chromeErrLog, waitForEndpoint, type EndpointReady } from "./chrome-start.js";
import { CHROME_PID_FILE, HOLDER_PID_FILE, removeRunDir, runBase, sweepRunDirs } from "./run-dir.js";
import { unixWsEndpoint } from "../util/devtools-socket.js";
import type { LocalBrowserLaunchOptions } from "./types.js";
import { waitForExit } from "../util/process.js";
import { holdPipe, type HeldPipe } from "./pipe-holder.js";

/**
 * Added before `args` unless `ignoreDefaultArgs` removes them. `--remote-allow-origins=*` matters only with an opted-in `port`: it lets any web page that finds
 * that port on loopback drive the browser. `svc serve` drops it for every Chrome it runs
 * (src/server/platform/devtools-origin.ts); svc's own clients send no Origin.
 */
export const DEFAULT_ARGS: readonly string[] = [
  "--remote-allow-origins=*",
  "--no-first-run",
  "--no-default-browser-check",
  "--disable-dev-shm-usage",
  "--site-per-process",
];

/** Chrome features that would reach for a closed network over and over, slowing every page. */
export const QUIET_FEATURES: readonly string[] = ["Translate", "OptimizationHints", "MediaRouter"];

/**
 * Chrome preloads its address bar's WebUI popups (two chrome:// documents in a renderer of their own), even
 * headless where there is no address bar: 1.2 s of CPU per launch here, more than the rest of Chrome's start
 * (2.0 → 0.8 s measured from /proc, Chromium 156). A headed Chrome's address bar uses its native popup instead.
 */
const OMNIBOX_POPUP_FEATURES: readonly string[] = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"];

/** Always added (not removed by ignoreDefaultArgs). */
const QUIET_ARGS: readonly string[] = [
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  `--disable-features=${[...QUIET_FEATURES, ...OMNIBOX_POPUP_FEATURES].join(",")}`,
  "--metrics-recording-only",
  "--password-store=basic",
  "--use-mock-keychain",
];

/**
 * Who holds Chrome's pipe, and so how long Chrome lives. "parent" and "idle": a detached reaper
 * (reaper.ts) holds it and ends Chrome when this process dies, or when the heartbeat file goes stale.
 * "self": this process holds it (pipe-holder.ts) and Chrome ends with it, kill -9 included; a run dir
 * left by a killed holder is removed by the next launch (sweepRunDirs).
 */
export type Lifeline = { kind: "parent" } | { kind: "idle"; heartbeatFile: string; idleMs: number } | { kind: "self" };

export interface LaunchedBrowser {
  /** `ws+unix://<socketPath>:/devtools/browser/<id>`: the browser's DevTools WebSocket on the unix socket. */
  wsEndpoint: string;
  /** The reaper's DevTools endpoint (HTTP /json/… and the WebSockets), mode 0600 in a 0700 dir. */
  socketPath: string;
  /** Only with an explicit `port` (an opt-in TCP DevTools port); otherwise Chrome listens on none. */
  port?: number;
  pid: number;
  userDataDir: string;
  /** True when svc created the profile directory and deletes it on close. */
  ownsProfile: boolean;
  /** svc's directory for this Chrome (temp profile, Chrome's TMPDIR, pid file); removed when it ends. */
  runDir: string;
  close(): Promise<void>;
}

function chromeArgs(options: LocalBrowserLaunchOptions): string[] {
  const ignore = options.ignoreDefaultArgs ?? false;
  const defaults = ignore === true ? [] : DEFAULT_ARGS.filter((a) => !(Array.isArray(ignore) && ignore.includes(a)));
  const args = [...defaults, ...QUIET_ARGS];
  if (options.headless ?? true) args.push("--headless=new", "--hide-scrollbars", "--mute-audio");
  if (process.getuid?.() === 0) args.push("--no-sandbox");
  if (options.viewport) args.push(`--window-size=${options.viewport.width},${options.viewport.height}`);
  if (options.devtools) args.push("--auto-open-devtools-for-tabs");
  if (options.proxy) {
    args.push(`--proxy-server=${options.proxy.server}`);
    if (options.proxy.bypass) args.push(`--proxy-bypass-list=${options.proxy.bypass}`);
  }
  if (options.ignoreHTTPSErrors) args.push("--ignore-certificate-errors");
  args.push(...(options.args ?? []));
  return withFeatures(args, ENABLED_FEATURES);
}

/**
 * WebMCP (pages' tools for agents, webmcp.ts) is behind a feature flag in Chrome ≥ 149. Added on every
 * launch: an older Chrome ignores a feature name it does not know, so no version probe is needed.
 */
const ENABLED_FEATURES: readonly string[] = ["WebMCP"];

/** `args` with one --enable-features holding its own features and `features`: Chrome reads only the last such switch. */
export function withFeatures(args: readonly string[], features: readonly string[]): string[] {
  const prefix = "--enable-features=";
  const given = args.filter((a) => a.startsWith(prefix)).flatMap((a) => a.slice(prefix.length).split(",")).filter(Boolean);
  const merged = [...new Set([...given, ...features])];
  return [...args.filter((a) => !a.startsWith(prefix)), `${prefix}${merged.join(",")}`];
}

function resolveExecutable(options: LocalBrowserLaunchOptions): string {
  const explicit = options.executablePath ?? process.env.CHROME_PATH;
  const install = "install Chromium (Debian/Ubuntu: apt-get install -y chromium) or set CHROME_PATH / executablePath";
  if (explicit) {
    // chrome-launcher does not report a failed spawn (ENOENT surfaces as an unhandled 'error' event and a
    // 5 s connection timeout), so check the path first.
    try {
      accessSync(explicit, fsConstants.X_OK);
    } catch {
      throw new ServiceBrowserNotFoundError(`no executable Chrome at ${explicit}`, { hint: install });
    }
    return explicit;
  }
  try {
    const found = chromeLauncher.Launcher.getFirstInstallation();
    if (found) return found;
  } catch {
    // fall through to the clear error below
  }
  throw new ServiceBrowserNotFoundError("no Chrome or Chromium installation found", { hint: install });
}

/** How long Chrome may take to open its DevTools port (a cold start on a loaded machine takes seconds). */
const STARTUP_TIMEOUT_MS = 30_000;

export async function launchBrowser(options: LocalBrowserLaunchOptions, lifeline: Lifeline = { kind: "parent" }): Promise<LaunchedBrowser> {
  const chromePath = resolveExecutable(options);
  checkDisplay(options);
  const self = lifeline.kind === "self";
  const reaperScript = self ? "" : findReaper();
  sweepRunDirs();
  const ownsProfile = !options.userDataDir;
  // Everything svc creates for this Chrome lives under one directory: the profile (unless the caller gave
  // one) and Chrome's TMPDIR (its singleton socket dir would otherwise outlive a killed Chrome). Its path
  // stays short whatever TMPDIR is: Chrome's singleton socket path must fit in sun_path.
  const runDir = mkdtempSync(join(runBase(), "svc-chrome-"));
  const userDataDir = options.userDataDir ?? join(runDir, "profile");
  const chromeTmp = join(runDir, "tmp");
  mkdirSync(chromeTmp);
  const cleanup = () => removeRunDir(runDir);
  try {
    // A userDataDir that does not exist yet is created (Chrome would, but chrome-launcher opens its logs
    // there first and fails with ENOENT).
    mkdirSync(userDataDir, { recursive: true });
  } catch (e) {
    cleanup();
    throw new ServiceInitError(`cannot create userDataDir ${userDataDir}: ${(e as Error).message}`, { cause: e });
  }
  if (ownsProfile) {
    mkdirSync(join(userDataDir, "Default"), { recursive: true });
    // A download lands in this Chrome's own run dir (removed with it), not in the user's ~/Downloads:
    // headless Chrome saves a page's downloads without asking, and on svc serve that is the server's home.
    // With `downloadsPath` it lands there: a preference outlives every DevTools client (downloads.ts).
    const downloads = options.downloadsPath ? resolve(options.downloadsPath) : join(runDir, "downloads");
    if (options.downloadsPath) mkdirSync(downloads, { recursive: true, mode: 0o700 });
    writeFileSync(join(userDataDir, "Default", "Preferences"), JSON.stringify({ download: { default_directory: downloads, prompt_for_download: false, directory_upgrade: true }, savefile: { default_directory: downloads } }));
  }
  const pidFile = join(runDir, CHROME_PID_FILE);
  const errLog = chromeErrLog(userDataDir);
  let launched: chromeLauncher.LaunchedChrome;
  try {
    // An explicit `port` is the caller's opt-in to a TCP DevTools port as well (any local user can reach it).
    const portFlag = options.port ? [`--remote-debugging-port=${options.port}`] : [];
    launched = await chromeLauncher.launch({
      chromePath,
      chromeFlags: [...chromeArgs(options), "--remote-debugging-pipe", ...portFlag],
      ignoreDefaultFlags: true,
      userDataDir,
      handleSIGINT: false,
      logLevel: "silent",
      envVars: { ...process.env, TMPDIR: chromeTmp },
    });
  } catch (e) {
    cleanup();
    const msg = e instanceof Error ? e.message : String(e);
    if (/ENOENT|not installed|spawn/i.test(msg) || (e as { code?: string }).code === "ENOENT") {
      throw new ServiceBrowserNotFoundError(`cannot start Chrome at ${chromePath}`, {
        hint: "install Chromium (Debian/Ubuntu: apt-get install -y chromium) or set CHROME_PATH / executablePath",
        cause: e,
      });
    }
    throw new ServiceInitError(`Chrome failed to start: ${msg.split("\n")[0]}`, { cause: e });
  }
  const { pid } = launched;
  writeFileSync(pidFile, String(pid));
  // Chrome's fds 3 and 4 (the DevTools pipe) go to the reaper, which becomes their only holder (this
  // process closes its copies); or, "self", this process keeps them.
  const pipes = [launched.process.stdio[3], launched.process.stdio[4]].filter((p): p is Readable | Writable => !!p);
  let ready: EndpointReady;
  let held: HeldPipe | undefined;
  try {
    let endpoint: Promise<EndpointReady>;
    if (self) {
      writeFileSync(join(runDir, HOLDER_PID_FILE), String(process.pid));
      endpoint = holdPipe({ toChrome: pipes[0] as Writable, fromChrome: pipes[1] as Readable, runDir }).then((h) => ((held = h), h));
    } else {
      const reaper = startReaper(reaperScript, { runDir, pidFile, userDataDir, lifeline: lifeline as Exclude<Lifeline, { kind: "self" }> }, pipes);
      // The reaper is this Chrome's holder: should its own removal of the dir fail, a later sweep finishes it.
      if (reaper.pid) writeFileSync(join(runDir, HOLDER_PID_FILE), String(reaper.pid));
      endpoint = reaperReady(reaper);
    }
    ready = await waitForEndpoint(launched.process, errLog, STARTUP_TIMEOUT_MS, endpoint);
  } catch (e) {
    killBrowserProcess(pid);
    held?.server.close();
    cleanup();
    throw e;
  } finally {
    for (const p of pipes) {
      p.on("error", () => {});
      if (self) (p as unknown as { unref?: () => void }).unref?.();
      else p.destroy();
    }
  }
  launched.process.unref();
  const heldHere = held ? { pid, runDir } : undefined;
  if (heldHere) heldBrowsers.add(heldHere);
  return {
    wsEndpoint: unixWsEndpoint(ready.socketPath, `/devtools/browser/${ready.browserId}`),
    socketPath: ready.socketPath,
    ...(options.port ? { port: options.port } : {}),
    pid,
    userDataDir,
    ownsProfile,
    runDir,
    close: async () => {
      await terminate(pid);
      held?.server.close();
      cleanup();
      if (heldHere) heldBrowsers.delete(heldHere);
    },
  };
}

/** Chromes whose pipe this process holds: ended with it (an exit that skipped close()). */
const heldBrowsers = new Set<{ pid: number; runDir: string }>();
process.on("exit", () => {
  for (const b of heldBrowsers) {
    killBrowserProcess(b.pid);
    try {
      removeRunDir(b.runDir);
    } catch {
      // its pid files stay: the next sweep removes it
    }
  }
});

/** The reaper's one line on its stdout: its endpoint is up, or why not. */
function reaperReady(reaper: ChildProcess): Promise<EndpointReady> {
  return new Promise((resolve, reject) => {
    let text = "";
    const out = reaper.stdout!;
    const done = () => {
      out.destroy();
      try {
        const m = JSON.parse(text.split("\n")[0] ?? "") as { ready?: EndpointReady; error?: string };
        if (m.ready) return resolve(m.ready);
        reject(new ServiceInitError(`Chrome's DevTools endpoint did not start: ${m.error ?? "no reason given"}`));
      } catch {
        reject(new ServiceInitError("Chrome's DevTools endpoint did not start: its process ended without a word"));
      }
    };
    out.setEncoding("utf8");
    out.on("data", (c: string) => {
      text += c;
      if (text.includes("\n") || text.length > 4096) done();
    });
    out.once("end", done);
    out.once("error", done);
  });
}

/** The browser WebSocket a DevTools HTTP endpoint names at its /json/version (TCP, or `unix:` socket path). */
export async function browserWsEndpoint(port: number, host = "127.0.0.1"): Promise<string> {
  const res = await fetch(`http://${host}:${port}/json/version`);
  const body = (await res.json()) as { webSocketDebuggerUrl?: string };
  if (!body.webSocketDebuggerUrl) throw new Error("no webSocketDebuggerUrl in /json/version");
  return body.webSocketDebuggerUrl;
}

/** SIGTERM the process group, then SIGKILL after a grace period; resolves when the process is gone. */
async function terminate(pid: number): Promise<void> {
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      try {
        process.kill(pid, sig);
      } catch {
        // already gone
      }
    }
  };
  signal("SIGTERM");
  if (!(await waitForExit(pid, 1000))) {
    signal("SIGKILL");
    await waitForExit(pid, 1000);
  }
}

/** Synchronous best-effort kill (for exit handlers and `svc sessions end`); removes `dir` if given. */
export function killBrowserProcess(pid: number, dir?: string): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, "SIGKILL");
    } catch {
      // not ours or already gone
    }
  }
  if (dir) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

function findReaper(): string {
  // Built code runs dist/src/browser/reaper.js beside this file; from TypeScript sources (tests) use the build.
  const candidates = [new URL("./reaper.js", import.meta.url), new URL("../../dist/src/browser/reaper.js", import.meta.url)];
  const found = candidates.find((u) => existsSync(fileURLToPath(u)));
  if (!found) throw new ServiceInitError("svc is not built: reaper.js missing", { hint: "run npm run build" });
  return fileURLToPath(found);
}

function startReaper(script: string, spec: { runDir: string; pidFile: string; userDataDir: string; lifeline: Exclude<Lifeline, { kind: "self" }> }, pipes: (Readable | Writable)[]): ChildProcess {
  const payload = JSON.stringify({ ...spec, ownerPid: process.pid });
  const stdio: StdioOptions = ["ignore", "pipe", "ignore", ...pipes];
  // The reaper opens no TLS connection, and Node parses every NODE_EXTRA_CA_CERTS certificate as it starts
  // (a distribution's bundle: about 60 ms of CPU per launch here).
  const { NODE_EXTRA_CA_CERTS: _unused, ...env } = process.env;
  const child = spawn(process.execPath, [script, payload], { detached: true, stdio, env });
  child.unref();
  return child;
}
