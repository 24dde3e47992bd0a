/**
 * The session host, the one resident Node process of a live CLI session (ARCHITECTURE.md, "How a request travels"):
 * it holds Chrome's pipe (browser.ts), watches every page (keeper.ts) and runs the command lines its socket
 * receives with the CLI's own code, one at a time (a busy host refuses; the client runs the full CLI). Control
 * requests are answered even mid-command.
 */
import { existsSync, rmSync, statSync } from "node:fs";
import { type Socket, createServer } from "node:net";
import { join } from "node:path";
import { pidAlive, removeSession, resolveStateDir } from "../../src/base.js";
import { runCleanups } from "../core/cleanup.js";
import { type HostLaunchSpec, launchSessionBrowser, lifelineCut, parseLaunchSpec, shareHeartbeat, takeProxyCredentials } from "./browser.js";
import { CONTROL_LINE_BYTES } from "./ask.js";
import { hostSocketPath } from "./socket.js";
import { type ParsedControl, parseControl, runControl } from "./control.js";
import { type KeptSession, keepSession } from "./keeper.js";
import { READY_LINE } from "./start.js";
import { isForwardedEnv } from "../registry/host-env.js";
import { phase, setPhaseOrigin } from "../core/phases.js";
import { redirectOutput } from "../core/redirect-output.js";

interface Request {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  tty: boolean;
  columns: number | undefined;
  /** The client's clock (ms since its start) when it sent the request: phases count from its start. */
  at: number;
  /** Epoch ms after which the client no longer waits for the host to take the command. */
  deadline: number;
}

function parseRequest(line: string): Request | undefined {
  try {
    const r = JSON.parse(line) as Partial<Request>;
    const strings = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === "string");
    if (!strings(r.argv) || typeof r.cwd !== "string" || typeof r.env !== "object" || r.env === null || typeof r.deadline !== "number") return undefined;
    if (!Object.values(r.env).every((v) => typeof v === "string")) return undefined;
    return { argv: r.argv as string[], cwd: r.cwd, env: r.env, tty: r.tty === true, columns: typeof r.columns === "number" ? r.columns : undefined, at: Number(r.at) || 0, deadline: r.deadline };
  } catch {
    return undefined;
  }
}

function applyEnv(env: Record<string, string>): void {
  for (const k of Object.keys(process.env)) if (isForwardedEnv(k) && !(k in env)) delete process.env[k];
  for (const [k, v] of Object.entries(env)) if (isForwardedEnv(k)) process.env[k] = v;
}

/**
 * Ends this process once what it holds is closed: the event loop then drains (its starter reads its lines,
 * not its exit code); should anything still hold it, a signal ends it a moment later.
 */
