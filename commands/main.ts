/**
 * The `svc` program: global flags, the command tree, and the ONE place where errors become exit codes.
 *
 * Start-up cost matters (`svc --version` ≤ 120 ms): this file imports only node builtins and two tiny
 * local modules statically; commander is imported after the `--version` fast path, and every subcommand
 * module (which may pull in the library, chrome-remote-interface, zod or conf) only inside its action.
 */
import { readFileSync } from "node:fs";
import { runCleanups } from "./cleanup.js";
import { addHelp, usageMessage } from "./help.js";
import type { ServiceErrorCode } from "../src/errors.js";
import { type GlobalOptions, type Verbosity, printError } from "./output.js";

/**
 * Exit codes. Keep in sync with commands/EXIT_CODES.md (the README's table); a CLI test checks both.
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
    if (err.code === "BROWSER_NOT_FOUND" && !/install/i.test(msg)) {
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
      if (pkg.name === "svc" && pkg.version) return pkg.version;
    } catch {
      // try the next layout (built dist/ vs. sources)
    }
  }
  return "0.0.0";
}

/** The global flags every action receives: GlobalOptions plus `--env` (cloud mode, commands/cloud.ts). */
type Globals = GlobalOptions & { env?: string | undefined };

const ENVS = ["LOCAL", "BROWSERBASE"];

