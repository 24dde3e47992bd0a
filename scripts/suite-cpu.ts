/**
 * Where the suite's CPU goes, by test file (docs/development.md): runs vitest, samples /proc every 250 ms, and
 * charges each process to the file that started it (SVC_TEST_FILE in its environment), a worker or shared Chrome to
 * the file its slot runs, the rest to vitest or "outside the suite". A process exiting between samples is charged to
 * its reaping parent (cutime). Run `npm run build` first.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TICK = 100; // clock ticks per second: /proc/PID/stat counts CPU in them (USER_HZ, 100 on Linux)
const SAMPLE_MS = 250;

interface Proc {
  pid: number;
  ppid: number;
  comm: string;
  /** Own CPU (utime + stime) and reaped children's (cutime + cstime), in ticks. */
  own: number;
  reaped: number;
  /** pid:starttime, stable across pid reuse. */
  id: string;
}

interface Seen extends Proc {
  alive: boolean;
  /** Its reaped CPU has been set against its parent's (see `seenTotal`). */
  settled: boolean;
  /** CPU it had used before the first sample (processes already running at the start are not charged it). */
  before: number;
  fixedKey: string | undefined;
  goneAt?: number;
}

function readProcs(): Map<number, Proc> {
  const procs = new Map<number, Proc>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "latin1");
    } catch {
      continue; // exited meanwhile
    }
    const close = stat.lastIndexOf(")");
    const f = stat.slice(close + 2).split(" ");
    procs.set(Number(entry), {
      pid: Number(entry),
      ppid: Number(f[1]),
      comm: stat.slice(stat.indexOf("(") + 1, close),
      own: Number(f[11]) + Number(f[12]),
      reaped: Number(f[13]) + Number(f[14]),
      id: `${entry}:${f[19]}`,
    });
  }
  return procs;
}

function fileInEnvironment(pid: number): string | undefined {
  try {
    return /(?:^|\0)SVC_TEST_FILE=([^\0]*)/.exec(readFileSync(`/proc/${pid}/environ`, "latin1"))?.[1];
  } catch {
    return undefined;
  }
}

/** What a Node process of the suite is, by its command line. */
function roleOf(pid: number): string {
  let cmd: string;
  try {
    cmd = readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ");
  } catch {
    return "(exited before read)";
  }
  const roles: Array<[RegExp, string]> = [
    [/commands\/host\/main\.js /, "session host"],
    [/browser\/reaper\.js /, "Chrome reaper"],
    [/bin\/svc(\.js)? /, "svc, spawned"],
    [/npm/, "npm"],
    [/vitest\/dist\/workers|forks/, "vitest worker"],
    [/vitest\.mjs/, "vitest main"],
  ];
  return roles.find(([re]) => re.test(`${cmd} `))?.[1] ?? "other Node";
}

const kind = (comm: string) => (/^chrom/.test(comm) ? "chrome" : comm === "node" || comm.startsWith("npm") ? "node" : "other");

class Sampler {
  private readonly seen = new Map<string, Seen>();
  /** CPU ticks per key, split by kind. */
  readonly charged = new Map<string, { chrome: number; node: number; other: number }>();
  private readonly workerFile = new Map<number, string>();
  /** The file each worker slot (VITEST_POOL_ID) runs now, and the shared Chrome of each slot (browser pid). */
  private readonly slotFile = new Map<string, string>();
  private readonly sharedChrome = new Map<number, string>();
  /** CPU ticks of the shared Chromes, whichever file they were charged to. */
  sharedTicks = 0;
  /** Node's CPU ticks by what the process is (its command line), over the whole suite. */
  readonly nodeRoles = new Map<string, number>();
  private readonly roles = new Map<string, string>();
  private logRead = 0;

  constructor(
    private readonly vitestPid: () => number | undefined,
    private readonly log: string,
  ) {
    // Processes already running are charged only what they use from now on.
    for (const p of readProcs().values()) this.seen.set(p.id, { ...p, alive: true, settled: false, before: p.own + p.reaped, fixedKey: "outside the suite" });
  }

  private readLog(): void {
    let text: string;
    try {
      text = readFileSync(this.log, "utf8");
    } catch {
      return;
    }
    const fresh = text.slice(this.logRead);
    const end = fresh.lastIndexOf("\n") + 1;
    this.logRead += end;
    for (const line of fresh.slice(0, end).split("\n")) {
      const chrome = /^chrome (\d+) (\d+)$/.exec(line);
      if (chrome) {
        this.sharedChrome.set(Number(chrome[1]), chrome[2]!);
        continue;
      }
      const m = /^(\d+) (\S+) ?(\d*)$/.exec(line);
      if (!m) continue;
      this.workerFile.set(Number(m[1]), m[2]!);
      if (m[3]) this.slotFile.set(m[3], m[2]!);
    }
  }

  /** What a process is charged to, and whether that can change (a worker moves from file to file). */
  private keyOf(p: Proc, procs: Map<number, Proc>): { key: string; fixed: boolean; shared?: boolean } {
    const own = fileInEnvironment(p.pid);
    if (own) return { key: own, fixed: true };
    // A shared Chrome (or one of its processes): the file its worker slot runs at this moment.
    for (let q: Proc | undefined = p, depth = 0; q && depth < 6; q = procs.get(q.ppid), depth++) {
      const slot = this.sharedChrome.get(q.pid);
      if (slot) return { key: this.slotFile.get(slot) ?? "(shared Chrome)", fixed: false, shared: true };
    }
    const worker = this.workerFile.get(p.pid);
    if (worker) return { key: worker, fixed: false };
    const main = this.vitestPid();
    for (let q = procs.get(p.ppid), depth = 0; q && depth < 30; q = procs.get(q.ppid), depth++) {
      const file = this.workerFile.get(q.pid);
      if (file) return { key: file, fixed: false };
      // A Node child of vitest's may be a worker that has not named its file yet: asked again next time.
      if (q.pid === main) return { key: kind(p.comm) === "chrome" ? "(shared Chrome)" : "(vitest main)", fixed: false };
    }
    if (p.pid === main) return { key: "(vitest main)", fixed: true };
    return { key: "outside the suite", fixed: true };
  }

