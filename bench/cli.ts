/**
 * CLI start: wall time of `node bin/svc.js --version` / `--help` as a user sees it (spawn to exit), with
 * `node -e ""` as the floor of this machine; and which modules `--help` loads (bench/trace-modules.mjs).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { summarize, type Summary } from "./stats.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "bin", "svc.js");

/** Packages `svc --help` must not load (BENCH.md): the TUI and every model SDK. */
const FORBIDDEN = /\/node_modules\/(ink|react|react-dom|react-reconciler|openai|ai|@ai-sdk\/[^/]+|@anthropic-ai\/[^/]+|@google\/genai|@browserbasehq\/[^/]+)\//;

function run(args: string[], env: NodeJS.ProcessEnv = process.env): { ms: number; status: number | null; stdout: string } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, env, encoding: "utf8" });
  return { ms: performance.now() - t0, status: r.status, stdout: r.stdout };
}

export interface CliResult {
  version: Summary;
  help: Summary;
  nodeBaseline: Summary;
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
  for (let i = 0; i < 2; i++) for (const args of Object.values(cases)) run([...args]); // warm the file cache
  for (let i = 0; i < runs; i++) {
    for (const [name, args] of Object.entries(cases) as Array<[keyof typeof cases, readonly string[]]>) times[name].push(run([...args]).ms);
  }
  const help = traced(["--help"]);
  const version = traced(["--version"]);
  return {
    version: summarize(times.version),
    help: summarize(times.help),
    nodeBaseline: summarize(times.nodeBaseline),
    helpModules: { total: help.length, packages: packagesOf(help), forbidden: help.filter((l) => FORBIDDEN.test(l)) },
    versionModules: { total: version.length, packages: packagesOf(version) },
  };
}
