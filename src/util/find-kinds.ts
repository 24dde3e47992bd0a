/**
 * How an element may be named to be found (`svc find`, the MCP find tool): here, not in browser/find.ts, so the
 * capability's schema (capabilities/find.ts, loaded before any command is known) offers the same list.
 */
export const FIND_KINDS = ["role", "text", "label", "placeholder", "testid"] as const;
export type FindKind = (typeof FIND_KINDS)[number];
