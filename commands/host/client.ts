/**
 * The thin client of the session host (commands/host/main.ts), called by bin/svc.js before the CLI loads: a hosted
 * command on a live local session is one socket round trip instead of loading the library. Node builtins only.
 * Anything unexpected before the host accepted the command returns false, and the full CLI runs it.
 */
import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { type Socket, connect } from "node:net";
import { join } from "node:path";
import { resolveStateDir } from "../../src/store/state-dir.js";
import { hostSocketPath } from "./socket.js";
import { HOSTED, HOSTED_BARE } from "../registry/hosted.js";
import { isForwardedEnv } from "../registry/host-env.js";


/** Flags that make a command something else (help, a browser of its own, another environment): never hosted. */
const NOT_HOSTED = new Set(["--help", "-h", "--new", "--version", "-V", "--env", "--headed", "--viewport", "--executable-path", "--"]);

/** The environment a command may read, sent with each request (the host applies it while the command runs). */
export function forwardedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && isForwardedEnv(k)) out[k] = v;
  }
  return out;
}

export function hostEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.SVC_NO_HOST !== "1";
}


interface Parsed {
  session: string | undefined;
  json: boolean;
}

/** The command line, when a host may run it: its `--session` and `--json`. Undefined: let the full CLI run it. */
function hostable(argv: readonly string[]): Parsed | undefined {
  let command: string | undefined;
  let session: string | undefined;
  let json = false;
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (NOT_HOSTED.has(a) || a.startsWith("--env=")) return undefined;
    if (a === "--session" || a === "--verbose") {
      const v = argv[++i];
      if (v === undefined) return undefined;
      if (a === "--session") session = v;
      continue;
    }
    if (a.startsWith("--session=")) session = a.slice(10);
    else if (a === "--json") json = true;
    else if (command === undefined) {
      if (a.startsWith("-") && !a.startsWith("--verbose=")) return undefined; // a global flag this client does not know
      if (!a.startsWith("-")) command = a;
    } else if (!a.startsWith("-")) positional.push(a);
  }
  // A group's command (`network route`) is hosted by its full name.
  if (command === undefined || !(HOSTED.has(command) || HOSTED.has(`${command} ${positional[0] ?? ""}`))) return undefined;
  // `svc screenshot URL` may open a browser of its own: only the bare command is hosted (a flag's value is no URL).
  const bare = Object.hasOwn(HOSTED_BARE, command) ? HOSTED_BARE[command]! : undefined;
  if (bare && argv.some((a, i) => !a.startsWith("-") && a !== command && !bare.includes(argv[i - 1] ?? ""))) return undefined;
  return { session, json };
}

interface Rec {
  id?: unknown;
  name?: unknown;
  kind?: unknown;
  lastUsedAt?: unknown;
  createdAt?: unknown;
}

/** The session the full CLI would most likely use (src/store/session-records.ts's records, read cheaply), or undefined. */
function chosenSession(root: string, wanted: string | undefined): string | undefined {
  const dir = join(root, "sessions");
  const ID = /^[A-Za-z0-9_-]{1,64}$/;
  if (wanted !== undefined) {
    if (!ID.test(wanted)) return undefined;
    if (existsSync(join(dir, `${wanted}.json`))) return wanted;
  }
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  const recs: Rec[] = [];
  for (const n of names) {
    if (!n.endsWith(".json") || n.startsWith(".")) continue;
    try {
      recs.push(JSON.parse(readFileSync(join(dir, n), "utf8")) as Rec);
    } catch {
      // being replaced: the full CLI decides
    }
  }
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  const pick =
    wanted !== undefined
      ? recs.find((r) => r.name === wanted)
      : recs.sort((a, b) => str(b.lastUsedAt).localeCompare(str(a.lastUsedAt)) || str(b.createdAt).localeCompare(str(a.createdAt)))[0];
  if (!pick || pick.kind === "cloud" || typeof pick.id !== "string" || !ID.test(pick.id)) return undefined;
  return pick.id;
}

