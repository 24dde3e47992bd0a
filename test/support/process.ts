/** Whether a process runs: `kill(pid, 0)` answers, and it is not a zombie (exited, not yet reaped: dead for tests). */
import { readFileSync } from "node:fs";

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}
