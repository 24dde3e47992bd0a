/**
 * One batch task, run as `svc agent --new` runs one: a browser of its own (no cookie leaks between tasks; a crashed
 * Chrome costs one task), the URL, then the agent. Local pool and BullMQ worker share it, so both give the same
 * results, every variable value masked since results go to files and Redis. A browser that crashed or could not start
 * throws BrowserTaskError: a worker retries elsewhere.
 */
import { type Abortable, type AgentResultData, Secrets } from "../../src/index.js";
import { ServiceError, ServiceTimeoutError } from "../../src/base.js";
import { Cancellation, errorMessage, fromJsonSchema } from "../../src/base.js";
import type { CliModel } from "../core/model.js";
import type { GlobalOptions } from "../core/output.js";
import { type LaunchFlags, withOneShot } from "../core/runtime.js";
import type { BatchTask } from "./tasks.js";

export interface BatchResult extends AgentResultData {
  index: number;
  id?: string | number;
  timing: { startedAt: string; finishedAt: string; durationMs: number };
  /** Set when the task could not run to a result of the agent (navigation failed, no key, timeout…). */
  error?: { code: string; message: string };
  /** Queue mode: which attempt produced this result (1 = first). */
  attempt?: number;
}

/** Codes that mean the browser, not the task, failed: retried on a queue. */
const BROWSER_CODES = new Set(["BROWSER_CLOSED", "TARGET_CRASHED", "INIT_FAILED", "BROWSER_NOT_FOUND"]);

export class BrowserTaskError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface TaskRunOptions extends Abortable {
  g: GlobalOptions;
  launch: LaunchFlags;
  /** The task's model, resolved (key included) by the caller. */
  model: (task: BatchTask) => Promise<CliModel>;
  /** Default per-task wall time in ms when the task names none. */
  timeoutMs: number;
}

/** Grace after the agent's own deadline before the whole task (launch, navigation, close) is cut off. */
const HARD_GRACE_MS = 15_000;

const ZERO_USAGE = { input_tokens: 0, output_tokens: 0, inference_time_ms: 0 };

export async function runTask(task: BatchTask, o: TaskRunOptions): Promise<BatchResult> {
  const started = Date.now();
  const secrets = new Secrets();
  secrets.remember(task.variables);
  const timeoutMs = task.timeoutMs ?? o.timeoutMs;
  const cancellation = new Cancellation({ signal: o.signal, timeout: timeoutMs + HARD_GRACE_MS, what: `task ${task.index}` });
  let data: AgentResultData;
  let error: BatchResult["error"];
  try {
    data = await cancellation.run(async (signal) => {
      const model = await o.model(task);
      return withOneShot(o.g, o.launch, async ({ svc }) => {
        try {
          if (task.url !== undefined) await svc.page.goto(task.url);
          const result = await svc.agent({ model }).execute({
            instruction: task.instruction,
            signal,
            timeoutMs,
            ...(task.variables ? { variables: task.variables } : {}),
            ...(task.maxSteps !== undefined ? { maxSteps: task.maxSteps } : {}),
            ...(task.output ? { output: fromJsonSchema(task.output) } : {}),
          });
          // Values typed into password fields were added to the session's secrets during the run.
          for (const s of svc.secrets.entries()) secrets.add(s.name, s.value);
          return result;
        } catch (e) {
          for (const s of svc.secrets.entries()) secrets.add(s.name, s.value);
          throw e;
        }
      });
    });
  } catch (e) {
    // Stopped from outside (Ctrl-C, a worker shutting down): no result; a queue retries the task.
    if (o.signal?.aborted) throw e;
    const code = e instanceof ServiceError || typeof (e as { code?: unknown })?.code === "string" ? String((e as { code: string }).code) : "INTERNAL";
    if (BROWSER_CODES.has(code)) throw new BrowserTaskError(code, secrets.text(errorMessage(e)));
    error = { code: e instanceof ServiceTimeoutError ? "TIMEOUT" : code, message: errorMessage(e) };
    data = { success: false, completed: false, message: errorMessage(e), actions: [], usage: ZERO_USAGE };
  }
  const finished = Date.now();
  const { actions, ...rest } = data;
  const result: BatchResult = {
    index: task.index,
    ...(task.id !== undefined ? { id: task.id } : {}),
    ...rest,
    // Screenshots (hybrid mode) stay out of results files, as out of `svc agent`'s output.
    actions: actions.map(({ image: _image, ...a }) => a),
    usage: data.usage ?? ZERO_USAGE,
    timing: { startedAt: new Date(started).toISOString(), finishedAt: new Date(finished).toISOString(), durationMs: finished - started },
    ...(error ? { error } : {}),
  };
  return secrets.deep(result);
}

/** A result for a task that produced none of the agent's (its job failed for good, its browser kept crashing). */
export function failedResult(task: Pick<BatchTask, "index" | "id">, code: string, message: string, attempt?: number): BatchResult {
  const now = new Date().toISOString();
  return {
    index: task.index,
    ...(task.id !== undefined ? { id: task.id } : {}),
    success: false,
    completed: false,
    message,
    actions: [],
    usage: ZERO_USAGE,
    timing: { startedAt: now, finishedAt: now, durationMs: 0 },
    error: { code, message },
    ...(attempt !== undefined ? { attempt } : {}),
  };
}

/** Exit-code summary of a set of results. */
export function countResults(results: readonly BatchResult[]): { total: number; succeeded: number; failed: number } {
  const succeeded = results.filter((r) => r.success).length;
  return { total: results.length, succeeded, failed: results.length - succeeded };
}
