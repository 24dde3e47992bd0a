/**
 * The session host: one resident Node process per live local CLI session, started by
 * the first page command on the session (commands/host-start.ts; `node host.js <id> <state dir>`). It keeps the CLI's modules and the library
 * loaded and listens on `<state>/sessions/<id>.sock` (0600); the thin client (commands/host-client.ts) sends
 * it a command line and it runs it with the CLI's own code (main.ts runCommand: the same parsing, errors
 * and exit codes, history and refs), one request at a time (a request arriving while one runs is refused: its
 * client runs the full CLI), its stdout/stderr sent back to the client.
 *
 * It ends, removing its socket, when the session ends (record gone, Chrome gone, its socket replaced), after
 * an idle time (SVC_HOST_IDLE_MS, default 10 min), or when a client leaves mid-command (Ctrl-C: the command's
 * process ends, as a full `svc` would).
 */
import { existsSync, rmSync, statSync } from "node:fs";
import { type Socket, connect, createServer } from "node:net";
import { getSession, isCloud, pidAlive, resolveStateDir } from "../src/base.js";
import { runCleanups } from "./cleanup.js";
import { hostSocketPath } from "./host-client.js";
import { isForwardedEnv } from "./registry/hosted.js";
import { setPhaseOrigin } from "./phases.js";
import { redirectOutput } from "./redirect-output.js";

const IDLE_MS = Number(process.env.SVC_HOST_IDLE_MS) > 0 ? Number(process.env.SVC_HOST_IDLE_MS) : 10 * 60_000;
/** Environment variables a request replaces (commands/host-client.ts forwardedEnv sends them). */

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

/** Whether something listens on the socket (another host of the same session). */
function listening(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    s.on("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.on("error", () => resolve(false));
  });
}

function applyEnv(env: Record<string, string>): void {
  for (const k of Object.keys(process.env)) if (isForwardedEnv(k) && !(k in env)) delete process.env[k];
  for (const [k, v] of Object.entries(env)) if (isForwardedEnv(k)) process.env[k] = v;
}

async function host(id: string, root: string): Promise<void> {
  const path = hostSocketPath(root, id);
  const record = getSession(id, root);
  if (!record || isCloud(record) || (await listening(path))) return;
  rmSync(path, { force: true });

  (globalThis as { svcEmbedded?: boolean }).svcEmbedded = true;
  const { runCommand } = await import("./main.js");
  // Loaded now, not on the first request: what every hosted command needs.
  await Promise.all([import("./runtime.js").then((r) => r.loadLibrary()), import("./snapshot.js"), import("./verbs.js"), import("commander")]);

  let lastUsed = Date.now();
  let busy = false;

  const serve = async (req: Request, socket: Socket, receivedAt: number): Promise<void> => {
    const send = (f: object) => {
      if (!socket.destroyed) socket.write(`${JSON.stringify(f)}\n`);
    };
    let restore: (() => void) | undefined;
    let running = true;
    // The client went away mid-command (Ctrl-C): what the full CLI does on a signal — run the cleanups (the
    // command's Service disconnects) and end the process running the command, so nothing of it goes on (a
    // verb typing, a wait polling). The next command runs in full and starts a new host.
    socket.once("close", () => {
      if (running) void runCleanups().finally(stop);
    });
    try {
      process.chdir(req.cwd);
      applyEnv(req.env);
      setPhaseOrigin(receivedAt - req.at);
      restore = redirectOutput((t, d) => send({ t, d }), { isTTY: { stdout: req.tty }, columns: req.columns });
      const code = await runCommand(req.argv);
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
      lastUsed = Date.now();
    }
  };

  const server = createServer((socket) => {
    let buffer = "";
    socket.setEncoding("utf8");
    socket.on("error", () => {});
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      const nl = buffer.indexOf("\n");
      if (nl < 0) {
        if (buffer.length > 1_000_000) socket.destroy();
        return;
      }
      const receivedAt = performance.now();
      const req = parseRequest(buffer.slice(0, nl));
      socket.removeAllListeners("data");
      // Taken only while the client still waits for it (one that gave up runs the command itself), and only
      // when idle: a command sent while another runs (a `svc wait` in the background) runs beside it in a
      // process of its own, as without a host, never queued behind it.
      if (!req || busy || Date.now() > req.deadline - 1000) return void socket.destroy();
      busy = true;
      socket.write(`${JSON.stringify({ t: "start" })}\n`);
      lastUsed = Date.now();
      void serve(req, socket, receivedAt);
    });
  });

  const previous = process.umask(0o177);
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(path, resolve));
  process.umask(previous);
  const ino = statSync(path).ino;

  const ours = () => {
    try {
      return statSync(path).ino === ino;
    } catch {
      return false;
    }
  };
  let watchdog: NodeJS.Timeout | undefined;
  // Ends this process: nothing is left to keep it alive (each command closed its Service); should anything
  // still hold the event loop, a signal ends it a moment later.
  const stop = () => {
    if (ours()) rmSync(path, { force: true });
    server.close();
    clearInterval(watchdog);
    for (const s of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.removeAllListeners(s);
    setTimeout(() => process.kill(process.pid, "SIGKILL"), 1000).unref();
  };
  process.on("exit", () => {
    if (ours()) rmSync(path, { force: true });
  });
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  process.on("SIGHUP", stop);
  // The session ended (`svc sessions end` removes the record and the socket), its Chrome is gone, another
  // host took the socket, or nobody used it for a while: this host ends.
  watchdog = setInterval(() => {
    if (busy) return; // a command whose session ended meanwhile fails on its own, and says so
    if (!ours() || !existsSync(hostSocketPath(root, id).replace(/\.sock$/, ".json")) || !pidAlive(record.pid)) return stop();
    if (Date.now() - lastUsed > IDLE_MS) stop();
  }, 500);
}

const id = process.argv[2];
if (id && /^[A-Za-z0-9_-]{1,64}$/.test(id)) {
  // A stray error inside a dependency ends the host (Node's default; the client in flight reports it, the
  // socket goes on exit). A stray rejection (a CDP reply after a disconnect) is not worth ending it for.
  process.on("unhandledRejection", () => {});
  host(id, process.argv[3] ?? resolveStateDir()).catch((e: unknown) =>
    setImmediate(() => {
      throw e;
    }),
  );
}
