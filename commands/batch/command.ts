/**
 * `svc batch tasks.jsonl` (docs/agent.md): agent tasks run on a local pool of `--concurrency` browsers, or enqueued
 * on BullMQ for `svc worker`s (batch/submit.ts). Each result is the agent's result plus the task's index/id, timing
 * and usage, in input order, each once (batch/results.ts). Exit 0 when every task succeeded, 11 (BATCH_INCOMPLETE)
 * otherwise.
 */
import { availableParallelism } from "node:os";
import { ServiceInvalidArgumentError } from "../../src/base.js";
import { taskModels } from "./models.js";
import { checkBatchId, checkQueueUrl, connectRedis, queueKey, redactUrl } from "./queue.js";
import { ResultSink } from "./results.js";
import { type BatchResult, BrowserTaskError, countResults, failedResult, runTask } from "./run-task.js";
import { type BatchTask, readTasks } from "./tasks.js";
import { registerCleanup } from "../core/cleanup.js";
import { IncompleteRunError } from "../core/errors.js";
import { checkOutputPath } from "../core/output-file.js";
import { type GlobalOptions, SCHEMA_VERSION } from "../core/output.js";
import type { LaunchFlags } from "../core/runtime.js";

export interface BatchFlags extends LaunchFlags {
  concurrency?: number;
  output?: string;
  queue?: string;
  queueKey?: string;
  taskTimeout?: number;
  attempts?: number;
  detach?: boolean;
  results?: string;
}

/** Some tasks of the batch did not succeed (their results say why). */
class BatchIncompleteError extends IncompleteRunError {
  override readonly code = "BATCH_INCOMPLETE";
}

const DEFAULT_TASK_TIMEOUT_MS = 300_000;

interface Report {
  onResult(r: BatchResult): void;
  onOrdered(r: BatchResult): void;
  started(): void;
  finish(summary: Record<string, unknown>): Promise<void>;
}

function reporter(g: GlobalOptions, total: number, toFile: boolean, where: string): Promise<Report> | Report {
  const line = (doc: Record<string, unknown>) => process.stdout.write(`${JSON.stringify({ schemaVersion: SCHEMA_VERSION, ...doc })}\n`);
  if (!g.json && process.stdout.isTTY) {
    // Said at once: loading the bar (Ink) and the first browsers take seconds on a busy machine.
    process.stdout.write(`svc batch: starting ${total} task${total === 1 ? "" : "s"} on ${where}…\n`);
    return import("../ui/batch-progress.js").then(({ startBatchProgress }) => {
      const bar = startBatchProgress(total, where);
      return {
        onResult: (r) => bar.finished({ index: r.index, id: r.id, success: r.success, message: r.error ? `${r.error.code}: ${r.message}` : r.message }),
        onOrdered: () => {},
        started: () => bar.started(),
        async finish(s) {
          await bar.close();
          process.stdout.write(`${s.succeeded}/${s.total} succeeded${s.output ? ` · results in ${String(s.output)}` : ""}${s.batchId ? ` · batch ${String(s.batchId)}` : ""}\n`);
        },
      };
    });
  }
  return {
    onResult: () => {},
    onOrdered: (r) => (toFile ? undefined : line({ type: "result", ...r })),
    started: () => {},
    async finish(s) {
      line({ type: "summary", ...s });
    },
  };
}

async function runLocal(g: GlobalOptions, tasks: BatchTask[], flags: BatchFlags, sink: ResultSink, report: Report, timeoutMs: number): Promise<void> {
  const concurrency = flags.concurrency ?? Math.min(4, availableParallelism());
  const model = taskModels(g, true);
  // Every model (and its key) before the first browser starts: a missing key is asked for, or fails, once.
  for (const name of new Set(tasks.map((t) => t.model))) await model({ ...(name !== undefined ? { model: name } : {}) });
  const controller = new AbortController();
  const unregister = registerCleanup(() => controller.abort());
  let next = 0;
  const lane = async () => {
    while (next < tasks.length && !controller.signal.aborted) {
      const task = tasks[next++]!;
      report.started();
      let result: BatchResult | undefined;
      // A browser that crashed (or did not start) gets one more try here, as a worker's task would.
      for (let attempt = 1; !result; attempt++) {
        try {
          result = await runTask(task, { g, launch: flags, model, timeoutMs, signal: controller.signal });
        } catch (e) {
          if (!(e instanceof BrowserTaskError)) throw e;
          if (attempt >= 2) result = failedResult(task, e.code, e.message, attempt);
        }
      }
      if (sink.add(result)) report.onResult(result);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, tasks.length) }, lane));
  } finally {
    unregister();
  }
}

