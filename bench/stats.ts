/** Small numeric helpers: medians, timing, token counts, formatting. */
import { encode } from "gpt-tokenizer/encoding/o200k_base";

export function median(xs: readonly number[]): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export interface Summary {
  median: number;
  min: number;
  max: number;
  runs: number;
  samples: number[];
}

export function summarize(xs: readonly number[]): Summary {
  return { median: round(median(xs)), min: round(Math.min(...xs)), max: round(Math.max(...xs)), runs: xs.length, samples: xs.map(round) };
}

/** Wall time of one call, in ms. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

/** o200k_base tokens of exactly the text a model would receive. */
export function tokens(text: string): number {
  return encode(text).length;
}

export function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export function ratio(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || b === undefined || !b ? undefined : round(a / b, 3);
}

export function fmtMs(x: number | undefined): string {
  if (x === undefined || Number.isNaN(x)) return "–";
  return x >= 100 ? `${Math.round(x)} ms` : `${x.toFixed(1)} ms`;
}

export function fmtInt(x: number | undefined): string {
  return x === undefined ? "–" : Math.round(x).toLocaleString("en-US");
}

export function fmtRatio(x: number | undefined): string {
  return x === undefined ? "–" : `${x.toFixed(2)}×`;
}

/** "met" / "missed by N%" against a ceiling ratio. */
export function verdict(r: number | undefined, target: number): string {
  if (r === undefined) return "n/a";
  return r <= target ? "met" : `missed (+${Math.round((r / target - 1) * 100)}% over)`;
}
