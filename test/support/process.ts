/** The machine's processes as tests see them: whether one runs, which ones a test left behind. */
import { readdirSync, readFileSync } from "node:fs";
import { procStat, processesWhere } from "../../src/util/process.js";
import { EVENT_WAIT_MS } from "./timing.js";
import { waitFor } from "./wait.js";

/** Whether a process runs: `kill(pid, 0)` answers, and it is not a zombie (exited, not yet reaped: dead for tests). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = procStat(pid);
    return stat !== undefined && stat.state !== "Z";
  } catch {
    return false;
  }
}

/** Pids (other than ours) whose command line contains every one of `needles`: e.g. Chrome started with a profile under it. */
export function processesMentioning(...needles: string[]): number[] {
  return processesWhere((cmdline) => needles.every((n) => cmdline.includes(n)));
}

/** SIGKILL to every process `processesMentioning(...needles)` finds (one already gone is skipped). */
export function killProcessesMentioning(...needles: string[]): void {
  killAll(processesMentioning(...needles));
}

/** SIGKILL to every process started under `mark` (markedProcesses). */
export function killMarked(mark: string): void {
  killAll(markedProcesses(mark).map((p) => p.pid));
}

function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

/**
 * The variable a test marks its processes with. Every process inherits its starter's environment, and svc changes
 * only Chrome's TMPDIR, so Chrome, its children, its reaper and svc's processes carry the mark wherever the run dir
 * is, even in /tmp when TMPDIR is too long for Chrome's sockets (runBase). A TMPDIR prefix would find nothing then.
 */
export const TEST_MARK = "SVC_TEST_MARK";

/** One process started under a mark: its pid, arguments, and what it is of svc's Chromes: a Chrome process or a reaper, with its run dir. */
export interface MarkedProcess {
  pid: number;
  args: string[];
  kind: "chrome" | "reaper" | undefined;
  runDir: string | undefined;
}

/**
 * Sets TMPDIR to `dir` and marks with `dir` every process this process starts from now on (in-process svc:
 * the server, the library); returns what puts both back.
 */
export function markTmpdir(dir: string): () => void {
  const saved = { TMPDIR: process.env.TMPDIR, [TEST_MARK]: process.env[TEST_MARK] };
  process.env.TMPDIR = dir;
  process.env[TEST_MARK] = dir;
  return () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

const RUN_DIR_TMP = /^TMPDIR=(.*\/svc-chrome-[^/]+)\/tmp$/;

/** Processes (other than ours) whose environment holds `SVC_TEST_MARK=<mark>`. */
export function markedProcesses(mark: string): MarkedProcess[] {
  const out: MarkedProcess[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${name}/environ`, "utf8").split("\0");
      if (!env.includes(`${TEST_MARK}=${mark}`)) continue;
      const args = readFileSync(`/proc/${name}/cmdline`, "utf8").replace(/\0$/, "").split("\0");
      out.push({ pid: Number(name), args, ...chromePart(env, args) });
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** A Chrome process has its run dir's `tmp` as TMPDIR (src/browser/launch.ts); a reaper's JSON argument names its run dir. */
function chromePart(env: string[], args: string[]): Pick<MarkedProcess, "kind" | "runDir"> {
  const chromeTmp = env.map((e) => RUN_DIR_TMP.exec(e)?.[1]).find(Boolean);
  if (chromeTmp) return { kind: "chrome", runDir: chromeTmp };
  if (args.some((a) => a.endsWith("reaper.js"))) {
    try {
      return { kind: "reaper", runDir: (JSON.parse(args[args.length - 1] ?? "") as { runDir?: string }).runDir };
    } catch {
      return { kind: "reaper", runDir: undefined };
    }
  }
  return { kind: undefined, runDir: undefined };
}

/** The Chrome processes (browser, renderers, GPU, crashpad …) and reapers started under `mark`. */
export function chromeProcessesOf(mark: string): MarkedProcess[] {
  return markedProcesses(mark).filter((p) => p.kind !== undefined);
}

/** Pids of the Chrome processes started under `mark`, reapers left out. */
export function chromePidsOf(mark: string): number[] {
  return markedProcesses(mark).filter((p) => p.kind === "chrome").map((p) => p.pid);
}

/**
 * Chrome browser processes (not their children) on the DevTools pipe started under `mark`. A child Chrome has
 * forked and not yet exec'd (its zygote or crash handler, as it starts) still shows the browser's command
 * line: it is left out by its parent being one of them.
 */
export function browserProcessesOf(mark: string): MarkedProcess[] {
  const found = markedProcesses(mark).filter(({ kind, args }) => kind === "chrome" && args.includes("--remote-debugging-pipe") && !args.some((a) => a.startsWith("--type=")));
  const pids = found.map((p) => p.pid);
  return found.filter((p) => !pids.includes(procStat(p.pid)?.ppid ?? 0));
}

/** Pids of browserProcessesOf(mark). */
export function chromeBrowsersOf(mark: string): number[] {
  return browserProcessesOf(mark).map((p) => p.pid);
}

/** Waits until no Chrome process or reaper started under `mark` runs; then fails listing the survivors. */
export async function expectNoChrome(mark: string, timeoutMs = EVENT_WAIT_MS): Promise<void> {
  await waitFor(() => chromeProcessesOf(mark).length === 0, timeoutMs, 100).catch(() => {});
  const left = chromeProcessesOf(mark).map((p) => `${p.pid}: ${p.args.join(" ").slice(0, 300)}`);
  if (left.length) throw new Error(`Chrome processes left behind:\n${left.join("\n")}`);
}
