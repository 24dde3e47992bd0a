/**
 * The `svc` program: global flags, the command tree, and the ONE place where errors become exit codes. Start-up cost
 * matters (`svc --version` ≤ 120 ms), so only builtins and small local modules are imported statically; commander
 * after the `--version` fast path, and each subcommand's module (which may pull in the library, zod or conf) only
 * inside its action.
 */
import { readFileSync } from "node:fs";
import { beginCommand, runCleanups } from "./core/cleanup.js";
import { addHelp, usageMessage } from "./core/help.js";
import type { ServiceErrorCode } from "../src/base.js";
import { type Verbosity, printError } from "./core/output.js";
import { GLOBAL_OPTIONS } from "./registry/globals.js";
import type { Globals } from "./registry/types.js";

/**
 * Exit codes. Keep in sync with commands/EXIT_CODES.md (docs/cli.md shows its table); CLI tests check both.
 */
export const EXIT = {
  OK: 0,
  GENERIC: 1,
  USAGE: 2,
  BROWSER: 3,
  SESSION: 4,
  NAVIGATION: 5,
  ELEMENT: 6,
  TIMEOUT: 7,
  STATE: 8,
  UNCONFIGURED: 9,
  MODEL: 10,
  INCOMPLETE: 11,
  INTERRUPTED: 130,
} as const;

/** Codes only the CLI raises (commander's usage errors, a batch with failed tasks, Ctrl-C at a prompt). */
type CliCode = "USAGE" | "INTERRUPTED";

/** Error `code` → exit code; the type checker requires every library code to be listed. */
const EXIT_BY_CODE: Readonly<Record<ServiceErrorCode | CliCode, number>> = {
  SERVICE_ERROR: EXIT.GENERIC,
  API_ERROR: EXIT.GENERIC,
  EVAL_FAILED: EXIT.GENERIC,
  DOM_PROCESS_FAILED: EXIT.GENERIC,
  NOT_INITIALIZED: EXIT.GENERIC,
  RATE_LIMITED: EXIT.GENERIC,
  CDP_PROTOCOL_ERROR: EXIT.GENERIC,
  ACT_FAILED: EXIT.GENERIC,
  QUEUE_UNAVAILABLE: EXIT.GENERIC,
  INVALID_ARGUMENT: EXIT.USAGE,
  USAGE: EXIT.USAGE,
  BROWSER_NOT_FOUND: EXIT.BROWSER,
  INIT_FAILED: EXIT.BROWSER,
  BROWSER_CLOSED: EXIT.BROWSER,
  TARGET_CRASHED: EXIT.BROWSER,
  SESSION_NOT_FOUND: EXIT.SESSION,
  CLOUD_SESSION_NOT_FOUND: EXIT.SESSION,
  MISSING_ENV_VAR: EXIT.USAGE,
  INVALID_ENVIRONMENT: EXIT.USAGE,
  NAVIGATION_FAILED: EXIT.NAVIGATION,
  FETCH_FAILED: EXIT.NAVIGATION,
  SEARCH_NOT_CONFIGURED: EXIT.UNCONFIGURED,
  UNSUPPORTED: EXIT.BROWSER,
  WEBMCP_TOOL_NOT_FOUND: EXIT.GENERIC,
  WEBMCP_TOOL_FAILED: EXIT.GENERIC,
  ELEMENT_NOT_FOUND: EXIT.ELEMENT,
  CLICK_FAILED: EXIT.ELEMENT,
  XPATH_UNRESOLVED: EXIT.ELEMENT,
  IFRAME_UNRESOLVED: EXIT.ELEMENT,
  CONTENT_FRAME_NOT_FOUND: EXIT.ELEMENT,
  SHADOW_ROOT_MISSING: EXIT.ELEMENT,
  STALE_REF: EXIT.ELEMENT,
  TIMEOUT: EXIT.TIMEOUT,
  STATE_ERROR: EXIT.STATE,
  MISSING_LLM_CONFIGURATION: EXIT.UNCONFIGURED,
  LLM_RESPONSE_ERROR: EXIT.MODEL,
  UNSUPPORTED_MODEL: EXIT.MODEL,
  INVALID_MODEL_FORMAT: EXIT.MODEL,
  AGENT_INCOMPLETE: EXIT.INCOMPLETE,
  BATCH_INCOMPLETE: EXIT.INCOMPLETE,
  ABORTED: EXIT.INTERRUPTED,
  INTERRUPTED: EXIT.INTERRUPTED,
};

