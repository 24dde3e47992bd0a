/**
 * Spawning the BUILT `svc` (bin/svc.js → dist/) with its own state dir, config dir and TMPDIR, so each
 * test can check exactly what it left behind: Chrome processes (marked with the sandbox's TMPDIR:
 * test/support/process.ts, wherever svc put their run dirs), files in TMPDIR, temp/lock files in the state dir.
 */
import { type FakeModel, startFakeModel } from "../support/fake-model.js";
import { type FixtureServer, startFixtureServer } from "../support/server.js";
import { EVENT_WAIT_MS } from "../support/timing.js";
import { type Truthy, waitFor as supportWaitFor } from "../support/wait.js";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { runBase } from "../../src/browser/run-dir.js";
import { standIn, useResource } from "../support/use-resource.js";
import { inProcessBusy, runInProcess } from "./in-process.js";
import { TEST_MARK, killMarked, killProcessesMentioning, processesMentioning } from "../support/process.js";
export { chromePidsOf, chromeProcessesOf, expectNoChrome, pidAlive, processesMentioning } from "../support/process.js";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const BIN = join(ROOT, "bin", "svc.js");
export const CHROMIUM = process.env.CHROME_PATH && existsSync(process.env.CHROME_PATH) ? process.env.CHROME_PATH : "/usr/bin/chromium";

export function assertBuilt(): void {
  if (!existsSync(join(ROOT, "dist", "commands", "main.js"))) {
    throw new Error("dist/ is missing: run `npm run build` before the CLI tests (npm test does)");
  }
}

export interface Sandbox {
  state: string;
  config: string;
  tmp: string;
  /** Where svc puts this sandbox's Chrome run dirs: `tmp`, or /tmp when `tmp` is too long (src/browser/run-dir.ts). */
  runBase: string;
  env: NodeJS.ProcessEnv;
  /**
   * A TMPDIR for a Chrome the test starts itself (the user's own): Chrome leaves its singleton folder there when
   * killed, and cleanup() removes it. Short enough for Chrome's socket path whatever TMPDIR is.
   */
  userChromeTmp(): string;
  cleanup(): void;
}

