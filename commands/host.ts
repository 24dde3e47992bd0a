/**
 * The session host: one resident Node process per live local CLI session (besides its reaper), started by
 * `svc sessions start` (commands/host-start.ts; `node host.js <id> <state dir>`). It stays attached to every
 * page for the session's life, answering the dialogs no command answers and recording downloads
 * (host-keeper.ts); it prints "ready" once it does and listens. It keeps the CLI's modules and the library
 * loaded and listens on `<state>/sessions/<id>.sock` (0600); the thin client (commands/host-client.ts) sends
 * it a command line and it runs it with the CLI's own code (main.ts runCommand: the same parsing, errors
 * and exit codes, history and refs), one request at a time (a request arriving while one runs is refused: its
 * client runs the full CLI), its stdout/stderr sent back to the client.
 *
 * It ends, removing its socket, when the session ends (record gone, Chrome gone, its socket replaced; the
 * session's idle timeout ends Chrome), or when a client leaves mid-command (Ctrl-C: the command's process
 * ends, as a full `svc` would; it starts its successor first, so the session keeps a host). A host killed
 * otherwise is replaced by the next full command on the session (commands/runtime.ts).
 */
import { existsSync, rmSync, statSync } from "node:fs";
import { type Socket, connect, createServer } from "node:net";
import { getSession, isCloud, pidAlive, resolveStateDir } from "../src/base.js";
import { runCleanups } from "./cleanup.js";
import { hostSocketPath } from "./host-client.js";
import { keepSession } from "./host-keeper.js";
import { READY_LINE, listening, spawnHost } from "./host-start.js";
import { isForwardedEnv } from "./registry/hosted.js";
import { setPhaseOrigin } from "./phases.js";
import { redirectOutput } from "./redirect-output.js";


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

async function host(id: string, root: string): Promise<void> {
  const path = hostSocketPath(root, id);
  const record = getSession(id, root);
  if (!record || isCloud(record)) return;
  // Another host of the session listens (a starter raced this one): it watches the pages already.
  const another = () => {
    process.stdout.on("error", () => {});
    process.stdout.write(`${READY_LINE}\n`);
  };
  if (await listening(path)) return another();
  (globalThis as { svcEmbedded?: boolean; svcHost?: boolean }).svcEmbedded = true;
  (globalThis as { svcHost?: boolean }).svcHost = true;
  // Loaded before this host attaches: compiling them blocks the event loop for a while, and a page opened
  // meanwhile could show a dialog before this host enabled its Page domain there (answered by nobody).
  const [{ runCommand }] = await Promise.all([import("./main.js"), import("./runtime.js").then((r) => r.loadLibrary()), import("./snapshot.js"), import("./verbs.js"), import("commander")]);
  // The keeper role before the socket: no command may reach a page it does not watch.
  const connection = await keepSession(record, root);
  if (await listening(path)) {
    await connection.close().catch(() => {});
    return another();
  }
  rmSync(path, { force: true });

  const sessionFile = hostSocketPath(root, id).replace(/\.sock$/, ".json");

  let busy = false;

  const serve = async (req: Request, socket: Socket, receivedAt: number): Promise<void> => {
    const send = (f: object) => {
      if (!socket.destroyed) socket.write(`${JSON.stringify(f)}\n`);
    };
    let restore: (() => void) | undefined;
    let running = true;
    // The client went away mid-command (Ctrl-C): what the full CLI does on a signal — run the cleanups (the
    // command's Service disconnects) and end the process running the command, so nothing of it goes on (a
    // verb typing, a wait polling). A successor takes over the session (its dialogs, the next commands).
    socket.once("close", () => {
      if (running) void runCleanups().finally(() => stop(true));
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
      void serve(req, socket, receivedAt);
    });
  });

  const previous = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => server.once("error", reject).listen(path, resolve));
  } catch (e) {
    // Another host of the session took the socket meanwhile: it watches the pages.
    if (!(await listening(path))) throw e;
    await connection.close().catch(() => {});
    return another();
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
  let watchdog: NodeJS.Timeout | undefined;
  // Ends this process; should anything still hold the event loop, a signal ends it a moment later. With
  // `successor`, a new host is started once this one's socket is gone.
  let stopped = false;
  const stop = (successor = false) => {
    if (stopped) return;
    stopped = true;
    if (ours()) rmSync(path, { force: true });
    server.close();
    clearInterval(watchdog);
    void connection.close().catch(() => {});
    if (successor && existsSync(sessionFile) && pidAlive(record.pid)) spawnHost(id, root);
    for (const s of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.removeAllListeners(s);
    setTimeout(() => process.kill(process.pid, "SIGKILL"), 1000).unref();
  };
  process.on("exit", () => {
    if (ours()) rmSync(path, { force: true });
  });
  for (const s of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(s, () => stop());
  // The session ended (`svc sessions end` removes the record and the socket), its Chrome is gone (the
  // keeper's connection closed), or another host took the socket: this host ends.
  connection.onClose(() => stop());
  watchdog = setInterval(() => {
    if (busy) return; // a command whose session ended meanwhile fails on its own, and says so
    if (!ours() || !existsSync(sessionFile) || !pidAlive(record.pid)) stop();
  }, 500);
  // The starter stops listening once it has read this (or gave up): a write to its closed pipe is no failure.
  process.stdout.on("error", () => {});
  process.stdout.write(`${READY_LINE}\n`);
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
