/** `svc metrics`: token and timing counters of a session, summed over its commands (kept after it ends). */
import { readMetrics } from "../../src/base.js";
import { pickLogId } from "../core/logs.js";
import type { GlobalOptions } from "../core/output.js";
import { table } from "../core/output.js";
import { output, stateRoot } from "../core/runtime.js";

const OPS = ["act", "extract", "observe", "agent", "total"] as const;
const FIELDS = ["PromptTokens", "CompletionTokens", "ReasoningTokens", "CachedInputTokens", "InferenceTimeMs"] as const;

export async function metrics(g: GlobalOptions): Promise<void> {
  const out = output(g);
  const root = stateRoot();
  const id = pickLogId(root, g.session);
  const stored = readMetrics(id, root);
  const m: Record<string, number> = {};
  for (const op of OPS) for (const f of FIELDS) m[`${op}${f}`] = stored?.metrics[`${op}${f}`] ?? 0;
  for (const [k, v] of Object.entries(stored?.metrics ?? {})) m[k] = v;
  out.result({ session: id, commands: stored?.commands ?? 0, updatedAt: stored?.updatedAt ?? null, metrics: m }, () => [
    `metrics of ${id} (${stored?.commands ?? 0} commands)`,
    ...table([["", "PROMPT", "COMPLETION", "REASONING", "CACHED", "INFERENCE MS"], ...OPS.map((op) => [op, ...FIELDS.map((f) => String(m[`${op}${f}`] ?? 0))])]),
  ]);
}
