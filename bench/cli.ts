/**
 * CLI start: wall time of `node bin/svc.js --version` / `--help` as a user sees it (spawn to exit), with
 * `node -e ""` as the floor of this machine; and which modules `--help` loads (bench/trace-modules.mjs).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { round, summarize, type Summary } from "./stats.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "bin", "svc.js");

/** Packages `svc --help` must not load (a performance target): the TUI and every model SDK. */
const FORBIDDEN = /\/node_modules\/(ink|react|react-dom|react-reconciler|openai|ai|@ai-sdk\/[^/]+|@anthropic-ai\/[^/]+|@google\/genai|@browserbasehq\/[^/]+)\//;

/**
 * CPU time (user + sys, ms) of this process's waited-for children, from /proc (Linux; 10 ms ticks, so only a
 * mean over many runs means anything). Wall time on a loaded machine is mostly waiting for a core; CPU time
 * is what the program itself costs. Undefined where /proc is missing.
 */
export function childCpuMs(): number | undefined {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[13]) + Number(f[14])) * 10; // cutime + cstime, CLK_TCK = 100
  } catch {
    return undefined;
  }
}

function run(args: string[], env: NodeJS.ProcessEnv = process.env): { ms: number; cpuMs: number | undefined; status: number | null; stdout: string } {
  const c0 = childCpuMs();
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, env, encoding: "utf8" });
  const ms = performance.now() - t0;
  const c1 = childCpuMs();
  return { ms, cpuMs: c0 === undefined || c1 === undefined ? undefined : c1 - c0, status: r.status, stdout: r.stdout };
}

export interface CliResult {
  version: Summary;
  help: Summary;
  nodeBaseline: Summary;
  /** Mean CPU ms (user + sys) per run, where /proc allows. */
  cpuMeanMs?: { version: number; help: number; nodeBaseline: number };
  helpModules: { total: number; packages: string[]; forbidden: string[] };
  versionModules: { total: number; packages: string[] };
}

function packagesOf(lines: string[]): string[] {
  const names = new Set<string>();
  for (const l of lines) {
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(l);
    if (m) names.add(m[1]!);
  }
  return [...names].sort();
}

function traced(args: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-"));
  const out = join(dir, "modules.txt");
  try {
    const r = run(["--import", join(ROOT, "bench", "trace-modules.mjs"), BIN, ...args], { ...process.env, SVC_TRACE_MODULES: out });
    if (r.status !== 0) throw new Error(`svc ${args.join(" ")} exited ${r.status}`);
    return [...new Set(readFileSync(out, "utf8").split("\n").filter(Boolean))];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function benchCli(runs: number): CliResult {
  const check = run([BIN, "--version"]);
  if (check.status !== 0) throw new Error(`svc --version exited ${check.status}: is dist/ built?`);
  const cases = { version: [BIN, "--version"], help: [BIN, "--help"], nodeBaseline: ["-e", ""] } as const;
  const times: Record<keyof typeof cases, number[]> = { version: [], help: [], nodeBaseline: [] };
  const cpu: Record<keyof typeof cases, number[]> = { version: [], help: [], nodeBaseline: [] };
  for (let i = 0; i < 2; i++) for (const args of Object.values(cases)) run([...args]); // warm the file cache
  for (let i = 0; i < runs; i++) {
    for (const [name, args] of Object.entries(cases) as Array<[keyof typeof cases, readonly string[]]>) {
      const r = run([...args]);
      times[name].push(r.ms);
      if (r.cpuMs !== undefined) cpu[name].push(r.cpuMs);
    }
  }
  const help = traced(["--help"]);
  const version = traced(["--version"]);
  const mean = (xs: number[]) => round(xs.reduce((a, b) => a + b, 0) / xs.length, 1);
  return {
    ...(cpu.version.length === runs ? { cpuMeanMs: { version: mean(cpu.version), help: mean(cpu.help), nodeBaseline: mean(cpu.nodeBaseline) } } : {}),
    version: summarize(times.version),
    help: summarize(times.help),
    nodeBaseline: summarize(times.nodeBaseline),
    helpModules: { total: help.length, packages: packagesOf(help), forbidden: help.filter((l) => FORBIDDEN.test(l)) },
    versionModules: { total: version.length, packages: packagesOf(version) },
  };
}
