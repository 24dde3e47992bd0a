/** What a number typed on the command line must be, in words: the registry's help and every such error say it alike. Loads nothing. */

/** A number's bounds, whole or not, what it counts. */
export interface NumberRange {
  whole?: true;
  min?: number;
  /** Greater than this, not equal (`--max-cpu`: above 0). */
  above?: number;
  max?: number;
  /** What it counts, when its error says so (`milliseconds`). */
  unit?: string;
  /** Bytes, or a number with K, M, G or T (powers of 1024), e.g. 6G. */
  size?: true;
}

/** `a whole number from 0 to 65535`, `a number above 0 and at most 100`, `a whole number ≥ 1`. */
export function rangeText(r: NumberRange): string {
  if (r.size) return "a size such as 6G, 512M or a number of bytes";
  const what = `${r.whole ? "a whole number" : "a number"}${r.unit ? ` of ${r.unit}` : ""}`;
  if (r.min !== undefined) return r.max === undefined ? `${what} ≥ ${r.min}` : `${what} from ${r.min} to ${r.max}`;
  if (r.above !== undefined) return r.max === undefined ? `${what} above ${r.above}` : `${what} above ${r.above} and at most ${r.max}`;
  return r.max === undefined ? what : `${what} at most ${r.max}`;
}