/** Fresh state, config and temp dirs; `env` is what every svc spawned in this sandbox gets (marked with `tmp`). */
export function sandbox(extraEnv: NodeJS.ProcessEnv = {}): Sandbox {
  const base = mkdtempSync(join(tmpdir(), "svc-cli-"));
  const state = join(base, "state");
  const config = join(base, "config");
  const tmp = mkdtempSync(join(base, "tmp-"));
  const env: NodeJS.ProcessEnv = { ...process.env, SVC_STATE_DIR: state, SVC_CONFIG_DIR: config, TMPDIR: tmp, [TEST_MARK]: tmp, CHROME_PATH: CHROMIUM, ...extraEnv };
  // The outer environment's keys and svc settings do not steer svc under test. Nor does NODE_EXTRA_CA_CERTS: svc
  // here makes no TLS connection, and each Node start (every spawned svc, every session host) would parse the whole
  // bundle, 75 ms of CPU where a distribution's is set.
  for (const k of ["NODE_EXTRA_CA_CERTS", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY", "GROQ_API_KEY", "DEEPSEEK_API_KEY", "SVC_MODEL", "SVC_MODEL_BASE_URL", "SVC_HEADLESS", "SVC_VIEWPORT", "SVC_IDLE_TIMEOUT_MINUTES", "SVC_STATE_KEY", "XDG_STATE_HOME"]) {
    if (!(k in extraEnv)) delete env[k];
  }
  const chromeRunBase = runBaseWith(tmp);
  const userTmps: string[] = [];
  return {
    state,
    config,
    tmp,
    runBase: chromeRunBase,
    env,
    userChromeTmp() {
      const dir = mkdtempSync(join(chromeRunBase, "svc-user-chrome-"));
      userTmps.push(dir);
      return dir;
    },
    cleanup() {
      killMarked(tmp);
      killProcessesMentioning(base);
      for (const dir of [base, ...userTmps]) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

/** svc's runBase() for a process whose TMPDIR is `tmp`. */
function runBaseWith(tmp: string): string {
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  try {
    return runBase();
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Every svc() spawns `node bin/svc.js` when set (SVC_TEST_SPAWN=1), as the files that test the process
 * itself (signals, the thin client and its session host) do through `spawnOnly()`.
 */
let spawnEveryCall = process.env.SVC_TEST_SPAWN === "1";

/**
 * This file's svc() calls all spawn the built bin (for tests of the process: its host, its exit, its stdin).
 * Called at a file's top; the next file run by the same worker (which shares this module) starts without it.
 */
export function spawnOnly(): void {
  spawnEveryCall = true;
  afterAll(() => {
    spawnEveryCall = process.env.SVC_TEST_SPAWN === "1";
  });
}

/**
 * `svc args` with `env`: run in this process through the CLI's own entry (./in-process.ts) — the same code,
 * output and exit code without a Node start per command — or, when the caller gives stdin input, another
 * command runs in this process at the moment, or spawnOnly()/SVC_TEST_SPAWN=1 says so, by spawning the
 * built bin. `signal` is null for an in-process run.
 */
export async function svc(args: readonly string[], env: NodeJS.ProcessEnv, options: { timeoutMs?: number; input?: string; fullCli?: boolean } = {}): Promise<RunResult> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  // fullCli: the full CLI is what is wanted (never the session host), so this process runs it even in a spawnOnly() file.
  if ((spawnEveryCall && !options.fullCli) || options.input !== undefined || inProcessBusy() || process.cwd() !== ROOT) {
    return collect(spawnSvc(args, env), timeoutMs, options.input);
  }
  return { ...(await runInProcess(ROOT, args, env, timeoutMs)), signal: null };
}

export function spawnSvc(args: readonly string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], { env, cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
}

export function collect(child: ChildProcess, timeoutMs = 60_000, input?: string): Promise<RunResult> {
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr?.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  if (input !== undefined) child.stdin?.end(input);
  else child.stdin?.end();
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`svc timed out after ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
  });
}


/** Command lines of the processes mentioning `needle`, for assertion messages. */
export function commandsMentioning(needle: string): string[] {
  return processesMentioning(needle).map((p) => {
    try {
      return `${p}: ${readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0").join(" ").slice(0, 300)}`;
    } catch {
      return `${p}: (exited)`;
    }
  });
}

/** Wait until no process mentions `needle`; then assert it (so a failure lists the survivors). */
export async function expectNoProcesses(needle: string, timeoutMs = EVENT_WAIT_MS): Promise<void> {
  await pollUntil(() => processesMentioning(needle).length === 0, timeoutMs);
  const left = commandsMentioning(needle);
  if (left.length) throw new Error(`processes left behind:\n${left.join("\n")}`);
}

/** Wait until `dir` is empty; then assert it (listing what is left). */
export async function expectEmptyDir(dir: string, timeoutMs = EVENT_WAIT_MS): Promise<void> {
  await pollUntil(() => filesUnder(dir).length === 0, timeoutMs);
  const left = filesUnder(dir);
  if (left.length) throw new Error(`files left behind in ${dir}:\n${left.join("\n")}`);
}

/**
 * Polls `check` until it holds (true) or `timeoutMs` pass (false), for a caller that then asserts with a
 * message of its own (what is left, what the process printed); the default is a bound on a hang.
 */
export async function pollUntil(check: () => boolean, timeoutMs = EVENT_WAIT_MS, stepMs = 100): Promise<boolean> {
  return supportWaitFor(check, timeoutMs, stepMs).then(
    () => true,
    () => false,
  );
}

/** The tests' one waitFor (test/support/wait.ts: throws when the condition never holds), polling every 100 ms here: checks read /proc. */
export function waitFor<T>(check: () => T | Promise<T>, timeoutMs = EVENT_WAIT_MS, stepMs = 100): Promise<Truthy<T>> {
  return supportWaitFor(check, timeoutMs, stepMs);
}

/** Everything under `dir`, recursively, as relative paths (empty when `dir` does not exist). */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string, prefix: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const rel = prefix ? `${prefix}/${e.name}` : e.name;
      out.push(rel);
      if (e.isDirectory()) walk(join(d, e.name), rel);
    }
  };
  walk(dir, "");
  return out;
}