/** The exit code of an error `code` (1 for a code svc does not know). */
export function exitCodeOf(code: string): number {
  return Object.hasOwn(EXIT_BY_CODE, code) ? EXIT_BY_CODE[code as keyof typeof EXIT_BY_CODE] : EXIT.GENERIC;
}

interface Classified {
  code: string;
  message: string;
  exit: number;
}

function classify(e: unknown): Classified {
  const err = e as { code?: unknown; message?: unknown; name?: unknown; exitCode?: unknown } | null;
  const message = typeof err?.message === "string" ? err.message : String(e);
  // @inquirer/prompts throws this when the user presses Ctrl-C at a prompt.
  if (err?.name === "ExitPromptError") return { code: "INTERRUPTED", message: "interrupted", exit: EXIT.INTERRUPTED };
  if (typeof err?.code === "string" && err.code.startsWith("commander.")) {
    return { code: "USAGE", message: usageMessage(message), exit: EXIT.USAGE };
  }
  if (typeof err?.code === "string" && typeof err.name === "string" && Object.hasOwn(EXIT_BY_CODE, err.code)) {
    let msg = message;
    // (not for `svc connect --auto`, which found no running Chrome: its own hint says how to allow one)
    if (err.code === "BROWSER_NOT_FOUND" && !/install|DevToolsActivePort/i.test(msg)) {
      msg += " (hint: install Chromium, e.g. apt-get install -y chromium, or set CHROME_PATH / --executable-path)";
    }
    return { code: err.code, message: msg, exit: exitCodeOf(err.code) };
  }
  if (typeof err?.code === "string" && /^[A-Z_]+$/.test(err.code)) return { code: err.code, message, exit: EXIT.GENERIC };
  return { code: "INTERNAL", message: `internal error: ${message} (rerun with --verbose 2 for details)`, exit: EXIT.GENERIC };
}

function version(): string {
  for (const rel of ["../../package.json", "../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "svc-browser" && pkg.version) return pkg.version;
    } catch {
      // try the next layout (built dist/ vs. sources)
    }
  }
  return "0.0.0";
}

/** The global flags that take a value (`--session <id>`): the word after one is not the command's name. */
const VALUED_GLOBALS = new Set(Object.values(GLOBAL_OPTIONS).filter((o) => o.flags.includes("<")).map((o) => o.flags.split(" ")[0]!));

/** Global flags as best known before commander has parsed (for errors raised during parsing). */
function prescan(argv: readonly string[]): Globals {
  const g: Globals = { json: false, verbose: 0, session: undefined };
  let command: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") break;
    if (a === "--json") g.json = true;
    if (command === undefined && a !== undefined && !a.startsWith("-") && !VALUED_GLOBALS.has(argv[i - 1] ?? "")) command = a;
    const v = a === "--verbose" ? argv[i + 1] : a?.startsWith("--verbose=") ? a.slice(10) : undefined;
    if (v === "0" || v === "1" || v === "2") g.verbose = Number(v) as Verbosity;
  }
  if (command === "agent" || command === "batch" || command === "worker") g.lines = true;
  return g;
}

let globals: Globals = prescan(process.argv.slice(2));
let exiting = false;
let exitCode: number = EXIT.OK;

/** Print the error (once) and say which exit code it means. */
function report(e: unknown): number {
  const c = classify(e);
  // `svc --json agent` or `batch` has already printed its result, which says how the run ended (IncompleteRunError).
  const reported = globals.json && (e as { reported?: unknown } | null)?.reported === true;
  if (!reported) printError(globals, c.code, c.message, e instanceof Error ? e.stack : undefined);
  return c.exit;
}

function fail(e: unknown): void {
  finish(report(e));
}

/**
 * Exit once stdout has flushed (a pipe may be asynchronous on some platforms; a truncated JSON document
 * is worse than a late exit). Exit explicitly: a lingering socket or timer must not keep the CLI alive.
 */
function finish(code: number): void {
  process.exitCode = code;
  process.stdout.write("", () => process.exit(code));
}

/** The first signal; `echo`: another listener of it was still to run, which may send it to us once more. */
let firstSignal: { signal: NodeJS.Signals; at: number; echo: boolean } | undefined;

