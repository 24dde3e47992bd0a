/** `svc history [--limit n]`: what a session (or the one-shot "default" log) did, oldest first. */
import { ServiceInvalidArgumentError } from "../src/errors.js";
import { readHistory } from "../src/store/history.js";
import { pickLogId } from "./logs.js";
import type { GlobalOptions } from "./output.js";
import { output, stateRoot } from "./runtime.js";

function brief(v: unknown, max = 80): string {
  const s = typeof v === "string" ? v : JSON.stringify(v) ?? "";
  const flat = s.replace(/\s+/g, " ");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export async function history(g: GlobalOptions, opts: { limit?: string }): Promise<void> {
  const out = output(g);
  const root = stateRoot();
  let limit: number | undefined;
  if (opts.limit !== undefined) {
    limit = Number(opts.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new ServiceInvalidArgumentError(`--limit must be a positive integer, got "${opts.limit}"`);
  }
  const id = pickLogId(root, g.session);
  const all = readHistory(id, root) ?? [];
  const entries = limit !== undefined ? all.slice(-limit) : all;
  out.result({ session: id, entries }, () =>
    entries.length === 0
      ? [`no history for ${id}`]
      : [`history of ${id}:`, ...entries.map((e) => `${e.timestamp}  ${e.method.padEnd(8)}  ${brief(e.parameters)} → ${brief(e.result, 60)}`)],
  );
}
