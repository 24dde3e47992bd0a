/**
 * What `svc batch --queue` and `svc worker` share: the queue's name, job data, where results live in Redis and how
 * variables stay out of it in clear. Retries are BullMQ's (a dead worker's job stalls and is put back). A result is
 * stored with HSETNX before its job completes, so a retried task is reported once. Variables are sealed (AES-256-GCM)
 * under the queue key, required when there are any.
 */
import type { Redis } from "ioredis";
import { ServiceError, ServiceInvalidArgumentError } from "../../src/base.js";
import type { Variables } from "../../src/internal.js";
import { errorMessage, openSealed, sealState } from "../../src/base.js";
import type { BatchResult } from "./run-task.js";
import type { BatchTask } from "./tasks.js";

export const QUEUE_NAME = "svc-batch";
export const KEEP_SECONDS = 7 * 24 * 3600;
const QUEUE_KEY_ENV = "SVC_QUEUE_KEY";

/** Redis is unreachable or answered with an error. */
class QueueUnavailableError extends ServiceError {
  override readonly code = "QUEUE_UNAVAILABLE";
}

/** A task as it travels on the queue: variable values sealed. */
export interface JobData {
  batchId: string;
  task: Omit<BatchTask, "variables"> & { sealedVariables?: string };
  /** Default per-task wall time of the submitter (a task's own timeoutMs wins). */
  timeoutMs: number;
}

export const jobId = (batchId: string, index: number) => `${batchId}-${index}`;
export const resultsKey = (batchId: string) => `svc:batch:${batchId}:results`;
export const metaKey = (batchId: string) => `svc:batch:${batchId}:meta`;

export function checkQueueUrl(raw: string | undefined, flag = "--queue"): string {
  if (raw === undefined) throw new ServiceInvalidArgumentError(`${flag} is required`, { hint: `${flag} redis://host:6379` });
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ServiceInvalidArgumentError(`${flag} must be a redis:// or rediss:// URL, got "${raw.slice(0, 80)}"`);
  }
  if (u.protocol !== "redis:" && u.protocol !== "rediss:") throw new ServiceInvalidArgumentError(`${flag} must be a redis:// or rediss:// URL, got "${u.protocol}"`);
  return raw;
}

export function checkBatchId(raw: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(raw)) throw new ServiceInvalidArgumentError(`--results: not a batch id: "${raw.slice(0, 80)}"`);
  return raw;
}

/** The queue key: the flag, else SVC_QUEUE_KEY; undefined when neither is set. */
export function queueKey(flag: string | undefined): string | undefined {
  const key = flag ?? process.env[QUEUE_KEY_ENV];
  if (key !== undefined && !key.trim()) throw new ServiceInvalidArgumentError(`--queue-key (or ${QUEUE_KEY_ENV}) must not be empty`);
  return key;
}

export function sealVariables(variables: Variables, key: string): string {
  return sealState(JSON.stringify(variables), key);
}

export function openVariables(sealed: string, key: string | undefined, where: string): Variables {
  if (key === undefined) throw new ServiceInvalidArgumentError(`${where} has encrypted variables and this worker has no queue key`, { hint: `set ${QUEUE_KEY_ENV} (or --queue-key) to the submitter's key` });
  try {
    return JSON.parse(openSealed(sealed, key, where)) as Variables;
  } catch (e) {
    throw new ServiceInvalidArgumentError(`${where}: cannot decrypt its variables with this worker's queue key (${errorMessage(e).includes("wrong") ? "wrong key" : "damaged"})`);
  }
}

/** An ioredis connection as BullMQ wants it (no per-request retry limit), checked with a PING first. */
export async function connectRedis(url: string): Promise<Redis> {
  const { Redis: IORedis } = await import("ioredis");
  const probe = new IORedis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 5000, retryStrategy: () => null });
  probe.on("error", () => {});
  try {
    await probe.connect();
    await probe.ping();
  } catch (e) {
    throw new QueueUnavailableError(`cannot reach Redis at ${redactUrl(url)}: ${errorMessage(e)}`);
  } finally {
    probe.disconnect();
  }
  const redis = new IORedis(url, { maxRetriesPerRequest: null });
  redis.on("error", () => {});
  return redis;
}

/** The URL without its password (for messages). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "redis URL";
  }
}

/** Stores a result unless one is there already; true when this one was stored. */
export async function recordResult(redis: Redis, batchId: string, result: BatchResult): Promise<boolean> {
  const key = resultsKey(batchId);
  const [[, stored]] = (await redis.multi().hsetnx(key, String(result.index), JSON.stringify(result)).expire(key, KEEP_SECONDS).exec()) as [[unknown, number]];
  return stored === 1;
}