/** Host → client frames, one JSON object per line. */
type Frame = { t: "start" } | { t: "out"; d: string } | { t: "err"; d: string } | { t: "exit"; code: number };

/**
 * Run argv on the session's host. Resolves false when the host did not take it (the caller runs the full
 * CLI); once the host has taken it, `true`, and `done` is called with the command's exit code (the caller
 * exits with it once stdout has flushed).
 */
export function runOnHost(argv: readonly string[], done: (code: number) => void, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (!hostEnabled(env)) return Promise.resolve(false);
  const parsed = hostable(argv);
  if (!parsed) return Promise.resolve(false);
  const root = resolveStateDir(env);
  const id = chosenSession(root, parsed.session);
  if (!id) return Promise.resolve(false);
  const path = hostSocketPath(root, id);
  if (!existsSync(path)) return Promise.resolve(false);
  let cwd: string;
  try {
    cwd = process.cwd();
  } catch {
    return Promise.resolve(false); // the folder is gone: the full CLI says what that means
  }
  let ended = false;
  const finish = (code: number) => {
    if (!ended) done(code);
    ended = true;
  };
  return new Promise<boolean>((resolve) => {
    let started = false;
    let buffer = "";
    const socket: Socket = connect(path);
    const giveUp = (stale: boolean) => {
      if (started) return;
      clearTimeout(timer);
      socket.destroy();
      // Nobody listens on it: a host that died. Remove it so the next command does not try again.
      if (stale) rmSync(path, { force: true });
      resolve(false);
    };
    // A host that does not take the command at once is busy or wedged: run it here instead.
    const deadline = Date.now() + 3000;
    const timer = setTimeout(() => giveUp(false), 3000);
    socket.on("error", (e: NodeJS.ErrnoException) => {
      if (!started) return giveUp(e.code === "ECONNREFUSED");
      finish(lost(parsed.json));
    });
    socket.on("close", () => {
      if (!started) return giveUp(false);
      finish(lost(parsed.json));
    });
    let connectedAt = 0;
    socket.on("connect", () => {
      connectedAt = performance.now();
      const request = { argv, cwd, env: forwardedEnv(env), tty: !!process.stdout.isTTY, columns: process.stdout.columns, at: performance.now(), deadline };
      socket.write(`${JSON.stringify(request)}\n`);
    });
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        let f: Frame;
        try {
          f = JSON.parse(line) as Frame;
        } catch {
          if (!started) return giveUp(false);
          continue;
        }
        if (f.t === "start") {
          started = true;
          clearTimeout(timer);
          if (env.SVC_PHASES) process.stderr.write(`svc[phase] hosted ${connectedAt.toFixed(0)}\n`); // connected to the host that took it
          // As the full CLI on a signal: one line, exit 130. Closing the connection makes the host run the
          // command's cleanups (its Service disconnects), so the command stops there too.
          for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
            process.once(signal, () => {
              socket.removeAllListeners("close");
              socket.destroy();
              report(parsed.json, "INTERRUPTED", signal === "SIGINT" ? "interrupted" : `terminated by ${signal}`);
              finish(130);
            });
          }
          resolve(true);
        } else if (f.t === "out") process.stdout.write(f.d);
        else if (f.t === "err") process.stderr.write(f.d);
        else if (f.t === "exit") {
          socket.removeAllListeners("close");
          socket.destroy();
          finish(f.code);
        }
      }
    });
  });
}

/** The connection ended before the command's exit code came: one error line, as the full CLI prints errors; exit 1. */
function lost(json: boolean): number {
  report(json, "HOST_GONE", "the session host ended before the command finished; run it again");
  return 1;
}

function report(json: boolean, code: string, message: string): void {
  if (json) process.stdout.write(`${JSON.stringify({ schemaVersion: 1, ok: false, error: { code, message } }, null, 2)}\n`);
  else process.stderr.write(`svc: ${message}\n`);
}
