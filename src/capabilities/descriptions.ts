/**
 * Descriptions a property of a capability and a flag or MCP property of the same meaning share (the declarations
 * here, the tools in mcp/tools.ts, the command registry in commands/). Plain strings: the CLI reads them without zod.
 */
import { SCREENSHOT_MAX_SIZE as SHOT } from "../util/screenshot-limits.js";

export const SHARED_DESCRIPTIONS = {
  interactive: "only elements with a ref (plus headings)",
  maxTokens: "fit the outline into about n tokens: long text is shortened, then lines are left out from the end (ref lines last), and the last line says how to see the rest",
  snapshotSelector: "only this element's subtree",
  delta: "only what changed since this tab's last snapshot: '+ ' added, '~ ' changed, '- ' removed (refs stay the same); after a navigation a full snapshot, its first line [full snapshot: page changed]",
  from: "the outline from this ref's line on (e12), e.g. the rest of one the token budget cut; not with delta",
  fullPage: "capture the whole page, not just the viewport",
  screenshotMaxSize: `the picture's long side at most this many px, ${SHOT.min}–${SHOT.max} (default ${SHOT.default}; 0: full size); the scale is reported`,
  ifChanged: "answer unchanged, with no picture, when the tab looks as at its last screenshot (same options)",
  numResults: "how many results, 1–25",
  extractSelector: "only read inside this element",
  maxSteps: "stop after n steps (default 20)",
} as const;
