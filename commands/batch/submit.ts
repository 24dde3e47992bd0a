/**
 * `svc batch --queue`: enqueue a batch on BullMQ and collect its results from Redis, now or later with `--results
 * <batchId>`. Collection polls the results hash and, less often, asks BullMQ about missing jobs (one failed for good
 * gets a failure result, HSETNX). Polling keeps one path for "just submitted" and "collected a day later", and
 * survives a submitter that reconnects.
 */
import { randomBytes } from "node:crypto";
import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { ServiceInvalidArgumentError } from "../../src/base.js";
import { errorMessage, sleep } from "../../src/base.js";
import { type JobData, KEEP_SECONDS, QUEUE_NAME, jobId, metaKey, recordResult, resultsKey, sealVariables } from "./queue.js";
import type { ResultSink } from "./results.js";
import { type BatchResult, failedResult } from "./run-task.js";
import type { BatchTask } from "./tasks.js";

export interface SubmitOptions {
  attempts: number;
  timeoutMs: number;
  key: string | undefined;
}

export async function openQueue(redis: Redis): Promise<Queue> {
  const { Queue } = await import("bullmq");
  return new Queue(QUEUE_NAME, { connection: redis });
}

/** Enqueues every task; returns the new batch id. */
export async function submit(redis: Redis, queue: Queue, tasks: readonly BatchTask[], o: SubmitOptions): Promise<string> {
  const withVars = tasks.find((t) => t.variables && Object.keys(t.variables).length);
  if (withVars && o.key === undefined) {
    throw new ServiceInvalidArgumentError(`line ${withVars.line}: variables on a queue need a queue key (they are never stored in Redis in clear)`, { hint: "set SVC_QUEUE_KEY (or --queue-key) here and on every worker" });
  }
  const batchId = `b${Date.now().toString(36)}${randomBytes(4).toString("hex")}`;
  await redis.multi().hset(metaKey(batchId), { total: String(tasks.length), createdAt: new Date().toISOString() }).expire(metaKey(batchId), KEEP_SECONDS).exec();
  const jobs = tasks.map((t) => {
    const { variables, ...rest } = t;
    const data: JobData = { batchId, timeoutMs: o.timeoutMs, task: { ...rest, ...(variables && Object.keys(variables).length ? { sealedVariables: sealVariables(variables, o.key!) } : {}) } };
    return {
      name: "agent",
      data,
      opts: {
        jobId: jobId(batchId, t.index),
        attempts: o.attempts,
        backoff: { type: "exponential" as const, delay: 1000 },
        removeOnComplete: { age: KEEP_SECONDS },
        removeOnFail: { age: KEEP_SECONDS },
      },
    };
  });
  await queue.addBulk(jobs);
  return batchId;
}

/** How many tasks a batch holds (from its meta record); INVALID_ARGUMENT for an unknown or expired id. */
export async function batchTotal(redis: Redis, batchId: string): Promise<number> {
  const total = Number(await redis.hget(metaKey(batchId), "total"));
  if (!Number.isInteger(total) || total <= 0) throw new ServiceInvalidArgumentError(`no batch "${batchId}" on this queue (unknown, or its results expired after 7 days)`);
  return total;
}

/** A job that failed for good: its failure result (written once), else undefined (still pending). */
async function settleFailed(redis: Redis, queue: Queue, batchId: string, index: number): Promise<void> {
  const job = await queue.getJob(jobId(batchId, index));
  if (!job) {
    await recordResult(redis, batchId, failedResult({ index }, "TASK_LOST", "the task's job is gone from the queue (removed by hand?)", 0));
    return;
  }
  if ((await job.getState()) !== "failed") return;
  const data = job.data as JobData;
  await recordResult(redis, batchId, failedResult(data.task, "TASK_FAILED", `failed after ${job.attemptsMade} attempt(s): ${job.failedReason ?? "unknown reason"}`, job.attemptsMade));
}

/** Waits until every result of the batch is in the sink (each added once, as it arrives). */
export async function collect(redis: Redis, queue: Queue, batchId: string, sink: ResultSink, onResult: (r: BatchResult) => void, signal?: AbortSignal): Promise<void> {
  let lastCheck = Date.now();
  while (sink.count < sink.total) {
    const missing = Array.from({ length: sink.total }, (_, i) => i).filter((i) => !sink.has(i));
    for (let i = 0; i < missing.length; i += 500) {
      const chunk = missing.slice(i, i + 500);
      const values = await redis.hmget(resultsKey(batchId), ...chunk.map(String));
      values.forEach((v) => {
        if (v === null) return;
        try {
          const r = JSON.parse(v) as BatchResult;
          if (sink.add(r)) onResult(r);
        } catch (e) {
          process.stderr.write(`svc: an unreadable result in Redis: ${errorMessage(e)}\n`);
        }
      });
    }
    if (sink.count >= sink.total) break;
    if (Date.now() - lastCheck > 2000) {
      lastCheck = Date.now();
      for (const index of missing.filter((i) => !sink.has(i))) await settleFailed(redis, queue, batchId, index);
      continue;
    }
    await sleep(250, signal);
  }
}
