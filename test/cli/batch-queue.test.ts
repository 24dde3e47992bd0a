/**
 * `svc batch --queue` with three real `svc worker`s on a real Redis: every result once, in input order (one task more
 * than workers, so one is left when a worker is gone); a worker killed (-9) mid-task has its task finish elsewhere;
 * variables never reach Redis in clear; a local pool gives the same results; `--detach` + `--results` collects later.
 */
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useRedis } from "../support/redis.js";
import { type Line, SECRET, batchBrain, comparable, jsonLines, scriptBrain, writeTasks } from "./batch-support.js";
import { type ModelWorld, pidAlive, spawnSvc, startModelWorld, svc, waitFor, pollUntil, expectNoChrome } from "./helpers.js";

const redis = useRedis();
let world: ModelWorld;
const workers: Array<{ child: ChildProcess; out: () => Line[] }> = [];

function startWorker(env: NodeJS.ProcessEnv, name: string) {
  const child = spawnSvc(["--json", "worker", "--queue", redis.url, "--concurrency", "1", "--lock-duration", "5000", "--name", name], env);
  let stdout = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr?.setEncoding("utf8").on("data", (d: string) => process.stderr.write(`[${name}] ${d}`));
  const w = { child, out: () => jsonLines(stdout.slice(0, stdout.lastIndexOf("\n") + 1)) };
  workers.push(w);
  return w;
}

beforeAll(async () => {
  world = await startModelWorld();
  world.sb.env.SVC_QUEUE_KEY = "correct horse battery staple";
});

afterAll(async () => {
  for (const w of workers) if (w.child.exitCode === null) w.child.kill("SIGKILL");
  await world?.close();
});

/** Every string Redis holds (hashes, lists, sets, sorted sets, strings, streams), to look for a value in clear. */
async function everything(url: string): Promise<string> {
  const r = new Redis(url);
  try {
    const parts: string[] = [];
    for (const key of await r.keys("*")) {
      const type = await r.type(key);
      if (type === "hash") parts.push(JSON.stringify(await r.hgetall(key)));
      else if (type === "string") parts.push(String(await r.get(key)));
      else if (type === "list") parts.push(JSON.stringify(await r.lrange(key, 0, -1)));
      else if (type === "set") parts.push(JSON.stringify(await r.smembers(key)));
      else if (type === "zset") parts.push(JSON.stringify(await r.zrange(key, 0, -1)));
      else if (type === "stream") parts.push(JSON.stringify(await r.xrange(key, "-", "+")));
      parts.push(key);
    }
    return parts.join("\n");
  } finally {
    r.disconnect();
  }
}