async function runQueued(g: GlobalOptions, tasks: BatchTask[] | undefined, flags: BatchFlags, out: string | undefined, timeoutMs: number): Promise<void> {
  const url = checkQueueUrl(flags.queue);
  const key = queueKey(flags.queueKey);
  const attempts = flags.attempts ?? 3;
  const { batchTotal, collect, openQueue, submit } = await import("./submit.js");
  const redis = await connectRedis(url);
  const queue = await openQueue(redis);
  const controller = new AbortController();
  const unregister = registerCleanup(() => controller.abort());
  try {
    const batchId = tasks ? await submit(redis, queue, tasks, { attempts, timeoutMs, key }) : checkBatchId(flags.results!);
    const total = tasks ? tasks.length : await batchTotal(redis, batchId);
    if (flags.detach) {
      if (g.json) process.stdout.write(`${JSON.stringify({ schemaVersion: SCHEMA_VERSION, type: "submitted", batchId, total, queue: redactUrl(url) })}\n`);
      else process.stdout.write(`${batchId}\n`);
      return;
    }
    if (!g.json && !process.stdout.isTTY) process.stderr.write(`svc: batch ${batchId}: ${total} task(s) on ${redactUrl(url)}\n`);
    await finishBatch(g, total, out, `batch ${batchId}`, { batchId }, (sink, report) => collect(redis, queue, batchId, sink, (r) => report.onResult(r), controller.signal));
  } finally {
    unregister();
    await queue.close().catch(() => {});
    redis.disconnect();
  }
}

/** Runs `work` into a sink and a reporter, then writes the file, prints the summary and decides the exit. */
async function finishBatch(g: GlobalOptions, total: number, out: string | undefined, where: string, extra: Record<string, unknown>, work: (sink: ResultSink, report: Report) => Promise<void>): Promise<void> {
  const report = await reporter(g, total, out !== undefined, where);
  const sink = new ResultSink(total, out, (r) => report.onOrdered(r));
  try {
    await work(sink, report);
  } catch (e) {
    sink.close();
    await report.finish({ ...extra, ...countResults(sink.ordered()), total, interrupted: true, ...(sink.journalPath ? { journal: sink.journalPath } : {}) }).catch(() => {});
    throw e;
  }
  const counts = countResults(sink.ordered());
  const summary = { ...extra, ...counts, ...(out ? { output: out } : {}) };
  sink.finish(summary);
  await report.finish(summary);
  if (counts.failed) throw new BatchIncompleteError(`${counts.failed} of ${counts.total} task(s) did not succeed`, g.json);
}

export async function batch(g: GlobalOptions, file: string | undefined, flags: BatchFlags): Promise<void> {
  const timeoutMs = flags.taskTimeout ?? DEFAULT_TASK_TIMEOUT_MS;
  const out = flags.output !== undefined ? checkOutputPath(flags.output) : undefined;
  if (flags.queue !== undefined) checkQueueUrl(flags.queue);
  if (flags.results !== undefined) {
    if (file !== undefined) throw new ServiceInvalidArgumentError("--results collects a queued batch: give no task file with it");
    if (flags.queue === undefined) throw new ServiceInvalidArgumentError("--results needs --queue (the Redis the batch was queued on)");
    return runQueued(g, undefined, flags, out, timeoutMs);
  }
  if (file === undefined) throw new ServiceInvalidArgumentError("batch needs a task file", { hint: 'svc batch tasks.jsonl, one {"instruction": "…", "url": "…"} per line' });
  const tasks = readTasks(file);
  if (flags.queue !== undefined) return runQueued(g, tasks, flags, out, timeoutMs);
  if (flags.detach) throw new ServiceInvalidArgumentError("--detach applies to a queued batch (--queue)");
  await finishBatch(g, tasks.length, out, "local pool", {}, (sink, report) => runLocal(g, tasks, flags, sink, report, timeoutMs));
}
