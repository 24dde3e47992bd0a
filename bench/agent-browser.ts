/**
 * svc's CLI beside agent-browser's, each on a live session of its own, same Chromium and pages: per-command wall
 * time, the stdout tokens of `snapshot -i`, and a 10-step task by verbs; rounds alternate, medians. Run: `node
 * --import tsx bench/agent-browser.ts [PATH]`, PATH (or AGENT_BROWSER) its binary or npm folder, installed OUTSIDE
 * this repo; absent, it says so and exits 0.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { arch, cpus, loadavg, platform, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startFixtureServer } from "../test/support/server.js";
import { childCpuMs } from "./cli.js";
import { fmtInt, fmtMs, fmtRatio, median, ratio, round, tokens } from "./stats.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SVC = join(ROOT, "bin", "svc.js");
const CHROME = process.env.CHROME_PATH ?? "/usr/bin/chromium";
const RUNS = Math.max(5, Number(process.env.BENCH_RUNS ?? 9));
const log = (m: string) => process.stderr.write(`${m}\n`);

/** The agent-browser binary from a path (the binary, or its package folder), or undefined. */
function findAgentBrowser(given: string | undefined): string | undefined {
  if (!given) return undefined;
  const p = resolve(given);
  if (!existsSync(p)) return undefined;
  if (statSync(p).isFile()) return p;
  for (const dir of [p, join(p, "node_modules", "agent-browser")]) {
    const bin = join(dir, "bin", `agent-browser-${platform()}-${arch()}`);
    if (existsSync(bin)) return bin;
  }
  return undefined;
}

interface Run {
  ms: number;
  cpuMs: number | undefined;
  stdout: string;
  stderr: string;
}

/**
 * Spawns and waits (asynchronously: the fixture server runs in this process). CPU time from /proc's cutime of
 * this process, so only one command runs at a time.
 */
