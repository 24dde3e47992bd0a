/**
 * The bound on a screenshot's long side, in pixels (`svc screenshot --max-size`, the MCP screenshot tool's
 * maxSize, `page.capture`): its default for pictures a model reads and the range a caller may choose (0: full
 * size). Here, not in browser/screenshot.ts, so the flag's and the tool's shared description states the same numbers.
 */
export const SCREENSHOT_MAX_SIZE = { default: 2000, min: 100, max: 10_000 } as const;
