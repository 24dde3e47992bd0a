/**
 * `svc worker --queue redis://…`: runs `svc batch --queue` tasks from BullMQ, `--concurrency` at once on their own
 * browsers (batch/run-task.ts), storing results in Redis. On SIGINT/SIGTERM it takes no new task and drains
 * (`--drain-timeout`). A crashed browser fails the attempt and BullMQ retries; a dead worker's locks lapse after
 * `--lock-duration`. A task whose result is stored is not run again.
 */
import { hostname } from "node:os";
import type { Job } from "bullmq";
import { errorMessage, sleep } from "../../src/base.js";
import { taskModels } from "./models.js";
import { type JobData, QUEUE_NAME, checkQueueUrl, connectRedis, openVariables, queueKey, recordResult, redactUrl, resultsKey } from "./queue.js";
import { BrowserTaskError, failedResult, runTask } from "./run-task.js";
import type { BatchTask } from "./tasks.js";
import { type GlobalOptions, SCHEMA_VERSION } from "../core/output.js";
import type { LaunchFlags } from "../core/runtime.js";

export interface WorkerFlags extends LaunchFlags {
  queue?: string;
  queueKey?: string;
  concurrency?: number;
  /** Given, or SVC_WORKER_LOCK_MS (the registry reads either through the same parser). */
  lockDuration?: number;
  drainTimeout?: number;
  name?: string;
}

export async function worker(g: GlobalOptions, flags: WorkerFlags, stop: AbortSignal): Promise<void> {
  const url = checkQueueUrl(flags.queue);
  const key = queueKey(flags.queueKey);
  const concurrency = flags.concurrency ?? 1;
  const lockDuration = flags.lockDuration ?? 30_000;
  const drainMs = flags.drainTimeout ?? 60_000;
  const name = flags.name ?? `${hostname()}:${process.pid}`;
  const say = (doc: Record<string, unknown>, text: string) => {
    process.stdout.write(g.json ? `${JSON.stringify({ schemaVersion: SCHEMA_VERSION, worker: name, ...doc })}\n` : `${text}\n`);
  };
  const redis = await connectRedis(url);
  const models = taskModels(g, false);
  const running = new AbortController();
  const { Worker } = await import("bullmq");

  const processor = async (job: Job<JobData>) => {
    const { batchId, task: wire, timeoutMs } = job.data;
    // attemptsStarted also counts a start whose worker died (a stall), which attemptsMade does not.
    const attempt = Math.max(job.attemptsStarted, job.attemptsMade + 1);
    if (await redis.hexists(resultsKey(batchId), String(wire.index))) {
      say({ type: "task_skip", batchId, index: wire.index, attempt }, `#${wire.index} of ${batchId}: already reported, not run again`);
      return;
    }
    say({ type: "task_start", batchId, index: wire.index, attempt }, `#${wire.index} of ${batchId}: started (attempt ${attempt})`);
    let task: BatchTask;
    try {
      const { sealedVariables, ...rest } = wire;
      task = { ...rest, ...(sealedVariables ? { variables: openVariables(sealedVariables, key, `task ${wire.index} of ${batchId}`) } : {}) };
    } catch (e) {
      await recordResult(redis, batchId, failedResult(wire, "INVALID_ARGUMENT", errorMessage(e), attempt));
      say({ type: "task_end", batchId, index: wire.index, attempt, success: false }, `#${wire.index} of ${batchId}: ${errorMessage(e)}`);
      return;
    }
    try {
      const result = await runTask(task, { g, launch: flags, model: models, timeoutMs, signal: running.signal });
      await recordResult(redis, batchId, { ...result, attempt });
      say({ type: "task_end", batchId, index: wire.index, attempt, success: result.success, durationMs: result.timing.durationMs }, `#${wire.index} of ${batchId}: ${result.success ? "ok" : "failed"} in ${result.timing.durationMs} ms`);
    } catch (e) {
      if (e instanceof BrowserTaskError) say({ type: "task_retry", batchId, index: wire.index, attempt, code: e.code, message: e.message }, `#${wire.index} of ${batchId}: ${e.message} (retried)`);
      throw e;
    }
  };

  const w = new Worker<JobData>(QUEUE_NAME, processor, {
    connection: redis,
    concurrency,
    name,
    lockDuration,
    stalledInterval: lockDuration,
    maxStalledCount: 3,
  });
  // The last attempt failed: the task's failure result, so the submitter is not left waiting on it.
  w.on("failed", (job, err) => {
    if (!job || job.attemptsMade < (job.opts.attempts ?? 1)) return;
    const data = job.data;
    void recordResult(redis, data.batchId, failedResult(data.task, "TASK_FAILED", `failed after ${job.attemptsMade} attempt(s): ${err.message}`, job.attemptsMade)).catch(() => {});
  });
  w.on("error", (e) => process.stderr.write(`svc: worker: ${errorMessage(e)}\n`));
  await w.waitUntilReady();
  say({ type: "ready", concurrency, queue: redactUrl(url) }, `worker ${name} ready: up to ${concurrency} task(s) at once from ${redactUrl(url)}`);

  await new Promise<void>((resolve) => (stop.aborted ? resolve() : stop.addEventListener("abort", () => resolve(), { once: true })));
  // Stop taking tasks; the running ones finish (a drain), then are aborted (their attempt is retried elsewhere).
  const closing = w.close();
  const drained = await Promise.race([closing.then(() => true), sleep(drainMs).then(() => false)]);
  if (!drained) {
    running.abort();
    await Promise.race([closing, sleep(5000)]);
  }
  say({ type: "stopped", drained }, `worker ${name} stopped${drained ? "" : " (running tasks aborted after --drain-timeout)"}`);
  redis.disconnect();
}
