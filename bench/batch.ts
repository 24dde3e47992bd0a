/**
 * Batch throughput: the same fixture batch by `svc batch --queue` with 1, 2 and 4 workers on one Redis, and by the
 * local pool at the same concurrency; wall time, tasks per minute and Chrome PSS per running task. The fake model
 * answers after BENCH_BATCH_MODEL_MS (400) per step, for a real model's latency. Run: `npm run build && node --import
 * tsx bench/batch.ts` (BENCH_BATCH_TASKS, BENCH_BATCH_SIZES).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeModel } from "../test/support/fake-model.js";
import { startRedis } from "../test/support/redis.js";
import { startFixtureServer } from "../test/support/server.js";
import { batchBrain, writeTasks } from "../test/cli/batch-support.js";
import { processTree, sum } from "./proc-tree.js";
import { median } from "./stats.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "bin", "svc.js");
const TASKS = Number(process.env.BENCH_BATCH_TASKS ?? 24);
const SIZES = (process.env.BENCH_BATCH_SIZES ?? "1,2,4").split(",").map(Number);
const MODEL_MS = Number(process.env.BENCH_BATCH_MODEL_MS ?? 400);

interface Row {
  mode: "queue" | "local";
  n: number;
  wallMs: number;
  tasksPerMin: number;
  medianTaskMs: number;
  /** Median of (task duration − model time): launch, navigation, snapshots, close. */
  medianOverheadMs: number;
  /** Median PSS of Chrome processes per running browser, MB. */
  chromeMBPerTask: number | undefined;
  ok: number;
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env, cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

/** Samples the Chromes under this process while `work` runs: PSS per browser when at least one runs. */
async function sampled<T>(work: Promise<T>): Promise<{ value: T; mbPerBrowser: number | undefined }> {
  const samples: number[] = [];
  let done = false;
  const loop = (async () => {
    while (!done) {
      const procs = await processTree(true);
      const browsers = procs.filter((p) => p.kind === "chrome-browser").length;
      if (browsers > 0) samples.push(sum(procs.filter((p) => p.kind === "chrome-browser" || p.kind === "chrome-child"), "pssKB") / 1024 / browsers);
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  const value = await work.finally(() => (done = true));
  await loop;
  return { value, mbPerBrowser: samples.length ? median(samples) : undefined };
}

function row(mode: Row["mode"], n: number, wallMs: number, resultsText: string, mb: number | undefined): Row {
  const results = resultsText
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { success: boolean; timing: { durationMs: number }; usage: { inference_time_ms: number } });
  return {
    mode,
    n,
    wallMs,
    tasksPerMin: Math.round((results.length / wallMs) * 60_000 * 10) / 10,
    medianTaskMs: median(results.map((r) => r.timing.durationMs)),
    medianOverheadMs: median(results.map((r) => r.timing.durationMs - r.usage.inference_time_ms)),
    chromeMBPerTask: mb === undefined ? undefined : Math.round(mb),
    ok: results.filter((r) => r.success).length,
  };
}

async function main(): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), "svc-bench-batch-"));
  const [server, fake, redis] = await Promise.all([startFixtureServer(), startFakeModel({ latencyMs: MODEL_MS }), startRedis()]);
  const env: NodeJS.ProcessEnv = { ...process.env, SVC_STATE_DIR: join(base, "state"), SVC_CONFIG_DIR: join(base, "config"), OPENAI_API_KEY: "sk-bench", SVC_MODEL_BASE_URL: fake.baseURL(), CHROME_PATH: process.env.CHROME_PATH ?? "/usr/bin/chromium" };
  const tasks = join(base, "tasks.jsonl");
  writeTasks(tasks, server, { count: TASKS });
  const brain = batchBrain();
  const rows: Row[] = [];
  const load = [loadavg()[0]!];
  try {
    for (const n of SIZES) {
      fake.reset();
      fake.script(...Array.from({ length: TASKS * 4 }, () => brain));
      const out = join(base, `local-${n}.jsonl`);
      const t0 = Date.now();
      const { value: r, mbPerBrowser } = await sampled(run(["--json", "batch", tasks, "--concurrency", String(n), "-o", out], env));
      if (r.code !== 0) throw new Error(`local ${n}: exit ${r.code}: ${r.stderr}`);
      rows.push(row("local", n, Date.now() - t0, readFileSync(out, "utf8"), mbPerBrowser));
      process.stderr.write(`local pool ${n}: ${JSON.stringify(rows.at(-1))}\n`);
    }
    for (const n of SIZES) {
      fake.reset();
      fake.script(...Array.from({ length: TASKS * 4 }, () => brain));
      const workers: ChildProcess[] = [];
      let ready = 0;
      await new Promise<void>((resolve) => {
        for (let i = 0; i < n; i++) {
          const w = spawn(process.execPath, [BIN, "--json", "worker", "--queue", redis.url, "--concurrency", "1"], { env, cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
          w.stdout.setEncoding("utf8").on("data", (d: string) => {
            if (d.includes('"type":"ready"') && ++ready === n) resolve();
          });
          workers.push(w);
        }
      });
      const out = join(base, `queue-${n}.jsonl`);
      const t0 = Date.now();
      const { value: r, mbPerBrowser } = await sampled(run(["--json", "batch", tasks, "--queue", redis.url, "-o", out], env));
      const wall = Date.now() - t0;
      for (const w of workers) w.kill("SIGTERM");
      await Promise.all(workers.map((w) => new Promise((res) => (w.exitCode !== null ? res(null) : w.once("exit", res)))));
      if (r.code !== 0) throw new Error(`queue ${n}: exit ${r.code}: ${r.stderr}`);
      rows.push(row("queue", n, wall, readFileSync(out, "utf8"), mbPerBrowser));
      process.stderr.write(`queue ${n} worker(s): ${JSON.stringify(rows.at(-1))}\n`);
    }
  } finally {
    load.push(loadavg()[0]!);
    await Promise.all([server.close(), fake.close(), redis.close()]);
    rmSync(base, { recursive: true, force: true });
  }
  const meta = { date: new Date().toISOString(), cpus: cpus().length, cpu: cpus()[0]?.model, loadStart: load[0], loadEnd: load[1], tasks: TASKS, modelMs: MODEL_MS };
  writeFileSync(new URL("./batch-results.json", import.meta.url), `${JSON.stringify({ meta, rows }, null, 2)}\n`);
  const lines = [
    `${TASKS} tasks (1–2 agent steps, model ${MODEL_MS} ms per step), ${meta.cpus} cores (${meta.cpu}), 1-min load ${meta.loadStart?.toFixed(1)} → ${meta.loadEnd?.toFixed(1)}`,
    "",
    "| runner | browsers at once | wall | tasks/min | median task | median task − model time | Chrome PSS per running task |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map((r) => `| ${r.mode === "queue" ? `${r.n} worker${r.n > 1 ? "s" : ""}` : "local pool"} | ${r.n} | ${(r.wallMs / 1000).toFixed(1)} s | ${r.tasksPerMin} | ${r.medianTaskMs} ms | ${r.medianOverheadMs} ms | ${r.chromeMBPerTask ?? "–"} MB |`),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

await main();
