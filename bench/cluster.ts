/**
 * What forwarding between `svc serve` replicas costs (target ≤ 2 ms p50 on loopback): two built replicas on one
 * Redis, one session on A; the same GETs go to A and through B, alternating so both see the same load. p50/p99 and
 * the added latency; BENCH_CLUSTER_N (2000) each after 200 warm-up. Run: `npm run build && node --import tsx
 * bench/cluster.ts`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startRedis } from "../test/support/redis.js";
import { round } from "./stats.js";
import { CHROME } from "./tool.js";

const N = Math.max(100, Number(process.env.BENCH_CLUSTER_N ?? 2000));
const WARMUP = 200;
const KEY = "bench-cluster-key-0000";
const SECRET = "bench-cluster-secret-0123456789";
const BIN = fileURLToPath(new URL("../bin/svc.js", import.meta.url));

interface Replica {
  child: ChildProcess;
  url: string;
}

async function spawnReplica(redisUrl: string, dir: string): Promise<Replica> {
  const env = { ...process.env, SVC_STATE_DIR: join(dir, "state"), SVC_CONFIG_DIR: join(dir, "config"), TMPDIR: dir, CHROME_PATH: CHROME };
  const child = spawn(process.execPath, [BIN, "--json", "serve", "--port", "0", "--api-key", KEY, "--warm-browsers", "0", "--store", redisUrl, "--cluster-secret", SECRET], { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const line = out.split("\n")[0];
      if (out.includes("\n") && line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once("exit", () => reject(new Error(`svc serve exited: ${err}`)));
  });
  return { child, url };
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

async function timedGet(url: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { "x-bb-api-key": KEY } });
  await res.arrayBuffer();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
  return ms;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-cluster-"));
  const redis = await startRedis();
  const replicas: Replica[] = [];
  try {
    replicas.push(await spawnReplica(redis.url, mkdtempSync(join(dir, "a-"))));
    replicas.push(await spawnReplica(redis.url, mkdtempSync(join(dir, "b-"))));
    const [a, b] = replicas as [Replica, Replica];
    const started = await fetch(`${a.url}/v1/sessions/start`, { method: "POST", headers: { "x-bb-api-key": KEY, "content-type": "application/json" }, body: JSON.stringify({ modelName: "openai/gpt-4.1-mini" }) });
    const id = ((await started.json()) as { data: { sessionId: string } }).data.sessionId;
    const results: Record<string, unknown>[] = [];
    for (const path of [`/v1/sessions/${id}`, `/v1/sessions/${id}/replay`]) {
      const direct: number[] = [];
      const forwarded: number[] = [];
      for (let i = 0; i < WARMUP + N; i++) {
        // Alternate which goes first, so neither always runs right after the other.
        const order = i % 2 ? [[a, direct], [b, forwarded]] : [[b, forwarded], [a, direct]];
        for (const [r, into] of order as [Replica, number[]][]) {
          const ms = await timedGet(`${r.url}${path}`);
          if (i >= WARMUP) into.push(ms);
        }
      }
      const row = {
        path: path.replace(id, "{id}"),
        n: N,
        direct: { p50: round(percentile(direct, 50), 3), p99: round(percentile(direct, 99), 3) },
        forwarded: { p50: round(percentile(forwarded, 50), 3), p99: round(percentile(forwarded, 99), 3) },
        addedP50: round(percentile(forwarded, 50) - percentile(direct, 50), 3),
        addedP99: round(percentile(forwarded, 99) - percentile(direct, 99), 3),
      };
      results.push(row);
    }
    await fetch(`${a.url}/v1/sessions/${id}/end`, { method: "POST", headers: { "x-bb-api-key": KEY, "content-type": "application/json" }, body: "{}" });
    const machine = `${cpus().length} × ${cpus()[0]?.model ?? "?"}, Node ${process.version}`;
    writeFileSync(fileURLToPath(new URL("./cluster-results.json", import.meta.url)), `${JSON.stringify({ date: new Date().toISOString(), machine, results }, null, 2)}\n`);
    console.log(`| request | direct p50 / p99 | forwarded p50 / p99 | added p50 / p99 |\n|---|---|---|---|`);
    for (const r of results as Array<{ path: string; direct: { p50: number; p99: number }; forwarded: { p50: number; p99: number }; addedP50: number; addedP99: number }>) {
      console.log(`| GET ${r.path} | ${r.direct.p50} / ${r.direct.p99} ms | ${r.forwarded.p50} / ${r.forwarded.p99} ms | ${r.addedP50} / ${r.addedP99} ms |`);
    }
    console.log(`(${N} requests each, ${machine})`);
  } finally {
    for (const r of replicas) r.child.kill("SIGTERM");
    await Promise.all(replicas.map((r) => new Promise((res) => (r.child.exitCode !== null ? res(null) : r.child.once("exit", res)))));
    await redis.close();
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  }
}

await main();
