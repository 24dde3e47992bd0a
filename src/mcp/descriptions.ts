/**
 * Descriptions an MCP tool's property and the CLI flag of the same capability share (tools.ts, and the
 * command registry in commands/). Plain strings: the CLI reads them without loading zod.
 */
import { TRACE_MAX_SIZE_MB as TRACE_MB } from "../util/trace-limits.js";

export const SHARED_DESCRIPTIONS = {
  interactive: "only elements with a ref (plus headings)",
  maxTokens: "fit the outline into about n tokens (ref lines always stay)",
  snapshotSelector: "only this element's subtree",
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
export const CAPS = ["core", "tabs", "forms", "devtools", "network", "pdf", "emulation", "agent", "web", "webmcp"] as const;
export type Cap = (typeof CAPS)[number];