  private charge(key: string, comm: string, ticks: number): void {
    if (ticks <= 0) return;
    const row = this.charged.get(key) ?? { chrome: 0, node: 0, other: 0 };
    row[kind(comm)] += ticks;
    this.charged.set(key, row);
  }

  /** What was seen of a process that exited (and of its own exited children not yet set against it). */
  private seenTotal(s: Seen): number {
    s.settled = true;
    return s.own + s.reaped - s.before + this.seenOfExitedChildren(s.pid);
  }

  /** What was seen of the exited children of `pid` not yet set against it; they are set against it now. */
  private seenOfExitedChildren(pid: number): number {
    let total = 0;
    for (const c of this.seen.values()) if (!c.alive && !c.settled && c.ppid === pid) total += this.seenTotal(c);
    return total;
  }

  tick(): void {
    this.readLog();
    const procs = readProcs();
    const live = new Set([...procs.values()].map((p) => p.id));
    for (const s of this.seen.values()) if (!live.has(s.id)) s.alive = false;
    for (const p of procs.values()) {
      if (p.pid === process.pid) continue;
      const old = this.seen.get(p.id);
      const { key: k, fixed, shared } = old?.fixedKey !== undefined ? { key: old.fixedKey, fixed: true, shared: false } : this.keyOf(p, procs);
      // Children reaped since the last sample: their whole CPU arrived in `reaped`; charge what was not seen.
      const ticks = p.own - (old?.own ?? 0) + (old ? p.reaped - old.reaped - this.seenOfExitedChildren(p.pid) : 0);
      this.charge(k, p.comm, ticks);
      if (shared && ticks > 0) this.sharedTicks += ticks;
      if (ticks > 0 && kind(p.comm) === "node" && k !== "outside the suite") {
        const role = this.roles.get(p.id) ?? roleOf(p.pid);
        this.roles.set(p.id, role);
        this.nodeRoles.set(role, (this.nodeRoles.get(role) ?? 0) + ticks);
      }
      this.seen.set(p.id, { ...p, alive: true, settled: false, before: old?.before ?? 0, fixedKey: fixed ? k : undefined });
    }
    const now = Date.now();
    for (const [id, s] of this.seen) if (!s.alive && (s.settled || now - (s.goneAt ??= now) > 5_000)) this.seen.delete(id);
  }
}

/** Busy and total CPU ticks of the whole machine (/proc/stat). */
function machineTicks(): { busy: number; total: number } {
  const f = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - f[3]! - (f[4] ?? 0), total };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "svc-suite-cpu-"));
  const log = join(dir, "files.log");
  const started = Date.now();
  const m0 = machineTicks();
  const vitest = spawn(process.execPath, [join(ROOT, "node_modules", "vitest", "vitest.mjs"), "run", ...process.argv.slice(2)], {
    cwd: ROOT,
    env: { ...process.env, SVC_SUITE_CPU_LOG: log },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const sampler = new Sampler(() => vitest.pid, log);
  const timer = setInterval(() => sampler.tick(), SAMPLE_MS);
  const code = await new Promise<number | null>((resolve) => vitest.on("close", resolve));
  clearInterval(timer);
  sampler.tick();
  const wall = (Date.now() - started) / 1000;
  const m1 = machineTicks();
  rmSync(dir, { recursive: true, force: true });

  const s = (ticks: number) => (ticks / TICK).toFixed(1);
  const rows = [...sampler.charged].sort((a, b) => b[1].chrome + b[1].node + b[1].other - (a[1].chrome + a[1].node + a[1].other));
  const inSuite = rows.filter(([k]) => k !== "outside the suite");
  const sum = (r: { chrome: number; node: number; other: number }) => r.chrome + r.node + r.other;
  const suite = inSuite.reduce((a, [, r]) => a + sum(r), 0);
  const lines = ["| test file | CPU s | Chrome | Node | other |", "|---|---:|---:|---:|---:|"];
  for (const [k, r] of inSuite) lines.push(`| ${k} | ${s(sum(r))} | ${s(r.chrome)} | ${s(r.node)} | ${s(r.other)} |`);
  const outside = sampler.charged.get("outside the suite");
  const cores = cpus().length;
  lines.push(
    "",
    `vitest exited ${code} after ${wall.toFixed(0)} s. The suite used ${s(suite)} s of CPU (${(suite / TICK / wall).toFixed(2)} of ${cores} cores on average); outside it, ${s(outside ? sum(outside) : 0)} s.`,
    `The shared Chromes used ${s(sampler.sharedTicks)} s of it, charged to the file their worker ran.`,
    `Node by process: ${[...sampler.nodeRoles].sort((a, b) => b[1] - a[1]).map(([r, t]) => `${r} ${s(t)} s`).join(", ")}.`,
    `The machine was busy ${(((m1.busy - m0.busy) / (m1.total - m0.total)) * 100).toFixed(0)} % of the time.`,
  );
  process.stdout.write(`${lines.join("\n")}\n`);
  process.exitCode = code ?? 1;
}

await main();