describe("svc batch --queue with svc worker", () => {
  it("4 tasks over 3 workers, one killed mid-task: every result once, in order, the same as a local pool's", async () => {
    const { server, fake, sb } = world;
    scriptBrain(fake, batchBrain(3000));
    const tasks = join(sb.tmp, "..", "tasks4.jsonl");
    const SLOW = 1;
    const SECRET_TASK = 3;
    writeTasks(tasks, server, { count: 4, slow: SLOW, secret: SECRET_TASK });
    const ws = ["w1", "w2", "w3"].map((n) => startWorker(sb.env, n));
    await waitFor(() => ws.every((w) => w.out().some((l) => l.type === "ready")), 30_000);

    const file = join(sb.tmp, "..", "queue-results.jsonl");
    const submitter = svc(["--json", "batch", tasks, "--queue", redis.url, "-o", file], sb.env, { timeoutMs: 240_000 });
    // The worker that took the slow task is killed while the model is still thinking about it.
    let victim: (typeof ws)[number] | undefined;
    await pollUntil(() => !!(victim = ws.find((w) => w.out().some((l) => l.type === "task_start" && l.index === SLOW))), 60_000, 50);
    expect(victim, "no worker took the slow task").toBeDefined();
    const thinking = () => fake.requests.some((q) => q.instruction?.startsWith(`Task ${SLOW}:`) && !q.response);
    expect(await pollUntil(thinking, 30_000, 20), "the slow task never reached the model").toBe(true);
    victim!.child.kill("SIGKILL");
    const r = await submitter;
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(jsonLines(r.stdout).at(-1)).toMatchObject({ type: "summary", total: 4, succeeded: 4, failed: 0, batchId: expect.any(String) });

    const results = jsonLines(readFileSync(file, "utf8")).filter((l) => l.type === "result");
    expect(results.map((l) => l.index)).toEqual(Array.from({ length: 4 }, (_, i) => i));
    expect(results[SLOW]).toMatchObject({ success: true, message: `Task ${SLOW}: Yellow Tulip costs 4.20` });
    expect(results[SLOW]!.attempt).toBeGreaterThanOrEqual(2);
    // The slow task ended on a worker that is still alive, not on the one killed under it.
    // (A worker's task_end line may reach this test after the submitter collected the result: waited for.)
    const survivors = ws.filter((w) => w !== victim);
    await waitFor(() => survivors.some((w) => w.out().some((l) => l.type === "task_end" && l.index === SLOW && l.success)), 30_000);
    expect(victim!.out().some((l) => l.type === "task_end" && l.index === SLOW)).toBe(false);
    // Work was shared: each surviving worker ran tasks.
    await waitFor(() => survivors.every((w) => w.out().some((l) => l.type === "task_end")), 30_000);
    // Variables: sealed on the queue, masked in the results.
    expect(results[SECRET_TASK]!.message).toBe(`Task ${SECRET_TASK}: searched Garden Shop`);
    expect(await everything(redis.url)).not.toContain(SECRET);
    expect(readFileSync(file, "utf8")).not.toContain(SECRET);

    // The same batch on a local pool: the same results.
    scriptBrain(fake, batchBrain());
    const local = await svc(["--json", "batch", tasks, "--concurrency", "3"], sb.env, { timeoutMs: 150_000 });
    expect(local.code, local.stderr).toBe(0);
    const localResults = jsonLines(local.stdout).filter((l) => l.type === "result");
    expect(localResults.map(comparable)).toEqual(results.map(comparable));

    for (const w of survivors) w.child.kill("SIGTERM");
    await waitFor(() => survivors.every((w) => w.child.exitCode !== null));
    for (const w of survivors) expect(w.out().at(-1)).toMatchObject({ type: "stopped", drained: true });
    expect(pidAlive(victim!.child.pid!)).toBe(false);
    await expectNoChrome(sb.tmp);
  }, 420_000);

  it("--detach prints a batch id; --results collects it once a worker has run it; variables without a key are refused", async () => {
    const { server, fake, sb } = world;
    // Only the worker started below may take these tasks.
    for (const w of workers) if (w.child.exitCode === null) w.child.kill("SIGKILL");
    scriptBrain(fake, batchBrain());
    const tasks = join(sb.tmp, "..", "tasks2.jsonl");
    writeTasks(tasks, server, { count: 2, secret: 1 });
    const noKey = { ...sb.env };
    delete noKey.SVC_QUEUE_KEY;
    const refused = await svc(["batch", tasks, "--queue", redis.url], noKey);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/line 2: variables on a queue need a queue key/);

    const d = await svc(["--json", "batch", tasks, "--queue", redis.url, "--detach"], sb.env);
    expect(d.code, d.stderr).toBe(0);
    const submitted = jsonLines(d.stdout)[0]!;
    expect(submitted).toMatchObject({ type: "submitted", total: 2, batchId: expect.any(String) });
    const w = startWorker(sb.env, "late");
    const r = await svc(["--json", "batch", "--queue", redis.url, "--results", submitted.batchId], sb.env, { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const out = jsonLines(r.stdout);
    expect(out.filter((l) => l.type === "result").map((l) => l.message)).toEqual(["Task 0: Red Rose costs 12.50", "Task 1: searched Garden Shop"]);
    // Collected again later: the same results, nothing run twice.
    const again = await svc(["--json", "batch", "--queue", redis.url, "--results", submitted.batchId], sb.env);
    expect(jsonLines(again.stdout).filter((l) => l.type === "result").map(comparable)).toEqual(out.filter((l) => l.type === "result").map(comparable));
    expect(w.out().filter((l) => l.type === "task_end").length).toBe(2);
    const unknown = await svc(["batch", "--queue", redis.url, "--results", "nope"], sb.env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no batch "nope"/);
    w.child.kill("SIGTERM");
  }, 120_000);
});
