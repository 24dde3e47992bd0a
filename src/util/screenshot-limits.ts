/**
 * The bound on a screenshot's long side, in pixels (`svc screenshot --max-size`, the MCP screenshot tool's
 * maxSize, `page.capture`): its default for pictures a model reads and the range a caller may choose (0: full
 * size). Here, not in browser/screenshot.ts, so the flag's and the tool's shared description states the same numbers.
 */
export const SCREENSHOT_MAX_SIZE = { default: 2000, min: 100, max: 10_000 } as const;

/** What is wrong with `n` as a max size (0, or a whole number from min to max), naming `field`; nothing when it is one. */
export function maxSizeProblem(n: unknown, field: string): string | undefined {
  const { min, max } = SCREENSHOT_MAX_SIZE;
  if (typeof n === "number" && Number.isInteger(n) && (n === 0 || (n >= min && n <= max))) return undefined;
  return `invalid ${field}: expected 0 (full size) or a whole number of pixels from ${min} to ${max}, got ${JSON.stringify(n)?.slice(0, 40)}`;
}
