/** Token and time accounting: every model call reports a ModelUsage; metrics add them up. */
import { type ModelUsage, emptyUsage } from "./types.js";

export function addUsage(a: ModelUsage, b: ModelUsage): ModelUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    inferenceTimeMs: a.inferenceTimeMs + b.inferenceTimeMs,
  };
}

export function sumUsage(usages: Iterable<ModelUsage>): ModelUsage {
  let total = emptyUsage();
  for (const u of usages) total = addUsage(total, u);
  return total;
}

/** Adds `b` into `into` in place (for running totals held in one object). */
export function accumulateUsage(into: ModelUsage, b: ModelUsage): ModelUsage {
  into.inputTokens += b.inputTokens;
  into.outputTokens += b.outputTokens;
  into.reasoningTokens += b.reasoningTokens;
  into.cachedInputTokens += b.cachedInputTokens;
  into.inferenceTimeMs += b.inferenceTimeMs;
  return into;
}

export function totalTokens(u: ModelUsage): number {
  return u.inputTokens + u.outputTokens;
}

const n = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0);

/** Responses API (`input_tokens`, `output_tokens`) and Chat Completions (`prompt_tokens`, `completion_tokens`) usage. */
export function usageFromOpenAI(u: unknown, inferenceTimeMs: number): ModelUsage {
  const r = (u ?? {}) as Record<string, any>;
  const inDetails = r.input_tokens_details ?? r.prompt_tokens_details ?? {};
  const outDetails = r.output_tokens_details ?? r.completion_tokens_details ?? {};
  return {
    inputTokens: n(r.input_tokens ?? r.prompt_tokens),
    outputTokens: n(r.output_tokens ?? r.completion_tokens),
    reasoningTokens: n(outDetails.reasoning_tokens),
    cachedInputTokens: n(inDetails.cached_tokens),
    inferenceTimeMs,
  };
}

/**
 * Anthropic counts cache reads and writes apart from `input_tokens`; they are folded in so that, as with
 * OpenAI, inputTokens is the whole prompt and cachedInputTokens the part of it read from cache.
 */
export function usageFromAnthropic(u: unknown, inferenceTimeMs: number): ModelUsage {
  const r = (u ?? {}) as Record<string, any>;
  const cacheRead = n(r.cache_read_input_tokens);
  return {
    inputTokens: n(r.input_tokens) + cacheRead + n(r.cache_creation_input_tokens),
    outputTokens: n(r.output_tokens),
    reasoningTokens: n(r.output_tokens_details?.thinking_tokens),
    cachedInputTokens: cacheRead,
    inferenceTimeMs,
  };
}

/** Milliseconds since `start` (a performance.now() reading), rounded. */
export function elapsedMs(start: number): number {
  return Math.round(performance.now() - start);
}
