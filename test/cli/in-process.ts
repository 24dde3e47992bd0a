/**
 * Running one `svc` command line inside the test's own process, through the entry the session host uses (runCommand
 * with globalThis.svcEmbedded set), not a spawned `node bin/svc.js`: same code, output and exit code without a Node
 * start per command. Each run gets its own environment (swapped and restored) and captured output; `inProcessBusy()`
 * says when to spawn instead.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

interface Cli {
  runCommand: (argv: readonly string[]) => Promise<number>;
  /** What the session host uses too (commands/core/redirect-output.ts). */
  redirectOutput: typeof import("../../commands/core/redirect-output.js").redirectOutput;
}

let loaded: Promise<Cli> | undefined;
let busy = false;

function load(root: string): Promise<Cli> {
  (globalThis as { svcEmbedded?: boolean }).svcEmbedded = true;
  const built = (file: string) => import(/* @vite-ignore */ pathToFileURL(join(root, "dist", "commands", file)).href);
  loaded ??= Promise.all([built("main.js"), built("core/redirect-output.js")]).then(([main, redirect]) => ({ runCommand: main.runCommand, redirectOutput: redirect.redirectOutput }));
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

/**
 * Runs `args` in this process with `env`. A run still going at `timeoutMs` rejects (its output so far in
 * the message); the worker stays busy until it ends, so later calls spawn.
 */
export async function runInProcess(root: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<InProcessResult> {
  if (busy) throw new Error("runInProcess: another in-process svc is running (spawn instead)");
  busy = true;
  let cli: Cli;
  try {
    cli = await load(root);
  } catch (e) {
    busy = false;
    throw e;
  }
  const out = { stdout: "", stderr: "" };
  const restoreEnv = swapEnv(env);
  // stdout/stderr go to the run's buffers and every standard stream reads as a pipe, as a spawned svc's do.
  const restoreStreams = cli.redirectOutput((stream, text) => void (stream === "out" ? (out.stdout += text) : (out.stderr += text)), { isTTY: { stdin: false, stdout: false, stderr: false } });
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    restoreStreams();
    restoreEnv();
  };
  const run = cli.runCommand(args).finally(() => {
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