/** Temp or lock files the store might leave after a crash mid-write. */
export function strayStateFiles(state: string): string[] {
  return filesUnder(state).filter((f) => /\.tmp$|\.lock$/.test(f));
}

/**
 * The temp and lock files left in a live session's state dir once they settle: its host writes the session's
 * logs between commands (each write a temp file renamed into place), so one may be seen mid-write; a file
 * left behind stays, and is returned after EVENT_WAIT_MS.
 */
export async function settledStrayStateFiles(state: string): Promise<string[]> {
  let left: string[] = [];
  await waitFor(() => (left = strayStateFiles(state)).length === 0).catch(() => undefined);
  return left;
}

/** stderr is exactly one `svc: …` line (no stack trace, no extra output). */
export function expectOneLine(stderr: string): string {
  const lines = stderr.split("\n").filter((l) => l.length > 0);
  if (lines.length !== 1 || !lines[0]!.startsWith("svc: ")) {
    throw new Error(`expected exactly one "svc: …" line on stderr, got:\n${stderr}`);
  }
  return lines[0]!;
}

export function json<T = Record<string, unknown>>(stdout: string): T {
  return JSON.parse(stdout) as T;
}

/** Python with its pty module: Node has no built-in pseudo-terminal, so interactive tests drive one with it. */
export const hasPython = spawnSync("python3", ["-c", "import pty"], { stdio: "ignore" }).status === 0;

/**
 * `python3 -c PTY_DRIVER '<argv JSON>' '<[[prompt, answer], …] JSON>'`: runs argv in a pseudo-terminal,
 * waits for each prompt text and types its answer; prints everything the terminal showed and exits with
 * the child's code.
 */
export const PTY_DRIVER = String.raw`
import fcntl, json, os, pty, select, struct, sys, termios, time
argv, answers = json.loads(sys.argv[1]), json.loads(sys.argv[2])
pid, fd = pty.fork()
if pid == 0:
    # A 40x120 terminal: with no size set, Ink sees 0 columns and wraps every character.
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    os.execvp(argv[0], argv)
out = b""
def pump(seconds):
    global out
    end = time.time() + seconds
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                out += os.read(fd, 4096)
            except OSError:
                return
for prompt, answer in answers:
    end = time.time() + 20
    while prompt.encode() not in out.split(b"\n")[-1] and prompt.encode() not in out[-400:] and time.time() < end:
        pump(0.1)
    os.write(fd, answer.encode())
    pump(0.3)
# Read until the child exits (a command may print long after the last answer), then what is left.
status = None
while status is None:
    pump(0.2)
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        status = st
pump(0.3)
sys.stdout.write(out.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(status))
`;

/**
 * The environment of a person at a terminal: without the CI markers a CI runner sets (CI, CI_*,
 * CONTINUOUS_INTEGRATION). Ink sees those and renders only the final frame, so a test of the live view
 * would wait for a frame that never comes.
 */
export function terminalEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([k]) => k !== "CI" && k !== "CONTINUOUS_INTEGRATION" && !k.startsWith("CI_")));
}

/** Run `svc args` in a pseudo-terminal (stdin, stdout and stderr all TTYs), answering `answers` in turn. */
export function svcInPty(args: readonly string[], answers: readonly [string, string][], env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<{ code: number | null; out: string }> {
  const child = spawn("python3", ["-c", PTY_DRIVER, JSON.stringify([process.execPath, BIN, ...args]), JSON.stringify(answers)], { env: terminalEnv(env), cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr?.setEncoding("utf8").on("data", (d: string) => (out += d));
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`svc (pty) timed out after ${timeoutMs} ms; output: ${out}`));
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolvePromise({ code, out });
    });
  });
}

/** A fixture server, the fake model and a sandbox whose env points svc's model at the fake. */
export interface ModelWorld {
  server: FixtureServer;
  fake: FakeModel;
  sb: Sandbox;
  close(): Promise<void>;
}

