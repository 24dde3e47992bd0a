/**
 * What changed in a tab's outline since its last snapshot. Pure. A ref line is matched by its ref (stable while the
 * element's role and name hold, registry.ts), a text line by its text. Printed in the new outline's order: `+ ` new, `~
 * ` a ref line whose text changed, `- ` gone (after the last line before it that stayed), under a line counting them;
 * unchanged lines are left out.
 */
import { z } from "zod";
import { type Line, lineText } from "./render.js";

/** One line of an outline as kept between snapshots. */
export interface OutlineLine {
  text: string;
  ref?: string;
}

/**
 * One outline a tab showed: which document and options (`mode`: -i, -s) it was taken with, and its lines,
 * unbudgeted; `omitted`: it was past MAX_OUTLINE_CHARS, so its lines were not kept.
 */
export interface Outline {
  document: string;
  mode: string;
  lines: OutlineLine[];
  omitted?: true;
}

/** Characters of an outline kept as the base of the next delta: a page past it gets a full snapshot next time. */
export const MAX_OUTLINE_CHARS = 300_000;
/** Outlines kept per tab, one per set of options, the latest first: a delta is counted from one with the same options. */
export const MAX_OUTLINES_PER_TAB = 3;

const chars = (lines: readonly OutlineLine[]) => lines.reduce((n, l) => n + l.text.length, 0);

/** A tab's kept outlines as stored (validated when read back from a file). */
export const OutlinesSchema = z
  .array(
    z.strictObject({
      document: z.string().min(1).max(200),
      mode: z.string().max(2_000),
      lines: z
        .array(z.strictObject({ text: z.string(), ref: z.string().regex(/^e\d+$/).optional() }))
        .refine((ls) => chars(ls) <= MAX_OUTLINE_CHARS, `longer than ${MAX_OUTLINE_CHARS} characters`),
      omitted: z.literal(true).optional(),
    }),
  )
  .max(MAX_OUTLINES_PER_TAB);

/** The tab's outlines once it showed `outline`: it replaces the one of the same options; the latest first, bounded. */
export function keepOutline(kept: readonly Outline[], outline: Outline): Outline[] {
  const own = chars(outline.lines) <= MAX_OUTLINE_CHARS ? outline : { ...outline, lines: [], omitted: true as const };
  return [own, ...kept.filter((o) => o.mode !== outline.mode)].slice(0, MAX_OUTLINES_PER_TAB);
}

/** What a delta is counted from: the tab's last outline of the same options, or why the snapshot is a full one. */
export function deltaBase(kept: readonly Outline[], document: string, mode: string): { previous: OutlineLine[] } | { full: string } {
  const same = kept.find((o) => o.mode === mode);
  if (!same) return { full: kept.length ? "no earlier snapshot of this tab with these options (-i, -s)" : "no earlier snapshot of this tab" };
  if (same.document !== document) return { full: "page changed" };
  if (same.omitted) return { full: `the last snapshot was too large to keep (over ${MAX_OUTLINE_CHARS} characters)` };
  return { previous: same.lines };
}

/** Lines as kept (their text before any budget shortens it). */
export function keptLines(lines: readonly Line[]): OutlineLine[] {
  return lines.map((l) => (l.ref !== undefined ? { text: lineText(l), ref: l.ref } : { text: lineText(l) }));
}

/** The marker line of a snapshot that is whole although a delta was asked for. */
export const fullMarker = (why: string) => `[full snapshot: ${why}]`;

/** `next` against `previous`: the changed lines, marked, and the delta's first line. */
export function diffOutline(previous: readonly OutlineLine[], next: readonly Line[]): { lines: Line[]; header: string } {
  const byRef = new Map<string, number>();
  const byText = new Map<string, number[]>();
  previous.forEach((l, i) => {
    if (l.ref !== undefined) byRef.set(l.ref, i);
    else {
      const same = byText.get(l.text);
      if (same) same.push(i);
      else byText.set(l.text, [i]);
    }
  });
  const matched = new Map<number, number>(); // previous index → next index
  const marks: Array<string | undefined> = [];
  let added = 0;
  let changed = 0;
  next.forEach((l, i) => {
    const text = lineText(l);
    const p = l.ref !== undefined ? byRef.get(l.ref) : byText.get(text)?.shift();
    if (p === undefined) {
      marks.push("+ ");
      added++;
      return;
    }
    matched.set(p, i);
    if (previous[p]!.text === text) marks.push(undefined);
    else {
      marks.push("~ ");
      changed++;
    }
  });
  // A line gone is printed after the new place of the last line before it that stayed.
  const gone = new Map<number, Line[]>();
  let at = -1;
  previous.forEach((l, p) => {
    const kept = matched.get(p);
    if (kept !== undefined) at = kept;
    else gone.set(at, [...(gone.get(at) ?? []), removedLine(l.text)]);
  });
  const removed = previous.length - matched.size;
  const out: Line[] = [...(gone.get(-1) ?? [])];
  next.forEach((l, i) => {
    const mark = marks[i];
    if (mark !== undefined) out.push({ ...l, mark, anchor: false });
    out.push(...(gone.get(i) ?? []));
  });
  const header = added + changed + removed === 0 ? "[delta: no change since the last snapshot]" : `[delta since the last snapshot: ${changed} changed, ${added} added, ${removed} removed]`;
  return { lines: out, header };
}

function removedLine(text: string): Line {
  return { depth: 0, head: "", name: text, value: "", tail: "", ref: undefined, anchor: false, dropped: false, mark: "- " };
}
