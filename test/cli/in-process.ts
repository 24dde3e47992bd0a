/**
 * Running one `svc` command line inside the test's own process, through the entry the session host uses
 * (dist/commands/main.js runCommand, loaded with globalThis.svcEmbedded set: no process-wide handler, no
 * host started), instead of spawning `node bin/svc.js`: the same parsing, code, output and exit code,
 * without a Node start and a module load per command.
 *
 * Each run gets exactly its own environment (process.env is replaced for the run and put back), its own
 * stdout/stderr (captured; not terminals, as with a spawned svc's pipes) and its exit code. One run at a
 * time per test worker: `inProcessBusy()` says when a caller must spawn instead (a command started while
 * another runs — `svc wait` beside a click — runs in a process of its own, as it would for a user).
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

type RunCommand = (argv: readonly string[]) => Promise<number>;

let loaded: Promise<RunCommand> | undefined;
let busy = false;

function load(root: string): Promise<RunCommand> {
  (globalThis as { svcEmbedded?: boolean }).svcEmbedded = true;
  loaded ??= import(/* @vite-ignore */ pathToFileURL(join(root, "dist", "commands", "main.js")).href).then((m: { runCommand: RunCommand }) => m.runCommand);
  return loaded;
}

export function inProcessBusy(): boolean {
  return busy;
}

/** Replaces process.env's entries with `env`'s; returns what puts the old ones back. */
function swapEnv(env: NodeJS.ProcessEnv): () => void {
  const saved = { ...process.env };
  const apply = (to: NodeJS.ProcessEnv) => {
    for (const k of Object.keys(process.env)) if (!(k in to)) delete process.env[k];
    for (const [k, v] of Object.entries(to)) if (v !== undefined) process.env[k] = v;
  };
  apply(env);
  return () => apply(saved);
}

type Write = typeof process.stdout.write;

/** stdout/stderr go to the run's buffers and read as pipes (not terminals), as a spawned svc's do. */
function capture(out: { stdout: string; stderr: string }): () => void {
  const streams = [process.stdin, process.stdout, process.stderr] as const;
  const saved = { out: process.stdout.write, err: process.stderr.write, tty: streams.map((s) => Object.getOwnPropertyDescriptor(s, "isTTY")) };
  const sink = (key: "stdout" | "stderr"): Write =>
    ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      out[key] += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
      const cb = rest.find((x) => typeof x === "function") as (() => void) | undefined;
      if (cb) process.nextTick(cb);
      return true;
    }) as Write;
  process.stdout.write = sink("stdout");
  process.stderr.write = sink("stderr");
  for (const s of streams) Object.defineProperty(s, "isTTY", { value: false, configurable: true, writable: true });
  return () => {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    streams.forEach((s, i) => {
      const d = saved.tty[i];
      if (d) Object.defineProperty(s, "isTTY", d);
      else delete (s as { isTTY?: boolean }).isTTY;
    });
  };
}

/**
 * Runs `args` in this process with `env`. A run still going at `timeoutMs` rejects (its output so far in
 * the message); the worker stays busy until it ends, so later calls spawn.
 */
export async function runInProcess(root: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<InProcessResult> {
  if (busy) throw new Error("runInProcess: another in-process svc is running (spawn instead)");
  busy = true;
  let runCommand: RunCommand;
  try {
    runCommand = await load(root);
  } catch (e) {
    busy = false;
    throw e;
  }
  const out = { stdout: "", stderr: "" };
  const restoreEnv = swapEnv(env);
  const restoreStreams = capture(out);
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    restoreStreams();
    restoreEnv();
  };
  const run = runCommand(args).finally(() => {
    restore();
    busy = false;
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      restore();
      reject(new Error(`svc (in-process) timed out after ${timeoutMs} ms; stderr: ${out.stderr}`));
    }, timeoutMs);
  });
  try {
    const code = await Promise.race([run, timedOut]);
    return { code, ...out };
  } finally {
    clearTimeout(timer);
  }
}