/**
 * Set while `svc serve` runs: a signal is how a server is meant to stop, so it stops it gracefully
 * (every browser ended) and the command returns normally instead of being interrupted.
 */
let stopServing: AbortController | undefined;

function onSignal(signal: NodeJS.Signals): void {
  if (firstSignal) {
    // Some dependencies (when-exit, via conf → atomically) run their own hooks on a signal and then
    // re-raise it at this process once; that echo is not a second Ctrl-C. It comes within milliseconds, or
    // later on a busy machine whose event loop is late: when such a listener was there, one within 3 s.
    const within = Date.now() - firstSignal.at;
    if (firstSignal.signal === signal && (within < 300 || (firstSignal.echo && within < 3000))) {
      firstSignal.echo = false;
      return;
    }
    return process.exit(EXIT.INTERRUPTED); // a real second Ctrl-C: stop waiting for cleanup
  }
  firstSignal = { signal, at: Date.now(), echo: process.listeners(signal).some((l) => l !== onSignal) };
  if (stopServing) return stopServing.abort(signal);
  exiting = true;
  printError(globals, "INTERRUPTED", signal === "SIGINT" ? "interrupted" : `terminated by ${signal}`);
  void runCleanups().finally(() => finish(EXIT.INTERRUPTED));
}

function onFatal(e: unknown): void {
  if (exiting) return;
  exiting = true;
  void runCleanups().finally(() => fail(e));
}

async function main(argv: readonly string[]): Promise<void> {
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
    process.stdout.write(`${version()}\n`);
    return;
  }
  if (!embedded) {
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    process.on("SIGHUP", onSignal);
    // Last resort: a stray 'error' event or rejection inside a dependency still ends in one line, an exit
    // code, and the cleanups (no orphan Chrome), not a stack dump.
    process.on("uncaughtException", onFatal);
    process.on("unhandledRejection", onFatal);
  }

  // The command tree, its flags, help examples and actions: generated from the registry (commands/registry/).
  const { buildProgram } = await import("./registry/program.js");
  const program = buildProgram(
    {
      version: version(),
      setGlobals: (g) => (globals = g),
      globals: () => globals,
      dispatch: async (decl, invoke) => {
        if (!decl.serving) return void (await invoke(new AbortController().signal));
        // A signal is how a server or worker is meant to stop: it ends gracefully and exits 0 (Ctrl-C: 130).
        stopServing = new AbortController();
        const stoppedBy = await invoke(stopServing.signal);
        exitCode = (typeof stoppedBy === "string" ? stoppedBy : firstSignal?.signal) === "SIGINT" ? EXIT.INTERRUPTED : EXIT.OK;
      },
    },
    "Drive a real Chrome from the command line: persistent sessions, natural-language act/observe/extract, deterministic actions.",
    // The session host runs only hosted commands (host/client.ts checked the line): their part of the tree.
    (globalThis as { svcHost?: boolean }).svcHost === true ? new Set(argv) : undefined,
  );

  addHelp(program);
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (e) {
    const c = e as { code?: unknown; exitCode?: unknown };
    // --help and --version end by throwing under exitOverride(); they are not failures.
    if (c.code === "commander.helpDisplayed" || c.code === "commander.version") return;
    if (c.code === "commander.help") {
      // `svc help X` exits 0; bare `svc` or `svc sessions` print help to stderr: a usage error.
      exitCode = c.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
      return;
    }
    throw e;
  }
}

/**
 * Set (globalThis.svcEmbedded) by the session host (commands/host/main.ts) before it imports this module: then
 * nothing runs on import and no process-wide handler is installed; the host calls runCommand per request.
 */
const embedded = (globalThis as { svcEmbedded?: boolean }).svcEmbedded === true;

/** One command line, run in this process as `svc` would run it; returns its exit code (nothing exits). */
export async function runCommand(argv: readonly string[]): Promise<number> {
  beginCommand();
  globals = prescan(argv);
  exitCode = EXIT.OK;
  try {
    await main(argv);
    await runCleanups();
    return exitCode;
  } catch (e) {
    await runCleanups();
    return report(e);
  }
}

if (!embedded) {
  main(process.argv.slice(2)).then(
    async () => {
      if (exiting) return; // a signal handler owns the exit
      await runCleanups();
      finish(exitCode);
    },
    async (e: unknown) => {
      if (exiting) return;
      await runCleanups();
      fail(e);
    },
  );
}