async function exec(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  const c0 = childCpuMs();
  const t0 = performance.now();
  const child = spawn(cmd, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const status = await new Promise<number | null>((ok, fail) => child.on("error", fail).on("close", ok));
  const ms = performance.now() - t0;
  const c1 = childCpuMs();
  if (status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${status}: ${(stderr || stdout).slice(0, 400)}`);
  return { ms, cpuMs: c0 === undefined || c1 === undefined ? undefined : c1 - c0, stdout, stderr };
}

interface Cli {
  name: "svc" | "agent-browser";
  run(args: string[], env?: NodeJS.ProcessEnv): Promise<Run>;
  open(url: string): Promise<unknown>;
  snapshot(): Promise<Run>;
  click(ref: string): Promise<Run>;
  /** The ref `snapshot -i` printed for the element with this role and name. */
  refOf(snapshot: string, role: string, name: string): string;
  verb(verb: string, ref: string, value?: string): Promise<Run>;
  close(): Promise<void>;
}

async function svcCli(): Promise<Cli> {
  const base = mkdtempSync(join(tmpdir(), "svc-bench-ab-"));
  const env = { ...process.env, SVC_STATE_DIR: join(base, "state"), SVC_CONFIG_DIR: join(base, "config"), CHROME_PATH: CHROME };
  const run = (args: string[], extra: NodeJS.ProcessEnv = {}) => exec(process.execPath, [SVC, ...args], { ...env, ...extra });
  await run(["sessions", "start", "--idle-timeout", "30"]);
  return {
    name: "svc",
    run,
    open: (url) => run(["goto", url]),
    snapshot: () => run(["snapshot", "-i"]),
    click: (ref) => run(["click", ref]),
    refOf(snapshot, role, name) {
      const line = snapshot.split("\n").find((l) => new RegExp(`^\\s*(e\\d+) ${role} ${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`).test(l));
      const ref = line && /(e\d+)/.exec(line)?.[1];
      if (!ref) throw new Error(`svc: no ${role} "${name}" in:\n${snapshot.slice(0, 800)}`);
      return ref;
    },
    verb: (verb, ref, value) => run([verb, ref, ...(value !== undefined ? [value] : [])]),
    async close() {
      try {
        await run(["sessions", "end", "--all"]);
      } finally {
        rmSync(base, { recursive: true, force: true });
      }
    },
  };
}

function agentBrowserCli(bin: string): Cli {
  const env = { ...process.env, AGENT_BROWSER_EXECUTABLE_PATH: CHROME, AGENT_BROWSER_ARGS: "--no-sandbox", AGENT_BROWSER_SESSION: `svc-bench-${process.pid}` };
  const run = (args: string[], extra: NodeJS.ProcessEnv = {}) => exec(bin, args, { ...env, ...extra });
  return {
    name: "agent-browser",
    run,
    open: (url) => run(["open", url]),
    snapshot: () => run(["snapshot", "-i"]),
    click: (ref) => run(["click", `@${ref}`]),
    refOf(snapshot, role, name) {
      const line = snapshot.split("\n").find((l) => l.includes(`${role} "${name}"`));
      const ref = line && /ref=(e\d+)/.exec(line)?.[1];
      if (!ref) throw new Error(`agent-browser: no ${role} "${name}" in:\n${snapshot.slice(0, 800)}`);
      return ref;
    },
    verb: (verb, ref, value) => run([verb, `@${ref}`, ...(value !== undefined ? [value] : [])]),
    async close() {
      try {
        await run(["close"]);
      } catch {
        // already gone
      }
    },
  };
}

interface OpFigures {
  ms: number;
  cpuMs?: number;
  tokens?: number;
  bytes?: number;
}
type PageFigures = Record<string, Record<"snapshot" | "click", OpFigures>>;

/** Rounds alternate the tools (order flipped every round); the first call of each is a warm-up. */
async function measure(clis: Cli[], op: (c: Cli) => Promise<Run>): Promise<Record<string, { ms: number; cpuMs?: number; last: Run }>> {
  for (const c of clis) await op(c);
  const times: Record<string, number[]> = {};
  const cpu: Record<string, number[]> = {};
  const last: Record<string, Run> = {};
  for (let i = 0; i < RUNS; i++) {
    for (const c of i % 2 ? [...clis].reverse() : clis) {
      const r = await op(c);
      (times[c.name] ??= []).push(r.ms);
      if (r.cpuMs !== undefined) (cpu[c.name] ??= []).push(r.cpuMs);
      last[c.name] = r;
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return Object.fromEntries(clis.map((c) => [c.name, { ms: round(median(times[c.name]!), 1), ...(cpu[c.name]?.length ? { cpuMs: round(mean(cpu[c.name]!), 1) } : {}), last: last[c.name]! }]));
}

/** The 10-step task on forms.html, by verbs on the refs of one `snapshot -i`; returns total ms and stdout bytes. */
async function formTask(c: Cli, url: string): Promise<{ ms: number; bytes: number; steps: number; submitted: boolean }> {
  const runs: Run[] = [];
  const step = async (p: Promise<Run>) => {
    const r = await p;
    runs.push(r);
    return r;
  };
  await step(c.run(c.name === "svc" ? ["goto", url] : ["open", url]));
  const snap = (await step(c.snapshot())).stdout;
  const ref = (role: string, name: string) => c.refOf(snap, role, name);
  await step(c.verb("fill", ref("textbox", "Full name"), "Ada Lovelace"));
  await step(c.verb("fill", ref("textbox", "Email"), "ada@example.com"));
  await step(c.verb("fill", ref("textbox", "Password"), "s3cret!"));
  await step(c.verb("check", ref("checkbox", "Subscribe to newsletter")));
  await step(c.verb("click", ref("radio", "Pro")));
  await step(c.verb("select", ref("combobox", "Country"), "France"));
  await step(c.verb("click", ref("button", "Submit")));
  const after = (await step(c.snapshot())).stdout;
  // The page prints the submitted form (#result): both tools must have really filled it.
  const check = (await c.run(["eval", "document.getElementById('result').textContent"])).stdout;
  // (printed JSON-quoted by both: `\"country\":\"fr\"`)
  const submitted = /Ada Lovelace/.test(check) && /\bcountry\W+fr\b/.test(check) && /\bplan\W+pro\b/.test(check) && /\bsubscribe\W+true\b/.test(check);
  if (!submitted) log(`${c.name}: the form was not submitted as filled: ${check.slice(0, 300)}`);
  if (!/Submit/.test(after)) log(`${c.name}: the last snapshot has no Submit button`);
  return { ms: round(runs.reduce((a, r) => a + r.ms, 0), 0), bytes: runs.reduce((a, r) => a + Buffer.byteLength(r.stdout), 0), steps: runs.length, submitted };
}

/** Medians over BENCH_RUNS of where one `svc snapshot -i` spends its time (SVC_PHASES, commands/core/phases.ts). */
async function svcPhases(c: Cli): Promise<string> {
  const at: Record<string, number[]> = {};
  const wall: number[] = [];
  // A warm-up: the environment changed (SVC_PHASES), so the host builds its Service for it once.
  await c.run(["snapshot", "-i"], { SVC_PHASES: "1" });
  for (let i = 0; i < RUNS; i++) {
    const r = await c.run(["snapshot", "-i"], { SVC_PHASES: "1" });
    wall.push(r.ms);
    for (const m of r.stderr.matchAll(/^svc\[phase\] (\S+) (\d+)$/gm)) (at[m[1]!] ??= []).push(Number(m[2]));
  }
  let prev = 0;
  // In time order; a phase only some runs reach (the first one attaches, the rest reuse the host's Service) says how many.
  const ordered = Object.entries(at).sort(([, a], [, b]) => median(a) - median(b));
  const rows = ordered.map(([name, xs]) => {
    const t = median(xs);
    const row = `${name.padEnd(15)} at ${String(Math.round(t)).padStart(5)} ms  (+${Math.round(t - prev)})${xs.length < RUNS ? `  [${xs.length} of ${RUNS} runs]` : ""}`;
    prev = t;
    return row;
  });
  return [...rows, `${"exit (spawn→)".padEnd(15)} at ${String(Math.round(median(wall))).padStart(5)} ms  (+${Math.round(median(wall) - prev)}: Node's exit, measured from the parent)`].join("\n");
}

async function main(): Promise<void> {
  const bin = findAgentBrowser(process.argv[2] ?? process.env.AGENT_BROWSER);
  if (!bin) {
    log("agent-browser not found: skipped. Install it outside this repo (mkdir /tmp/ab && cd /tmp/ab && npm i agent-browser) and pass its folder: node --import tsx bench/agent-browser.ts /tmp/ab (or AGENT_BROWSER=/tmp/ab).");
    return;
  }
  const version = (await exec(bin, ["--version"], process.env)).stdout.trim().replace(/^agent-browser\s+/, "");
  const server = await startFixtureServer();
  const clis = [await svcCli(), agentBrowserCli(bin)];
  const pages = [
    { name: "fixtures/forms.html", url: server.url("forms.html"), click: { role: "button", name: "Submit" } },
    { name: "fixtures/large.html (generated, ≥5,000 elements)", url: server.url("large.html"), click: { role: "button", name: "Last button" } },
  ];
  const figures: Record<string, PageFigures> = {};
  let task: Record<string, Awaited<ReturnType<typeof formTask>>> = {};
  let phases: string | undefined;
  try {
    for (const p of pages) {
      log(`${p.name}…`);
      for (const c of clis) await c.open(p.url);
      // All snapshots first, then the clicks (a click may change the page).
      const snaps = await measure(clis, (c) => c.snapshot());
      const refs = Object.fromEntries(clis.map((c) => [c.name, c.refOf(snaps[c.name]!.last.stdout, p.click.role, p.click.name)]));
      const clicks = await measure(clis, (c) => c.click(refs[c.name]!));
      figures[p.name] = Object.fromEntries(
        clis.map((c) => {
          const s = snaps[c.name]!;
          const k = clicks[c.name]!;
          return [c.name, { snapshot: { ms: s.ms, ...(s.cpuMs !== undefined ? { cpuMs: s.cpuMs } : {}), tokens: tokens(s.last.stdout), bytes: Buffer.byteLength(s.last.stdout) }, click: { ms: k.ms, ...(k.cpuMs !== undefined ? { cpuMs: k.cpuMs } : {}) } }];
        }),
      );
      if (p === pages[0]) phases = await svcPhases(clis[0]!);
    }
    log("10-step task…");
    for (const c of clis) task[c.name] = await formTask(c, pages[0]!.url);
  } finally {
    for (const c of clis) await c.close();
    await server.close();
  }

  const lines = [
    `**svc's CLI beside agent-browser ${version}** — live session each, same Chromium, medians of ${RUNS} (spawn to exit; svc's CPU is user + sys of the command)`,
    "",
    "| page | command | svc | agent-browser | ratio | svc CPU | svc tokens | agent-browser tokens | token ratio |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const [page, f] of Object.entries(figures)) {
    const s = f.svc!;
    const a = f["agent-browser"]!;
    lines.push(`| ${page} | \`snapshot -i\` | ${fmtMs(s.snapshot.ms)} | ${fmtMs(a.snapshot.ms)} | ${fmtRatio(ratio(s.snapshot.ms, a.snapshot.ms))} | ${fmtMs(s.snapshot.cpuMs)} | ${fmtInt(s.snapshot.tokens)} | ${fmtInt(a.snapshot.tokens)} | ${fmtRatio(ratio(s.snapshot.tokens, a.snapshot.tokens))} |`);
    lines.push(`| ${page} | \`click\` a ref | ${fmtMs(s.click.ms)} | ${fmtMs(a.click.ms)} | ${fmtRatio(ratio(s.click.ms, a.click.ms))} | ${fmtMs(s.click.cpuMs)} | | | |`);
  }
  const ts = task.svc;
  const ta = task["agent-browser"];
  if (ts && ta) {
    lines.push("", "**10-step task** (forms fixture: open, snapshot -i, fill ×3, check, click a radio, select, click Submit, snapshot -i; the submitted form checked in the page)", "");
    lines.push("| tool | total time | stdout bytes | form submitted |", "|---|---|---|---|");
    for (const [name, t] of [["svc", ts], ["agent-browser", ta]] as const) lines.push(`| ${name} | ${fmtMs(t.ms)} | ${fmtInt(t.bytes)} | ${t.submitted ? "yes" : "NO"} |`);
    lines.push(`| ratio svc/agent-browser | ${fmtRatio(ratio(ts.ms, ta.ms))} | ${fmtRatio(ratio(ts.bytes, ta.bytes))} | |`);
  }
  if (phases) lines.push("", "Phases of `svc snapshot -i` on forms (medians; ms since the process started, SVC_PHASES=1):", "", "```", phases, "```");
  const machine = `${cpus().length} cores (${cpus()[0]?.model ?? "?"}), Node ${process.version}, load ${loadavg().map((x) => x.toFixed(1)).join(" ")}`;
  const md = `${lines.join("\n")}\n\n${new Date().toISOString().slice(0, 10)} · ${machine}\n`;
  process.stdout.write(md);
  writeFileSync(join(ROOT, "bench", "results-agent-browser.md"), md);
  writeFileSync(join(ROOT, "bench", "results-agent-browser.json"), `${JSON.stringify({ date: new Date().toISOString(), machine, agentBrowser: version, runs: RUNS, pages: figures, task, phases }, null, 2)}\n`);
}

await main();
