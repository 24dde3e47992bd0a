/** `svc history [--limit n]`: what a session (or the one-shot "default" log) did, oldest first. */
import { readHistory, type StoredHistoryEntry } from "../../src/base.js";
import { pickLogId } from "../core/logs.js";
import type { GlobalOptions } from "../core/output.js";
import { output, stateRoot } from "../core/runtime.js";

function brief(v: unknown, max = 80): string {
  const s = typeof v === "string" ? v : JSON.stringify(v) ?? "";
  const flat = s.replace(/\s+/g, " ");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

type Entry = StoredHistoryEntry & { usage?: { promptTokens?: number; completionTokens?: number }; durationMs?: number };

/** What the call was about: the instruction, else the Action's method and selector, the selector, the URL. */
function subject(e: Entry): string {
  const p = (e.parameters ?? {}) as Record<string, unknown>;
  if (typeof p.instruction === "string") return JSON.stringify(brief(p.instruction, 70));
  const action = p.action as { method?: unknown; selector?: unknown } | undefined;
  if (action && typeof action === "object") return `${String(action.method)} ${brief(action.selector, 60)}`;
  if (typeof p.selector === "string") return brief(p.selector, 60);
  if (typeof p.url === "string") return brief(p.url, 70);
  if (e.method === "observe" || e.method === "extract") return "(whole page)";
  return brief(e.parameters);
}

/** What came of the call: an agent run as ✓/✗, its message and steps; anything else in brief. */
function outcome(e: Entry): string {
  const r = e.result as { success?: unknown; message?: unknown; actions?: unknown; metadata?: { steps?: unknown } } | undefined;
  if (e.method === "agent" && r && typeof r.message === "string") {
    const steps = typeof r.metadata?.steps === "number" ? r.metadata.steps : Array.isArray(r.actions) ? r.actions.length : 0;
    return `${r.success === true ? "✓" : "✗"} ${brief(r.message, 60)} (${steps} step${steps === 1 ? "" : "s"})`;
  }
  return brief(e.result, 60);
}

/** `1234/56 tok  812 ms` where the entry carries them. */
function cost(e: Entry): string {
  const parts: string[] = [];
  if (e.usage) parts.push(`${e.usage.promptTokens ?? 0}/${e.usage.completionTokens ?? 0} tok`);
  if (typeof e.durationMs === "number") parts.push(`${e.durationMs} ms`);
  return parts.length ? `  [${parts.join(", ")}]` : "";
}

export async function history(g: GlobalOptions, { limit }: { limit?: number }): Promise<void> {
  const out = output(g);
  const root = stateRoot();
  const id = pickLogId(root, g.session);
  const all: Entry[] = readHistory(id, root) ?? [];
  const entries = limit !== undefined ? all.slice(-limit) : all;
  out.result({ session: id, entries }, () =>
    entries.length === 0
      ? [`no history for ${id}`]
      : [`history of ${id} (tokens prompt/completion, wall ms):`, ...entries.map((e) => `${e.timestamp}  ${e.method.padEnd(8)}  ${subject(e)} → ${outcome(e)}${cost(e)}`)],
  );
}
