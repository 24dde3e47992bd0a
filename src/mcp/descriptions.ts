/**
 * Descriptions an MCP tool's property and the CLI flag of the same capability share (tools.ts, and the
 * command registry in commands/). Plain strings: the CLI reads them without loading zod.
 */
import { TRACE_MAX_SIZE_MB as TRACE_MB } from "../util/trace-limits.js";

export const SHARED_DESCRIPTIONS = {
  interactive: "only elements with a ref (plus headings)",
  maxTokens: "fit the outline into about n tokens: long text is shortened, then lines are left out from the end (ref lines last), and the last line says how to see the rest",
  snapshotSelector: "only this element's subtree",
  delta: "only what changed since this tab's last snapshot: '+ ' added, '~ ' changed, '- ' removed (refs stay the same); after a navigation a full snapshot, its first line [full snapshot: page changed]",
  from: "the outline from this ref's line on (e12), e.g. the rest of one the token budget cut; not with delta",
  fullPage: "capture the whole page, not just the viewport",
  numResults: "how many results, 1–25",
  extractSelector: "only read inside this element",
  maxSteps: "stop after n steps (default 20)",
  traceMaxSize: `the trace file's bound in MB, ${TRACE_MB.min}–${TRACE_MB.max} (default ${TRACE_MB.default}): later events are left out, and the stop says how many`,
} as const;

/**
 * Capability sets a host turns on with `svc mcp --caps` (default: core alone, so the tool list an agent
 * reads stays short); `all` turns every set on.
 */
export const CAPS = ["core", "tabs", "forms", "devtools", "network", "pdf", "emulation", "agent", "web"] as const;
export type Cap = (typeof CAPS)[number];