function quit(): void {
  for (const s of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.removeAllListeners(s);
  setTimeout(() => process.kill(process.pid, "SIGKILL"), 2000).unref();
}

/** The host's last word to its starter when it cannot start: the error, with its code, as one JSON line. */
function failed(e: unknown): void {
  const err = e as { message?: unknown; code?: unknown };
  const line = { error: { message: String(err?.message ?? e), ...(typeof err?.code === "string" ? { code: err.code } : {}) } };
  process.stdout.on("error", () => {});
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

async function host(id: string, root: string, spec: HostLaunchSpec): Promise<void> {
  const proxyCredentials = takeProxyCredentials();
  const path = hostSocketPath(root, id, true);
  (globalThis as { svcEmbedded?: boolean; svcHost?: boolean }).svcEmbedded = true;
  (globalThis as { svcHost?: boolean }).svcHost = true;
  // Until the host is ready, a signal (the starter interrupted) ends the launch and what it started.
  let interrupted = false;
  for (const s of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.once(s, () => (interrupted = true));
  // The starter died mid-start (kill -9) and its heartbeat expired: what this host started goes.
  const early = setInterval(() => {
    if (lifelineCut(spec, true)) interrupted = true;
  }, 500);
  let started: Awaited<ReturnType<typeof launchSessionBrowser>>;
  let runCommand: (argv: string[]) => Promise<number>;
  const launching = launchSessionBrowser(spec, root);
  launching.catch(() => {});
  try {
    // Loaded while Chrome starts: compiling them blocks the event loop for a while, and a page opened
    // meanwhile could show a dialog before this host enabled its Page domain there (answered by nobody).
    [{ runCommand }] = await Promise.all([import("../main.js"), import("../core/runtime.js").then((r) => r.loadLibrary()), import("../page/snapshot.js"), import("../door/run.js"), import("commander")]);
    (await import("../core/session-lookup.js")).holdsSession(id);
    started = await launching;
  } catch (e) {
    failed(e);
    await launching.then(({ browser }) => browser.close()).catch(() => {});
    removeSession(id, root);
    return quit();
  } finally {
    clearInterval(early);
  }
  const { record, browser } = started;
  let kept: KeptSession | undefined;
  const connection = () => kept?.connection;
  const abandon = async (e?: unknown) => {
    await connection()?.close().catch(() => {});
    await browser.close().catch(() => {});
    removeSession(id, root);
    if (e !== undefined) failed(e);
    quit();
  };
  try {
    if (interrupted) return await abandon();
    // The keeper role before the socket: no command may reach a page it does not watch.
    const joined = spec.connect?.join?.viewport;
    kept = await keepSession(record, root, { proxyCredentials, launch: spec.launch ?? (joined ? { viewport: joined } : undefined) });
    if (interrupted) return await abandon();
    rmSync(path, { force: true });
  } catch (e) {
    return await abandon(e);
  }
  const sessionFile = join(root, "sessions", `${id}.json`);

  let busy = false;

  const serve = async (req: Request, socket: Socket, receivedAt: number): Promise<void> => {
    const send = (f: object) => {
      if (!socket.destroyed) socket.write(`${JSON.stringify(f)}\n`);
    };
    let restore: (() => void) | undefined;
    let running = true;
    // The client went away mid-command (Ctrl-C): what the full CLI does on a signal — run the cleanups (the
    // command's Service disconnects, so whatever it still does fails at its next call to the page). The
    // session and this host go on; the next command waits until this one has ended.
    socket.once("close", () => {
      if (running) void runCleanups();
    });
    try {
      process.chdir(req.cwd);
      applyEnv(req.env);
      setPhaseOrigin(receivedAt - req.at);
      restore = redirectOutput((t, d) => send({ t, d }), { isTTY: { stdout: req.tty }, columns: req.columns });
      const code = await runCommand(req.argv);
      phase("returned");
      restore();
      restore = undefined;
      send({ t: "exit", code });
    } catch (e) {
      restore?.();
      send({ t: "err", d: `svc: ${(e as Error).message}\n` });
      send({ t: "exit", code: 1 });
    } finally {
      running = false;
      socket.end();
      busy = false;
    }
  };

  // Answered whatever runs: one reply line, then the connection ends.
  const answerControl = (control: ParsedControl, socket: Socket) => {
    const reply = (f: object) => socket.end(`${JSON.stringify(f)}\n`);
    if (!kept) return reply({ t: "error", message: "the session is not ready" });
    // A control that waits for a person (`ask`) is withdrawn when its asker goes away.
    const gone = new AbortController();
    socket.once("close", () => gone.abort());
    void runControl(control, { kept, id, root, signal: gone.signal }).then(reply);
  };

  const server = createServer((socket) => {
    let buffer = "";
    socket.setEncoding("utf8");
    socket.on("error", () => {});
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      const nl = buffer.indexOf("\n");
      if (nl < 0) {
        if (buffer.length > CONTROL_LINE_BYTES) socket.destroy();
        return;
      }
      const receivedAt = performance.now();
      socket.removeAllListeners("data");
      const control = parseControl(buffer.slice(0, nl));
      if (control) return void answerControl(control, socket);
      const req = parseRequest(buffer.slice(0, nl));
      // Taken only while the client still waits for it (one that gave up runs the command itself), and only
      // when idle: a command sent while another runs (a `svc wait` in the background) runs beside it in a
      // process of its own, as without a host, never queued behind it.
      if (!req || busy || Date.now() > req.deadline - 1000) return void socket.destroy();
      busy = true;
      socket.write(`${JSON.stringify({ t: "start" })}\n`);
      void serve(req, socket, receivedAt);
    });
  });

  const previous = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => server.once("error", reject).listen(path, resolve));
  } catch (e) {
    return await abandon(e);
  } finally {
    process.umask(previous);
  }
  const ino = statSync(path).ino;
  const ours = () => {
    try {
      return statSync(path).ino === ino;
    } catch {
      return false;
    }
  };
  // Ends Chrome, then this process; should anything still hold the event loop, a signal ends it a moment later.
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    if (ours()) rmSync(path, { force: true });
    server.close();
    clearInterval(watchdog);
    void (async () => {
      await connection()?.close().catch(() => {});
      await browser.close().catch(() => {});
      quit();
    })();
  };
  process.on("exit", () => {
    if (ours()) rmSync(path, { force: true });
  });
  for (const s of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    process.removeAllListeners(s);
    process.on(s, () => stop());
  }
  // Chrome is gone (the keeper's connection closed): this host ends.
  kept.connection.onClose(() => stop());
  // The session ended (`svc sessions end` removes the record, the heartbeat and the socket), idled out, or its
  // Chrome ended: this host ends Chrome and itself.
  const watchdog = setInterval(() => {
    shareHeartbeat(spec);
    if (!ours() || !existsSync(sessionFile) || !pidAlive(record.pid) || lifelineCut(spec, false)) stop();
  }, 500);
  // The starter stops listening once it has read this (or gave up): a write to its closed pipe is no failure.
  process.stdout.on("error", () => {});
  process.stdout.write(`${READY_LINE}\n`);
  if (interrupted) stop();
}

const id = process.argv[2];
const spec = parseLaunchSpec(process.argv[4]);
if (id && /^[A-Za-z0-9_-]{1,64}$/.test(id) && spec?.record.id === id) {
  // A stray rejection (a CDP reply after a disconnect) is not worth ending the session for. A stray error
  // inside a dependency ends the host, and Chrome with it (its pipe closes), as it would end a full `svc`.
  process.on("unhandledRejection", () => {});
  host(id, process.argv[3] ?? resolveStateDir(), spec).catch((e: unknown) => {
    failed(e);
    quit();
  });
}
