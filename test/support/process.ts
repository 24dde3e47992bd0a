/** The machine's processes as tests see them: whether one runs, which ones a test left behind. */
import { readdirSync, readFileSync } from "node:fs";

/** Whether a process runs: `kill(pid, 0)` answers, and it is not a zombie (exited, not yet reaped: dead for tests). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

/** Pids (other than ours) whose command line contains `needle`: e.g. Chrome started with a profile under it. */
export function processesMentioning(needle: string): number[] {
  const out: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return out;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8");
      if (cmd.includes(needle)) out.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}
