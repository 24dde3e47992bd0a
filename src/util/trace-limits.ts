/**
 * The bound on a trace file, in MB (`svc trace start --max-size`, the MCP trace_start tool's maxSizeMb):
 * its default and the range a caller may choose. Here, not in browser/trace.ts, so the flag's and the tool's
 * shared description (mcp/descriptions.ts, loaded before any command is known) states the same numbers.
 */
export const TRACE_MAX_SIZE_MB = { default: 100, min: 1, max: 1024 } as const;
