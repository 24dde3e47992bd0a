/**
 * What changed between two snapshots, as lines: `- ` for lines gone, `+ ` for lines new, in order, with
 * the unchanged lines left out. jsdiff's Myers diff on lines, bounded: past MAX_EDIT_LENGTH edits the
 * page changed too much for a diff to be the shorter answer, and the caller sends the whole snapshot.
 */
import { diffArrays } from "diff";

const MAX_EDIT_LENGTH = 2_000;

/** The changed lines, or undefined when the diff would be too costly to compute. "" when nothing changed. */
export function lineDiff(before: string, after: string): string | undefined {
  if (before === after) return "";
  const parts = diffArrays(before.split("\n"), after.split("\n"), { maxEditLength: MAX_EDIT_LENGTH });
  if (!parts) return undefined;
  return parts.flatMap((p) => (p.added ? p.value.map((l) => `+ ${l}`) : p.removed ? p.value.map((l) => `- ${l}`) : [])).join("\n");
}
