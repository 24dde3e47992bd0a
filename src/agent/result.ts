/**
 * The agent's result, exactly docs/wire-formats.md "Agent result": AgentResultDataOutput and AgentUsageOutput (strict),
 * AgentAction (more properties allowed), and the HTTP wrappers AgentExecuteResultOutput / AgentExecuteResponse /
 * AgentCacheEntryOutput. Every result is parsed through these before it is returned, so a field that drifts from the
 * documented format fails in tests.
 */
import { z } from "zod";
import { errorMessage } from "../errors.js";
import type { AgentAction, AgentResultData, AgentStopReason, AgentUsage } from "../events.js";

export const AgentUsageSchema = z.strictObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  reasoning_tokens: z.number().optional(),
  cached_input_tokens: z.number().optional(),
  inference_time_ms: z.number(),
});

export const AgentActionSchema = z.looseObject({
  type: z.string(),
  reasoning: z.string().optional(),
  taskCompleted: z.boolean().optional(),
  action: z.string().optional(),
  timeMs: z.number().optional(),
  pageText: z.string().optional(),
  pageUrl: z.string().optional(),
  instruction: z.string().optional(),
});

export const AgentResultSchema = z.strictObject({
  success: z.boolean(),
  message: z.string(),
  actions: z.array(AgentActionSchema),
  completed: z.boolean(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  usage: AgentUsageSchema.optional(),
});

export const AgentCacheEntryOutputSchema = z.strictObject({ cacheKey: z.string(), entry: z.unknown() });

export const AgentExecuteResultOutputSchema = z.strictObject({ result: AgentResultSchema, cacheEntry: AgentCacheEntryOutputSchema.optional() });

export const AgentExecuteResponseSchema = z.strictObject({ success: z.boolean(), data: AgentExecuteResultOutputSchema });

// The TypeScript shapes in events.ts and these schemas must agree (both directions).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameUsage: Same<z.infer<typeof AgentUsageSchema>, AgentUsage> = true;
const sameAction: Same<z.infer<typeof AgentActionSchema>, AgentAction> = true;
const sameResult: Same<z.infer<typeof AgentResultSchema>, AgentResultData> = true;
void sameUsage;
void sameAction;
void sameResult;

/** Parses a result before it leaves the agent (throws on a shape bug: that is ours, not the user's). */
export function checkResult(result: AgentResultData): AgentResultData {
  return AgentResultSchema.parse(result) as AgentResultData;
}

/** The result message of a run that did not finish with `done`: it names the limit that ended it. */
export function stopMessage(reason: AgentStopReason, o: { maxSteps: number; maxTokens?: number | undefined; timeoutMs?: number | undefined }, totals: AgentUsage, failure: unknown, loop?: string): string {
  switch (reason) {
    case "maxSteps":
      return `stopped: reached the step limit (maxSteps ${o.maxSteps}) before the task was done`;
    case "maxTokens":
      return `stopped: reached the token limit (maxTokens ${o.maxTokens}; ${totals.input_tokens + totals.output_tokens} used)`;
    case "timeout":
      return `stopped: reached the time limit (timeoutMs ${o.timeoutMs})`;
    case "error":
      return `failed: ${errorMessage(failure)}`;
    case "loop":
      return `stopped: the agent is stuck in a loop: it repeated ${loop ?? "the same step"}`;
    default:
      return "aborted";
  }
}
