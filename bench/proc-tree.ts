/**
 * The process tree of this process from /proc (Linux), for serve.ts: each descendant classified (Chrome
 * browser / Chrome child / launch.ts's reaper / other) with its RSS and PSS. Reads are async: the server
 * under test shares this event loop.
 */
import { access, readdir, readFile } from "node:fs/promises";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Proc {
  pid: number;
  /** reaper-stale: a reaper whose Chrome was closed and run dir removed, still running (see reaperState). */
  kind: "self" | "chrome-browser" | "chrome-child" | "reaper" | "reaper-stale" | "other";
  rssKB: number;
  pssKB: number;
  cmd: string[];
}

/** Every Chrome profile seen in the tree: afterwards no process anywhere may still use one. */
export const profilesSeen = new Set<string>();

export async function text(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return undefined; // exited meanwhile
  }
}
const kB = (status: string | undefined, field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status ?? "")?.[1] ?? 0);

/** This process and all its descendants, with their memory (async reads: the server shares this event loop). */
export async function processTree(withPss = true): Promise<Proc[]> {
  const children = new Map<number, number[]>();
  await Promise.all(
    (await readdir("/proc")).filter((e) => /^\d+$/.test(e)).map(async (e) => {
      const stat = await text(`/proc/${e}/stat`);
      if (!stat) return;
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(e)]);
    }),
  );
  const pids: number[] = [];
  for (const queue = [process.pid]; queue.length; ) {
    const pid = queue.shift()!;
    pids.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  const procs = await Promise.all(
    pids.map(async (pid): Promise<Proc | undefined> => {
      const [status, cmdline, rollup] = await Promise.all([text(`/proc/${pid}/status`), text(`/proc/${pid}/cmdline`), withPss ? text(`/proc/${pid}/smaps_rollup`) : undefined]);
      if (status === undefined || cmdline === undefined) return undefined;
      const cmd = cmdline.split("\0").filter(Boolean);
      const chrome = /chrom/i.test(cmd[0] ?? "");
      if (chrome) for (const a of cmd) if (a.startsWith("--user-data-dir=")) profilesSeen.add(a);
      // Chrome's child processes rewrite their command line into one space-separated string.
      const kind: Proc["kind"] =
        pid === process.pid ? "self" : chrome ? (/(^|[\s\0])--type=/.test(cmdline) ? "chrome-child" : "chrome-browser") : cmd.some((a) => /reaper\.[jt]s$/.test(a)) ? await reaperState(cmd) : "other";
      return { pid, kind, rssKB: kB(status, "VmRSS"), pssKB: kB(rollup, "Pss"), cmd };
    }),
  );
  return procs.filter((p): p is Proc => p !== undefined);
}

/**
 * A reaper (src/browser/reaper.ts) is "stale" once its run dir is gone: its Chrome was closed and cleaned up
 * by the owner, so it has nothing left to guard but keeps polling until the owner exits.
 */
async function reaperState(cmd: string[]): Promise<"reaper" | "reaper-stale"> {
  try {
    const runDir = (JSON.parse(cmd.at(-1) ?? "{}") as { runDir?: string }).runDir;
    if (!runDir) return "reaper";
    await access(runDir);
    return "reaper";
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT" ? "reaper-stale" : "reaper";
  }
}

export const sum = (ps: Proc[], k: "rssKB" | "pssKB") => ps.reduce((s, p) => s + p[k], 0);
export const browsersOf = (ps: Proc[]) => ps.filter((p) => p.kind === "chrome-browser").length;
export const isChrome = (p: Proc) => p.kind === "chrome-browser" || p.kind === "chrome-child";

export async function waitNoChrome(maxMs: number): Promise<{ browsers: number; waitedMs: number }> {
  const t0 = performance.now();
  for (;;) {
    const n = (await processTree(false)).filter(isChrome).length;
    if (n === 0 || performance.now() - t0 > maxMs) return { browsers: n, waitedMs: Math.round(performance.now() - t0) };
    await sleep(250);
  }
}