/**
 * A test file's model world: started in beforeAll, closed in afterAll, its fake model's script and log reset
 * before each test. Each part stands for the started one, so `const { server, fake, sb } = useModelWorld()`
 * works at the top of a file.
 */
export function useModelWorld(): ModelWorld {
  const world = useResource("the model world", startModelWorld);
  beforeEach(() => world.fake.reset());
  const part = <K extends "server" | "fake" | "sb">(key: K) => standIn(`the model world's ${key}`, () => world[key]);
  return { server: part("server"), fake: part("fake"), sb: part("sb"), close: () => world.close() };
}

export async function startModelWorld(): Promise<ModelWorld> {
  assertBuilt();
  const [server, fake] = await Promise.all([startFixtureServer(), startFakeModel()]);
  const sb = sandbox({ OPENAI_API_KEY: "sk-test", SVC_MODEL_BASE_URL: fake.baseURL() });
  return {
    server,
    fake,
    sb,
    async close() {
      sb.cleanup();
      await Promise.all([server.close(), fake.close()]);
    },
  };
}

/** A test file's fixture server and sandbox: ready in beforeAll (`session`: with one live session started), gone in afterAll (every session ended first). */
export function useCliWorld(options: { session?: boolean } = {}): { readonly server: FixtureServer; readonly sb: Sandbox } {
  let server: FixtureServer | undefined;
  let sb: Sandbox | undefined;
  beforeAll(async () => {
    assertBuilt();
    server = await startFixtureServer();
    sb = sandbox();
    if (options.session) {
      const started = await svc(["sessions", "start", "--idle-timeout", "10"], sb.env);
      if (started.code !== 0) throw new Error(`svc sessions start failed (${started.code}): ${started.stderr}`);
    }
  }, 60_000);
  afterAll(async () => {
    if (sb) await svc(["sessions", "end", "--all"], sb.env).catch(() => undefined);
    sb?.cleanup();
    await server?.close();
  });
  const ready = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`${what} is used before beforeAll set it up`);
    return v;
  };
  return {
    get server() {
      return ready(server, "the fixture server");
    },
    get sb() {
      return ready(sb, "the sandbox");
    },
  };
}

/**
 * A test file's shorthands on its sandbox: `run` a command, `ok` (exit 0, nothing on stderr: its stdout) and
 * `fails` (that exit code and one stderr line: the line).
 */
export function sessionRunners(env: () => NodeJS.ProcessEnv) {
  const run = (...args: string[]) => svc(args, env());
  const ok = async (...args: string[]): Promise<string> => {
    const r = await run(...args);
    expect(r.stderr, args.join(" ")).toBe("");
    expect(r.code, args.join(" ")).toBe(0);
    return r.stdout.trim();
  };
  const fails = async (code: number, ...args: string[]): Promise<string> => {
    const r = await run(...args);
    expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(code);
    return expectOneLine(r.stderr);
  };
  return { run, ok, fails };
}

/** A command line's result; `key`: in the host mode it must be served by the host (asked again if the busy host left it to the client). */
export type ModeRun = (args: string[], options?: { key?: boolean }) => Promise<RunResult>;

/** The two ways a session's command runs: in its host (real processes), and as a full `svc` (SVC_NO_HOST=1). */
export function hostAndFullModes(env: () => NodeJS.ProcessEnv): Array<{ mode: string; run: ModeRun }> {
  return [
    {
      mode: "in the session's host",
      run: async (args, options = {}) => {
        for (let attempt = 1; ; attempt++) {
          const r = await collect(spawnSvc(args, { ...env(), SVC_PHASES: "1" }));
          const hosted = /^svc\[phase\] hosted \d+$/m.test(r.stderr);
          // A loaded machine may keep the host from taking a command within the client's wait: asked again.
          if (options.key && !hosted && attempt < 3) continue;
          if (options.key) expect(hosted, `${args.join(" ")} was not run by the host`).toBe(true);
          return { ...r, stderr: r.stderr.replace(/^svc\[phase\].*\n/gm, "") };
        }
      },
    },
    { mode: "in a full svc process (SVC_NO_HOST=1)", run: (args) => svc(args, { ...env(), SVC_NO_HOST: "1" }) },
  ];
}
