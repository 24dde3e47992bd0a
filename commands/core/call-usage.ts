/**
 * Per-call tokens and time for the CLI's history: the library's entries carry only parameters and results, so each
 * command diffs the Service's metrics around its work and hangs the difference on that operation's entry (at most one
 * model-backed call per operation). Only numbers are added, so no variable value can reach the log this way.
 */
import type { StoredHistoryEntry } from "../../src/base.js";

const USAGE_OPERATIONS = ["act", "extract", "observe", "agent"] as const;
const FIELDS = {
  promptTokens: "PromptTokens",
  completionTokens: "CompletionTokens",
  reasoningTokens: "ReasoningTokens",
  cachedInputTokens: "CachedInputTokens",
  inferenceTimeMs: "InferenceTimeMs",
} as const;

export type CallUsage = { -readonly [K in keyof typeof FIELDS]: number };

export type EntryWithUsage = StoredHistoryEntry & { usage?: CallUsage; durationMs?: number };

type Counters = Readonly<Record<string, unknown>>;

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** The usage of `op` between two metrics records; undefined when nothing was spent. */
function usageDelta(before: Counters, after: Counters, op: string): CallUsage | undefined {
  const u = {} as CallUsage;
  let any = false;
  for (const [field, suffix] of Object.entries(FIELDS) as [keyof CallUsage, string][]) {
    const d = Math.max(0, num(after[`${op}${suffix}`]) - num(before[`${op}${suffix}`]));
    u[field] = Math.round(d);
    if (d > 0) any = true;
  }
  return any ? u : undefined;
}

/** `entries` (this command's, oldest first) with `durationMs` on operations and `usage` where tokens were spent. */
export function withCallUsage(entries: readonly StoredHistoryEntry[], before: Counters, after: Counters, startedAt: number): EntryWithUsage[] {
  let previous = startedAt;
  let previousOperation = startedAt;
  const out: EntryWithUsage[] = entries.map((e) => {
    const at = Date.parse(e.timestamp);
    if (!Number.isFinite(at)) return { ...e };
    // An agent run records its own navigations while it goes: its time runs from the previous operation.
    const durationMs = Math.max(0, at - (e.method === "agent" ? previousOperation : previous));
    previous = at;
    if (!(USAGE_OPERATIONS as readonly string[]).includes(e.method)) return { ...e };
    previousOperation = at;
    return { ...e, durationMs };
  });
  for (const op of USAGE_OPERATIONS) {
    const usage = usageDelta(before, after, op);
    if (!usage) continue;
    const last = out.findLastIndex((e) => e.method === op);
    if (last >= 0) out[last] = { ...out[last]!, usage };
  }
  return out;
}