/** Global flags as best known before commander has parsed (for errors raised during parsing). */
function prescan(argv: readonly string[]): Globals {
  const g: Globals = { json: false, verbose: 0, session: undefined };
  let command: string | undefined;
  const valued = new Set(["--verbose", "--session", "--env", "--downloads", "--dialog"]);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") break;
    if (a === "--json") g.json = true;
    if (command === undefined && a !== undefined && !a.startsWith("-") && !valued.has(argv[i - 1] ?? "")) command = a;
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
  // `svc --json agent` has already printed its result line, which says how the run ended.
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

  const { Command, InvalidArgumentError, Option } = await import("commander");
  const program = new Command("svc")
    .description("Drive a real Chrome from the command line: persistent sessions, natural-language act/observe/extract, deterministic actions.")
    .version(version(), "-V, --version")
    .addOption(new Option("--json", "print one JSON document on stdout (with schemaVersion)"))
    .addOption(new Option("--verbose <level>", "0 errors only, 1 info, 2 debug (and stack traces)").choices(["0", "1", "2"]))
    .addOption(new Option("--session <id>", "the session to use, by id or name (default: the most recently used live session)"))
    .addOption(
      new Option("--env <env>", "where one-shot browsers and new sessions run: LOCAL or BROWSERBASE (default: SVC_ENV, config `env`, LOCAL); given, a live session of the other kind is not used").argParser((v) => {
        const env = ENVS.find((e) => e === v.trim().toUpperCase());
        if (!env) throw new InvalidArgumentError(`must be one of ${ENVS.join(", ")}`);
        return env;
      }),
    )
    // Page-driving commands (downloads.ts, dialog.ts): where downloads go, how dialogs are answered.
    .addOption(new Option("--downloads <dir>", "where a new session's (sessions start) or a one-shot browser's downloads go (default <state>/downloads/<session id>)"))
    .addOption(new Option("--dialog <answer>", "answer JavaScript dialogs (alert/confirm/prompt) with accept or dismiss (default: the session's, else dismiss)").choices(["accept", "dismiss"]))
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ outputError: () => {} })
    .hook("preAction", (_this, action) => {
      const o = action.optsWithGlobals<{ json?: boolean; verbose?: string; session?: string; env?: string; downloads?: string; dialog?: "accept" | "dismiss" }>();
      globals = { json: !!o.json, verbose: (o.verbose ? Number(o.verbose) : 0) as Verbosity, session: o.session, env: o.env, downloads: o.downloads, dialog: o.dialog };
      // `svc agent` prints JSON lines: an error document must be one line too.
      if (["agent", "batch", "worker"].includes(action.name())) globals.lines = true;
    });

  // Each action receives the global flags; the module doing the work is imported only then.
  const g = (): Globals => globals;

  const sessions = program.command("sessions").description("start, list, show and end persistent browser sessions");
  sessions
    .command("start")
    .description("launch a Chrome that outlives this command; later commands reattach to it")
    .option("--headed", "show the browser window (default: headless)")
    .option("--idle-timeout <minutes>", "end the session after this many idle minutes (default 60)")
    .option("--viewport <WxH>", "viewport size, e.g. 1280x720")
    .option("--executable-path <path>", "Chrome/Chromium to launch (default: CHROME_PATH or the installed one)")
    .option("--cloud", "create the session on the cloud platform (also when --env / config `env` is BROWSERBASE)")
    .option("--timeout <seconds>", "cloud session: its lifetime (default: the platform's)")
    .option("--name <name>", "a name to use wherever a session id is taken (--session NAME); unique among live sessions")
    .option("--state <file>", "start signed in: apply cookies and storage saved by `svc state save`")
    .action(async (opts) => (await import("./sessions.js")).start(g(), opts));
  sessions
    .command("list")
    .description("list recorded sessions and whether each is alive")
    .action(async () => (await import("./sessions.js")).list(g()));
  sessions
    .command("show <id>")
    .description("show one session (also an ended one's metrics)")
    .action(async (id: string) => (await import("./sessions.js")).show(g(), id));
  sessions
    .command("end [id]")
    .description("end a session: kill its Chrome and delete its profile (history and metrics are kept)")
    .option("--all", "end every recorded session")
    .action(async (id: string | undefined, opts) => (await import("./sessions.js")).end(g(), id, opts));

  // Saved logins (commands/state.ts).
  const state = program.command("state").description("save a session's login (cookies, local and session storage) to a file, or load one");
  state
    .command("save <file>")
    .description("write the session's cookies and the storage of its open origins to FILE (0600; encrypted when state.key is set)")
    .option("--encrypt", "refuse to write unless the file can be encrypted (state.key / SVC_STATE_KEY set)")
    .action(async (file: string, opts) => (await import("./state.js")).save(g(), file, opts));
  state
    .command("load <file>")
    .description("apply a saved state to the session (cookies to the browser, storage through the active tab)")
    .action(async (file: string) => (await import("./state.js")).load(g(), file));

  // Navigation, waits and tabs (commands/goto.ts, navigate.ts, wait.ts, tabs.ts): all on the session's selected tab.
  for (const [name, about] of [
    ["open", "open URL in the live session's selected tab, starting a session (configured defaults) when none is live; same as goto"],
    ["goto", "navigate the session's selected tab, starting a session when none is live (localhost:3000/x means http://localhost:3000/x); a 4xx/5xx page still loads (exit 0) and says its status"],
  ] as const) {
    program
      .command(`${name} <url>`)
      .description(about)
      .option("--timeout <ms>", "give up after this many milliseconds (default 30000)")
      .addOption(new Option("--wait-until <state>", "when the navigation is done: load (default), domcontentloaded or networkidle").choices(["load", "domcontentloaded", "networkidle"]))
      .action(async (url: string, opts) => (await import("./goto.js")).goto(g(), url, opts, name));
  }
  for (const which of ["back", "forward", "reload"] as const) {
    program
      .command(which)
      .description(which === "reload" ? "reload the session's selected tab" : `go ${which} in the selected tab's history`)
      .option("--timeout <ms>", "give up after this many milliseconds (default 30000)")
      .action(async (opts) => (await import("./navigate.js")).move(g(), which, opts));
  }
  program
    .command("wait [target]")
    .usage("<ref|selector|ms> | --text T | --url PATTERN | --load [state]")
    .description("wait until an element (a ref from the last snapshot, or a selector) is visible, some time passes, text appears, the URL matches or the page loads; a wait that runs out exits 7 (TIMEOUT)")
    .option("--text <text>", "wait until the page's text contains this")
    .option("--url <pattern>", "wait until the URL matches (* any but /, ** anything; no * means contains)")
    .option("--load [state]", "wait until the page reached load (default), domcontentloaded or networkidle")
    .option("--timeout <ms>", "give up after this many milliseconds (default 30000)")
    .action(async (target: string | undefined, opts) => (await import("./wait.js")).wait(g(), target, opts));
  program
    .command("eval <js>")
    .description("evaluate a JavaScript expression in the selected tab and print its value as JSON (a promise is awaited)")
    .action(async (js: string) => (await import("./navigate.js")).evaluate(g(), js));
  program
    .command("tabs [action] [arg]")
    .usage("[list | new [URL] | select N | close [N]]")
    .description("list, open, select or close the session's tabs; tab numbers stay put when another tab closes, and later commands drive the selected tab")
    .action(async (action: string | undefined, arg: string | undefined) => (await import("./tabs.js")).tabs(g(), action, arg));
  // Downloads and dialogs of the session (commands/downloads.ts, dialog.ts; --downloads/--dialog are global).
  program
    .command("downloads")
    .description("list the session's downloads (name, size, state, when, URL); they are saved in its download folder (--downloads on sessions start)")
    .action(async () => (await import("./downloads.js")).downloads(g()));
  program
    .command("dialog <action> [text]")
    .usage("accept [text] | dismiss")
    .description("answer the session's JavaScript dialog: the one open now, else the next one (a prompt() accepted returns TEXT)")
    .action(async (action: string, text: string | undefined) => (await import("./dialog.js")).dialog(g(), action, text));
  // The model-backed commands share these options.
  const modelOptions = (cmd: InstanceType<typeof Command>, variables: boolean) => {
    cmd
      .option("--model <provider/model>", "model to use (default: SVC_MODEL, config `model`, openai/gpt-4.1-mini)")
      .option("--timeout <ms>", "give up after this many milliseconds");
    if (variables) {
      cmd
        .option("--var <name=value>", "a %name% variable; its value is never sent to the model (repeatable; --variables is the same flag)", collect, undefined)
        .option("--variables <name=value>", "same as --var", collect, undefined)
        .option("--var-file <file.json>", 'variables from a JSON object of name → value or {"value","description"}');
    }
    return cmd;
  };
  const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];
  // `--var` and `--variables` are one flag under two names (the agent's and the library's word for it).
  const vars = <T extends { var?: string[]; variables?: string[] }>(o: T): T => {
    const all = [...(o.variables ?? []), ...(o.var ?? [])];
    return { ...o, var: all.length ? all : undefined, variables: all.length ? all : undefined };
  };

  modelOptions(
    program
      .command("act [instruction]")
      .description("do what the instruction says (one model call), or run one Action deterministically with --action")
      .option("--action <json|@file>", `Action JSON {"selector","description","method","arguments"} or @file.json (no model)`)
      .option("--cache-dir <dir>", "replay a stored success for the same instruction and page with no model call; store new ones"),
    true,
  ).action(async (instruction: string | undefined, opts) => (await import("./act.js")).act(g(), instruction, vars(opts)));
  modelOptions(
    program
      .command("observe [instruction]")
      .description("list the Actions a model finds on the page for the instruction (or every actionable element)")
      .option("--selector <selector>", "only look inside this element"),
    true,
  ).action(async (instruction: string | undefined, opts) => (await import("./observe.js")).observe(g(), instruction, vars(opts)));
  modelOptions(
    program
      .command("extract [args...]")
      .usage('["instruction"] [url] [options]')
      .description("print the page text; with an instruction, what the model extracts (--schema: JSON validated against it); with a URL, on the current live session (a one-shot browser when there is none, or with --new)")
      .option("--schema <schema.json>", "a JSON Schema file: the result is an object that fits it (URL fields as real URLs)")
      .option("--selector <selector>", "only read inside this element")
      .option("--new", "run on a browser of its own (one-shot), even when a session is live")
      .option("--headed", "one-shot browser: show the window")
      .option("--viewport <WxH>", "one-shot browser: viewport size")
      .option("--executable-path <path>", "one-shot browser: Chrome/Chromium to launch"),
    true,
  ).action(async (args: string[], opts) => (await import("./extract.js")).extract(g(), args ?? [], vars(opts)));
  // Verbs on refs (commands/verbs.ts, snapshot.ts, get.ts): a snapshot's refs, one Action per verb, reads.
  program
    .command("snapshot [url]")
    .description("print the page's outline with refs (e1, e2, …) for the verbs: svc click e3; --json: {snapshot, refs}. With a URL: like extract URL, on the live session, else a browser for this command only")
    .option("-i, --interactive", "only elements with a ref (plus headings)")
    .option("--max-tokens <n>", "fit the outline into about n tokens (ref lines always stay)")
    .option("-s, --selector <selector>", "only this element's subtree")
    .option("--new", "with a URL: a browser of its own for this command, even when a session is live")
    .action(async (url: string | undefined, opts) => (await import("./snapshot.js")).snapshot(g(), opts, url));
  for (const [usage, about] of [
    ["click <target>", "click the element (a ref from `svc snapshot`, or a selector)"],
    ["dblclick <target>", "double-click the element"],
    ["hover <target>", "move the pointer onto the element"],
    ["focus <target>", "focus the element"],
    ["fill <target> <value>", "replace the field's value"],
    ["type <target> <text>", "type key by key into the element"],
    ["press <target-or-key> [key]", "press a key (Enter, Tab, Control+A…): svc press e3 Enter, or svc press Enter on the focused element"],
    ["select <target> <option>", "choose an option of a <select> by its text or value"],
    ["check <target>", "check a checkbox or radio button (nothing if already checked)"],
    ["uncheck <target>", "uncheck a checkbox (nothing if already unchecked)"],
    ["scroll [target] [where]", "scroll the page or the element: down (default), up, top, bottom or N%"],
    ["drag <from> <to>", "drag one element onto another"],
    ["upload <target> <files...>", "set the files of an <input type=file>"],
  ] as const) {
    program
      .command(usage)
      .description(about)
      .option("--timeout <ms>", "give up after this many milliseconds")
      .action(async (...a: unknown[]) => {
        const cmd = a[a.length - 1] as InstanceType<typeof Command>;
        await (await import("./verbs.js")).runVerb(g(), cmd.name(), cmd.args, cmd.opts());
      });
  }
  program
    .command("get <what> [args...]")
    .usage("text|value|attr NAME|url|title [ref|selector]")
    .description("print the page's url or title, or an element's text, value or attribute (text without a target: the page's)")
    .action(async (what: string, args: string[] | undefined) => (await import("./get.js")).get(g(), what, args ?? []));
  program
    .command("screenshot [url]")
    .description("save a PNG of the page and print its path; with a URL, on the current live session (a one-shot browser when there is none, or with --new)")
    .option("-o, --output <file>", "where to write the PNG (default: screenshot-<time>.png in the current folder)")
    .option("--full-page", "capture the whole page, not just the viewport")
    .option("--new", "run on a browser of its own (one-shot), even when a session is live")
    .option("--headed", "one-shot browser: show the window")
    .option("--viewport <WxH>", "one-shot browser: viewport size")
    .option("--executable-path <path>", "one-shot browser: Chrome/Chromium to launch")
    .action(async (url: string | undefined, opts) => (await import("./screenshot.js")).screenshot(g(), url, opts));
  program
    .command("fetch <url>")
    .description("fetch a page without any key: plain HTTP (or Chrome with --browser), printed as markdown, text, html, raw or json")
    .option("--format <format>", "markdown (readable content), text, html, raw (the bytes as text) or json", "markdown")
    .option("--browser", "render the page in Chrome first (pages that build themselves with JavaScript)")
    .option("--timeout <ms>", "give up after this long (default 30000)")
    .option("--max-bytes <n>", "refuse bodies larger than this (default 10485760)")
    .option("--no-redirects", "do not follow redirects")
    .option("-o, --output <file>", "write the content to a file instead of stdout")
    .action(async (url: string, opts) => (await import("./fetch.js")).fetchCommand(g(), url, opts));
  program
    .command("search <query>")
    .description("web search through the configured backend (search.url: a SearXNG instance; or the platform with --env BROWSERBASE): a ranked list")
    .option("-n, --num-results <n>", "how many results, 1–25", "10")
    .action(async (query: string, opts) => (await import("./search.js")).searchCommand(g(), query, opts));
  program
    .command("agent <instruction>")
    .description("run a multi-step task on the current live session (a one-shot browser when there is none, or with --new): a live view at a terminal; JSON lines (one per event, then the result) with --json or when piped")
    .option("--url <url>", "open this URL first")
    .addOption(new Option("--mode <mode>", "dom (page outline, default), hybrid (adds screenshots and coordinate tools) or cua").choices(["dom", "hybrid", "cua"]))
    .option("--model <provider/model>", "model for the agent's steps (default: SVC_MODEL, config `model`, openai/gpt-4.1-mini)")
    .option("--execution-model <provider/model>", "model for the act/extract tools' own calls (default: --model)")
    .option("--max-steps <n>", "stop after n steps (default 20)")
    .option("--max-tokens <n>", "stop once the run's model calls used n tokens (input + output)")
    .option("--timeout <ms>", "stop the run after this many milliseconds")
    .option("--tool-timeout <ms>", "a tool that runs longer reports an error to the model (default 30000)")
    .option("--var <name=value>", "a %name% variable; its value is never sent to the model nor printed (repeatable; --variables is the same flag)", collect, undefined)
    .option("--variables <name=value>", "same as --var", collect, undefined)
    .option("--var-file <file.json>", 'variables from a JSON object of name → value or {"value","description"}')
    .option("--cache-dir <dir>", "replay the steps of a stored successful run with no model calls (the model then answers from the page); store new ones")
    .option("--search", "give the agent a web search tool (backend: config search.url / SVC_SEARCH_URL; with --env BROWSERBASE, the server's)")
    .option("--loop-repeats <n>", "identical steps on an unchanged page before the agent is warned it is looping (default 3)")
    .option("--loop-warnings <n>", "loop warnings before the run stops with completed false (default 2)")
    .option("--no-loop-detection", "never warn about or stop a looping agent")
    .option("--record <dir>", "write a screenshot per step and a self-contained report.html to this directory")
    .option("--new", "run on a browser of its own (one-shot), even when a session is live")
    .option("--headed", "one-shot browser: show the window")
    .option("--viewport <WxH>", "one-shot browser: viewport size")
    .option("--executable-path <path>", "one-shot browser: Chrome/Chromium to launch")
    .action(async (instruction: string, opts) => (await import("./agent.js")).agent(g(), instruction, vars(opts)));
  program
    .command("history")
    .description("print a session's history with tokens and time per call (ended sessions too; --session default for one-shot runs)")
    .option("--limit <n>", "only the last n entries")
    .action(async (opts) => (await import("./history.js")).history(g(), opts));
  program
    .command("metrics")
    .description("print a session's tokens and inference time per operation, summed over its commands")
    .action(async () => (await import("./metrics.js")).metrics(g()));

  const config = program.command("config").description("read and write stored settings (API keys, launch defaults)");
  config
    .command("get <key>")
    .description("print the effective value (env > stored > default); secrets masked")
    .action(async (key: string) => (await import("./config.js")).get(g(), key));
  config
    .command("set <key> <value>")
    .description("store a value")
    .action(async (key: string, value: string) => (await import("./config.js")).set(g(), key, value));
  config
    .command("unset <key>")
    .description("remove a stored value")
    .action(async (key: string) => (await import("./config.js")).unset(g(), key));
  config
    .command("list")
    .description("every known key with its effective value and where it comes from")
    .action(async () => (await import("./config.js")).list(g()));
  config
    .command("path")
    .description("print the config file's path")
    .action(async () => (await import("./config.js")).path(g()));

  const serveCommand = program
    .command("serve")
    .description("serve the HTTP API (session API + platform API) on this machine until SIGINT/SIGTERM; every session is a Chrome here")
    .option("--port <port>", "port to listen on (0: any free port)", "3000")
    .option("--host <host>", "interface to listen on", "127.0.0.1")
    .option("--api-key <key>", "a key clients must send as x-bb-api-key (repeatable; default: SVC_API_KEYS, config server.apiKeys)", collect, undefined)
    .option("--max-sessions <n>", "browser sessions at once; past it, new ones wait in the queue or get 429 (default 8)")
    .option("--queue <n>", "session starts that may wait for a free slot; past it, 429 QUEUE_FULL (default 0)")
    .option("--queue-timeout <seconds>", "longest wait of a queued start; past it, 429 QUEUE_TIMEOUT (default 30)")
    .option("--max-cpu <percent>", "no new session while the machine's CPU is busier than this (percent of all cores)")
    .option("--max-memory <size>", "no new session while svc serve and its Chromes hold more than this, e.g. 6G")
    .option("--drain-timeout <seconds>", "on SIGTERM/SIGINT: how long requests in flight may finish before they are ended (default 5)")
    .option("--warm-browsers <n>", "Chromes kept started and ready so a session starts at once (0–8, default 1)")
    .option("--session-timeout <seconds>", "lifetime of a browser session that asks for none (default 3600)")
    .option("--idle-timeout <seconds>", "end an API session after this long without a request (default 900)")
    .option("--body-limit <bytes>", "largest request body (default 10485760)")
    .option("--cache-dir <dir>", "the server's act/agent cache (default: <state dir>/server-cache)")
    .option("--data-dir <dir>", "the server's data, e.g. saved contexts (default: SVC_DATA_DIR, else <state dir>/server-data)")
    .option("--data-key <secret>", "secret the server's data is encrypted with, ≥16 characters (default: SVC_DATA_KEY; with a Redis store derived from the cluster secret; else generated into <data dir>/data.key)")
    .option("--public-url <url>", "the origin clients reach this server at, for connectUrl (default http://HOST:PORT)")
    .option("--search-url <url>", "SearXNG instance behind POST /v1/search (default: SVC_SEARCH_URL, config search.url; none: 501)")
    .option("--isolate", "isolate tenants even with one API key (default: on with more than one key): browsers reach only the public web")
    .option("--allow-net <host|cidr>", "an address isolated tenants may reach anyway: HOST, HOST:PORT, IP, IP:PORT, CIDR or .suffix (repeatable)", collect, undefined)
    .option("--model-endpoints <url>", "a model endpoint (URL prefix) a request may choose as its baseURL (repeatable; default: any the address policy allows)", collect, undefined)
    // svc serve as a cluster (issue 13)
    .option("--store <memory|redis://host:port>", "session store: memory (one server) or a Redis every replica shares (default: SVC_STORE, config server.store, else memory)")
    .option("--advertise-url <url>", "with a Redis store: how other replicas reach this one (default: SVC_ADVERTISE_URL, else http://HOST:PORT)")
    .option("--cluster-secret <secret>", "with a Redis store: secret shared by every replica, ≥16 characters (default: SVC_CLUSTER_SECRET, config server.clusterSecret)")
    .option("--cluster-lease <ms>", "with a Redis store: the lease a replica renews on its sessions (200–15000, default 10000)")
    .option("--cluster-heartbeat <ms>", "with a Redis store: how often a replica renews its leases (default: a quarter of the lease)")
    .option("--cluster-grace <ms>", "with a Redis store: a replica silent for lease + grace is taken for dead, its sessions answer 410 (0–60000, default: the lease)")
    .option("--headed", "show the browsers' windows (default: headless)")
    .option("--viewport <WxH>", "default viewport of the browsers, e.g. 1280x720")
    .option("--executable-path <path>", "Chrome/Chromium to launch (default: CHROME_PATH or the installed one)");
  // Per-key bounds (downloads, Stagehand cache, extensions, Model Gateway): one table, see serve-limits.ts.
  for (const [flag, help] of (await import("./serve-limits.js")).limitOptionSpecs()) serveCommand.option(flag, help);
  serveCommand.action(async (opts) => {
    stopServing = new AbortController();
    const stoppedBy = await (await import("./serve.js")).serve(g(), opts, stopServing.signal);
    // A server stopped by SIGTERM (or SIGHUP) did what it was asked: success. Ctrl-C is 130, as everywhere.
    exitCode = stoppedBy === "SIGINT" ? EXIT.INTERRUPTED : EXIT.OK;
  });

  // svc mcp (issue 12, MCP server)
  program
    .command("mcp")
    .description("serve svc's browser tools to an MCP host (stdio; or --http): one browser per client, closed when the client goes")
    .option("--http", "streamable HTTP on /mcp instead of stdio")
    .option("--port <port>", "with --http: port to listen on (0: any free port)", undefined)
    .option("--host <host>", "with --http: interface to listen on (default 127.0.0.1)")
    .option("--idle-timeout <seconds>", "with --http: end an MCP session after this long without a request (default 1800)")
    .option("--token <token>", "with --http: the bearer token every request must carry (default: SVC_MCP_TOKEN, else one generated and printed)")
    .option("--allow-file-urls", "let navigate and tabs open file: URLs (default: http and https only)")
    .option("--model <provider/model>", "model for act/extract/observe/agent (default: SVC_MODEL, config model)")
    .option("--cache-dir <dir>", "act/agent cache directory")
    .option("--headed", "show the browser window (default: headless)")
    .option("--viewport <WxH>", "viewport, e.g. 1280x720")
    .option("--executable-path <path>", "Chrome/Chromium to launch (default: CHROME_PATH or the installed one)")
    .addHelpText("after", '\nIn an MCP host config: {"mcpServers": {"svc": {"command": "svc", "args": ["mcp"]}}}')
    .action(async (opts) => {
      stopServing = new AbortController();
      await (await import("./mcp.js")).mcp(g(), opts, stopServing.signal, version());
      exitCode = firstSignal?.signal === "SIGINT" ? EXIT.INTERRUPTED : EXIT.OK;
    });

  // svc batch / svc worker (issue 13, agent batches: commands/batch.ts, commands/worker.ts, commands/batch/)
  program
    .command("batch [tasks.jsonl]")
    .description("run agent tasks (one JSON object per line: instruction, url, maxSteps, variables, model, output) on a local pool, or on BullMQ workers with --queue; results as JSON lines in input order; exit 11 when some task did not succeed")
    .option("--concurrency <n>", "local pool: tasks (browsers) at once (default: CPUs, at most 4)")
    .option("-o, --output <file>", "write the results (JSON lines, input order) to this file; print only the summary")
    .option("--task-timeout <ms>", "wall time of a task that names no timeoutMs (default 300000)")
    .option("--queue <redis-url>", "enqueue the tasks on this Redis for `svc worker`s and collect their results")
    .option("--queue-key <key>", "encrypt task variables for the queue with this key (default: SVC_QUEUE_KEY); required with variables")
    .option("--attempts <n>", "queue: tries per task when its browser crashes or its worker dies (default 3)")
    .option("--detach", "queue: print the batch id and exit; collect later with --results")
    .option("--results <batchId>", "queue: collect the results of an earlier batch (waits for the missing ones)")
    .option("--headed", "show the browser windows")
    .option("--viewport <WxH>", "viewport size of the browsers")
    .option("--executable-path <path>", "Chrome/Chromium to launch")
    .action(async (file: string | undefined, opts) => (await import("./batch.js")).batch(g(), file, opts));
  program
    .command("worker")
    .description("take agent tasks of `svc batch --queue` from Redis and run them, until SIGINT/SIGTERM (running tasks finish first)")
    .option("--queue <redis-url>", "the Redis the batches are queued on")
    .option("--queue-key <key>", "the key task variables were encrypted with (default: SVC_QUEUE_KEY)")
    .option("--concurrency <n>", "tasks (browsers) at once (default 1)")
    .option("--lock-duration <ms>", "how long a dead worker's task stays locked before another worker retries it (default: SVC_WORKER_LOCK_MS, 30000)")
    .option("--drain-timeout <ms>", "on SIGTERM, how long running tasks may finish before they are aborted and retried elsewhere (default 60000)")
    .option("--name <name>", "this worker's name in job records and its output (default HOST:PID)")
    .option("--headed", "show the browser windows")
    .option("--viewport <WxH>", "viewport size of the browsers")
    .option("--executable-path <path>", "Chrome/Chromium to launch")
    .action(async (opts) => {
      stopServing = new AbortController();
      await (await import("./worker.js")).worker(g(), opts, stopServing.signal);
      exitCode = firstSignal?.signal === "SIGINT" ? EXIT.INTERRUPTED : EXIT.OK;
    });

  program
    .command("init")
    .description("interactively store model API keys and default launch options")
    .action(async () => (await import("./init.js")).init(g()));

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
 * Set (globalThis.svcEmbedded) by the session host (commands/host.ts) before it imports this module: then
 * nothing runs on import and no process-wide handler is installed; the host calls runCommand per request.
 */
const embedded = (globalThis as { svcEmbedded?: boolean }).svcEmbedded === true;

/** One command line, run in this process as `svc` would run it; returns its exit code (nothing exits). */
export async function runCommand(argv: readonly string[]): Promise<number> {
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
