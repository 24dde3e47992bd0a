/** Client-library records (docs/wire-formats.md "Records") that every layer may produce: history and metrics. */

/** `dialog`: a JavaScript dialog svc answered (see src/browser/dialogs.ts); `download`: a finished download (downloads.ts). */
export type HistoryMethod = "act" | "extract" | "observe" | "navigate" | "agent" | "dialog" | "download";

export interface HistoryEntry {
  method: HistoryMethod;
  parameters: unknown;
  result: unknown;
  timestamp: string;
}

export const METRIC_OPERATIONS = ["act", "extract", "observe", "agent"] as const;
export type MetricOperation = (typeof METRIC_OPERATIONS)[number];
const FIELDS = ["PromptTokens", "CompletionTokens", "ReasoningTokens", "CachedInputTokens", "InferenceTimeMs"] as const;
export type MetricField = (typeof FIELDS)[number];

/** `actPromptTokens`, …, `totalInferenceTimeMs`: 25 numeric counters. */
export type Metrics = { [K in `${MetricOperation | "total"}${MetricField}`]: number };

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  cachedInputTokens: number;
  inferenceTimeMs: number;
}

export function emptyMetrics(): Metrics {
  const m = {} as Record<string, number>;
  for (const op of [...METRIC_OPERATIONS, "total"]) for (const f of FIELDS) m[`${op}${f}`] = 0;
  return m as Metrics;
}

export function addUsage(metrics: Metrics, op: MetricOperation, usage: Usage): void {
  const values: Record<MetricField, number> = {
    PromptTokens: usage.promptTokens,
    CompletionTokens: usage.completionTokens,
    ReasoningTokens: usage.reasoningTokens,
    CachedInputTokens: usage.cachedInputTokens,
    InferenceTimeMs: usage.inferenceTimeMs,
  };
  for (const f of FIELDS) {
    metrics[`${op}${f}`] += values[f];
    metrics[`total${f}`] += values[f];
  }
}

/** Sums two metrics records (the CLI adds each command's metrics to its session's). */
export function mergeMetrics(a: Metrics, b: Partial<Metrics>): Metrics {
  const out = { ...a };
  for (const k of Object.keys(out) as Array<keyof Metrics>) out[k] += Number(b[k] ?? 0) || 0;
  return out;
}
