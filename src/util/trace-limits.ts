/**
 * The bound on a trace file, in MB (`svc trace start --max-size`, the MCP trace_start tool's maxSizeMb):
 * its default and the range a caller may choose. Here, not in browser/trace.ts, so the capability's schema
 * (capabilities/trace.ts, loaded before any command is known) states the same numbers and words.
 */
export const TRACE_MAX_SIZE_MB = { default: 100, min: 1, max: 1024 } as const;

/** What a bad bound is told (after the field's name): the one wording of the library's check and the capability's schema. */
export function traceMaxSizeExpected(got: unknown): string {
  return `expected a whole number of MB from ${TRACE_MAX_SIZE_MB.min} to ${TRACE_MAX_SIZE_MB.max}, got ${JSON.stringify(got)?.slice(0, 40)}`;
}
