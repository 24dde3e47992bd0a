/**
 * What changed between two snapshots, as lines: `- ` for lines gone, `+ ` for lines new, in order, with
 * the unchanged lines left out. A longest-common-subsequence diff on lines (snapshots are a few hundred
 * lines; the table is bounded, and beyond it the caller gets the whole snapshot).
 */
const MAX_CELLS = 4_000_000;

/** The changed lines, or undefined when the diff would be too costly to compute. "" when nothing changed. */
export function lineDiff(before: string, after: string): string | undefined {
  const a = before.split("\n");
  const b = after.split("\n");
  // Common head and tail first: most page changes are local.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  if (!x.length && !y.length) return "";
  if ((x.length + 1) * (y.length + 1) > MAX_CELLS) return undefined;
  const w = y.length + 1;
  const lcs = new Uint32Array((x.length + 1) * w);
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) {
      lcs[i * w + j] = x[i] === y[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) {
      i++;
      j++;
    } else if (i < x.length && (j === y.length || lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!)) out.push(`- ${x[i++]}`);
    else out.push(`+ ${y[j++]}`);
  }
  return out.join("\n");
}
