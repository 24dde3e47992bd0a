/** The machine's processes as tests see them: whether one runs, which ones a test left behind. */
import { procStat, processesWhere } from "../../src/util/process.js";

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
  for (const pid of processesMentioning(...needles)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

/**
 * Chrome browser processes (not their children) on the DevTools pipe whose profile is under `dir`. A child
 * Chrome has forked and not yet exec'd (its zygote or crash handler, as it starts) still shows the browser's
 * command line: it is left out by its parent being one of them.
 */
export function chromeBrowsersUnder(dir: string): number[] {
  const found = processesWhere((cmdline) => {
    const args = cmdline.split("\0");
    return args.some((a) => a.startsWith(`--user-data-dir=${dir}`)) && args.includes("--remote-debugging-pipe") && !args.some((a) => a.startsWith("--type="));
  });
  return found.filter((pid) => !found.includes(procStat(pid)?.ppid ?? 0));
}
