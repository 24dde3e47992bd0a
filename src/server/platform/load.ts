/**
 * What admission and GET /v1/pressure read about the machine, sampled every few seconds. CPU is machine-wide busy
 * time (Chrome does most of a session's work, beyond this process), not loadavg, which lags a burst and counts I/O
 * waits. Memory is this process tree's proportional set size (Pss, so shared libraries count once), else RSS; off
 * Linux this process's RSS only.
 */
import { readdir, readFile } from "node:fs/promises";
import { cpus } from "node:os";

export interface LoadReading {
  /** Percent (0–100) of all cores busy over the last sample; null until two samples exist. */
  cpu: number | null;
  /** Bytes of this process tree; null when unknown. */
  memory: number | null;
}

type CpuTimes = { busy: number; total: number };

function cpuTimes(): CpuTimes {
  let busy = 0;
  let total = 0;
  for (const c of cpus()) {
    const t = c.times;
    const all = t.user + t.nice + t.sys + t.idle + t.irq;
    total += all;
    busy += all - t.idle;
  }
  return { busy, total };
}

/** Pid → parent pid of every process we may read (Linux). Asynchronous: a busy machine has hundreds. */
async function parents(): Promise<Map<number, number>> {
  const map = new Map<number, number>();
  const pids = (await readdir("/proc")).filter((name) => /^\d+$/.test(name));
  await Promise.all(
    pids.map(async (name) => {
      try {
        // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
        const stat = await readFile(`/proc/${name}/stat`, "utf8");
        map.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      } catch {
        // exited meanwhile, or not ours to read
      }
    }),
  );
  return map;
}

/** `root` and every process below it. */
export async function processTree(root: number): Promise<number[]> {
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of await parents()) {
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  }
  const out: number[] = [];
  const todo = [root];
  for (let pid = todo.pop(); pid !== undefined; pid = todo.pop()) {
    out.push(pid);
    todo.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** One process's memory in bytes (Pss, else RSS); 0 when it is gone. */
async function processMemory(pid: number): Promise<number> {
  for (const [file, field] of [
    ["smaps_rollup", "Pss:"],
    ["status", "VmRSS:"],
  ] as const) {
    try {
      const text = await readFile(`/proc/${pid}/${file}`, "utf8");
      const line = text.split("\n").find((l) => l.startsWith(field));
      if (line) return Number(/(\d+)\s*kB/.exec(line)?.[1] ?? 0) * 1024;
    } catch {
      // not readable (or gone): try the next source
    }
  }
  return 0;
}

/** Bytes held by this process and its descendants (see the module comment). */
export async function processTreeMemory(root = process.pid): Promise<number> {
  if (process.platform !== "linux") return process.memoryUsage().rss;
  const each = await Promise.all((await processTree(root)).map(processMemory));
  return each.reduce((sum, bytes) => sum + bytes, 0);
}

/**
 * Samples cpu and memory every `intervalMs` (and once at start) and calls `onSample` after each timed one, so a
 * waiting start can be admitted as soon as the load drops. `read()` is the latest sample.
 */
export class LoadMonitor {
  private last: CpuTimes = cpuTimes();
  private reading: LoadReading = { cpu: null, memory: null };
  private readonly timer: NodeJS.Timeout;
  /** The sample being taken; the next tick skips while one is still running. */
  private measuring: Promise<void> | undefined;

  constructor(
    private readonly onSample: () => void,
    intervalMs = 2000,
  ) {
    this.tick(false);
    this.timer = setInterval(() => this.tick(true), intervalMs);
    this.timer.unref();
  }

  read(): LoadReading {
    return this.reading;
  }

  /** Stops sampling; resolves once a sample under way is done. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.measuring;
  }

  private tick(notify: boolean): void {
    if (this.measuring) return;
    this.measuring = this.measure()
      .then(() => {
        if (notify) this.onSample();
      })
      .catch(() => {}) // a sample that failed leaves the previous one standing
      .finally(() => (this.measuring = undefined));
  }

  private async measure(): Promise<void> {
    const now = cpuTimes();
    const total = now.total - this.last.total;
    const cpu = total > 0 ? Math.round((1000 * (now.busy - this.last.busy)) / total) / 10 : this.reading.cpu;
    this.last = now;
    let memory: number | null;
    try {
      memory = await processTreeMemory();
    } catch {
      memory = null;
    }
    this.reading = { cpu, memory };
  }
}
