/**
 * How a run calls what is not the model: a tool, under its time limit (the tool's own, or toolTimeout), and the
 * caller's per-step hook, under STEP_HOOK_TIMEOUT_MS. A failure or an overrun becomes words for the model or a
 * warning; only the run's own end (an abort, a budget) stops the run.
 */
import type { Page } from "../browser/page.js";
import { errorMessage } from "../errors.js";
import { abortError, Cancellation } from "../util/abort.js";
import { watchNavigation } from "./navigation.js";
import { STEP_HOOK_TIMEOUT_MS, type AgentStepEnd, type ResolvedExecuteOptions, type StepEndHook } from "./options.js";
import type { AgentTool, ToolEnv, ToolOutcome } from "./tools.js";

export interface ToolCall {
  page: Page;
  tool: AgentTool;
  args: unknown;
  options: ResolvedExecuteOptions;
  /** The run's signal: aborted when the run ends (a user abort, its timeout). */
  runSignal: AbortSignal;
  /** What the tool works with, for its own signal and the deadline of its element waits. */
  env(signal: AbortSignal, deadline: number): ToolEnv;
}

/**
 * Runs a tool under its limit; errors and overruns become an error outcome for the model. The tool's signal
 * aborts at the limit (or the run's end) and its work stops there — typing between two keys, waits at once —
 * before the model hears that it was stopped. A navigation the tool started is waited for, bounded.
 */
export async function callTool({ page, tool, args, options, runSignal, env }: ToolCall): Promise<ToolOutcome> {
  const limit = tool.timeoutMs?.(options) ?? options.toolTimeout;
  const cancel = new Cancellation({ signal: runSignal, timeout: limit, what: tool.name });
  // Element waits end a little before the tool is stopped, so their error (what covers it) reaches the model.
  const deadline = Date.now() + limit - Math.min(500, limit / 10);
  const navigation = watchNavigation(page);
  try {
    return await cancel.run(async (signal) => {
      const outcome = await tool.run(env(signal, deadline), args);
      await navigation.finish(Math.min(page.domSettleTimeout, 10_000), signal);
      return outcome;
    });
  } catch (e) {
    if (runSignal.aborted) throw abortError(runSignal);
    if (!cancel.aborted) return { ok: false, summary: errorMessage(e) };
    // What the stopped work had done (e.g. "typed 3 of 40 characters") follows the timeout's own words.
    const reason = abortError(cancel.signal).message;
    const done = e instanceof Error && e.message.startsWith(reason) ? e.message.slice(reason.length) : "";
    return { ok: false, summary: `${tool.name} did not finish within ${limit} ms (${tool.timeoutMs ? "its own limit" : "toolTimeout"}) and was stopped${done}` };
  } finally {
    navigation.stop();
  }
}

export interface StepHookCall {
  hook: StepEndHook;
  info: Omit<AgentStepEnd, "signal">;
  runSignal: AbortSignal;
  warn(message: string): void;
}

/** The caller's per-step hook, awaited with a bound: a failure or an overrun is a warning; an abort stops the run. */
export async function callStepHook({ hook, info, runSignal, warn }: StepHookCall): Promise<void> {
  const what = `the onStepEnd hook of step ${info.step}`;
  const cancel = new Cancellation({ signal: runSignal, timeout: STEP_HOOK_TIMEOUT_MS, what });
  try {
    await cancel.run(async (signal) => hook({ ...info, signal }), 0);
  } catch (e) {
    if (runSignal.aborted) throw abortError(runSignal);
    warn(`${cancel.aborted ? errorMessage(e) : `${what} failed: ${errorMessage(e)}`}; the run goes on`);
  }
}
