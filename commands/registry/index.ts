/**
 * Every command svc has, in the order `svc --help` lists them. To add a command: declare it in the file of
 * its group (name, arguments, flags, examples, hosted, MCP tool, and `run` importing its implementation).
 */
import { CAPABILITY_COMMANDS } from "./capabilities.js";
import { EMULATION_COMMANDS } from "./emulation.js";
import { INSPECT_COMMANDS } from "./inspect.js";
import { TRACE_GROUP } from "./devtools.js";
import { NETWORK_COMMANDS, NETWORK_GROUPS } from "./network.js";
import { PAGE_COMMANDS } from "./page.js";
import { SERVER_COMMANDS } from "./server.js";
import { SESSION_COMMANDS, SESSION_GROUPS } from "./sessions.js";
import type { CommandDecl, GroupDecl } from "./types.js";
import { WEBMCP_COMMANDS, WEBMCP_GROUP } from "./webmcp.js";

export { GLOBAL_OPTIONS } from "./globals.js";

export const GROUPS: readonly GroupDecl[] = [...SESSION_GROUPS, ...NETWORK_GROUPS, TRACE_GROUP, WEBMCP_GROUP];

const BEFORE_VERBS = ["sessions", "connect", "view", "state", "set", "open", "goto", "back", "forward", "reload", "wait", "eval", "tabs", "downloads", "dialog", "act", "observe", "extract", "snapshot"];
const AFTER_VERBS = ["get", ...INSPECT_COMMANDS.map((c) => c.name), "screenshot", "pdf", "console", "errors", "network", "har", "trace", "webmcp", "fetch", "search", "agent", "history", "metrics", "config", "serve", "mcp", "batch", "worker", "init"];
/**
 * Where `svc --help` lists each top-level command (the order of a user's day: session, page, model, records, server);
 * the capabilities' verbs not named in either list (the verbs on one element) come after snapshot.
 */
const HELP_ORDER = [...BEFORE_VERBS, ...CAPABILITY_COMMANDS.map((v) => v.name.split(" ")[0]!).filter((n) => !BEFORE_VERBS.includes(n) && !AFTER_VERBS.includes(n)), ...AFTER_VERBS];
const rank = (c: CommandDecl) => {
  const i = HELP_ORDER.indexOf(c.name.split(" ")[0]!);
  return i < 0 ? HELP_ORDER.length : i;
};

export const COMMANDS: readonly CommandDecl[] = ([...SESSION_COMMANDS, ...EMULATION_COMMANDS, ...PAGE_COMMANDS, ...CAPABILITY_COMMANDS, ...INSPECT_COMMANDS, ...NETWORK_COMMANDS, ...WEBMCP_COMMANDS, ...SERVER_COMMANDS] as CommandDecl[]).sort((a, b) => rank(a) - rank(b));

/** A command's declaration by its path (`goto`, `sessions start`). */
export function declaration(name: string): CommandDecl | undefined {
  return COMMANDS.find((c) => c.name === name || c.aliases?.includes(name));
}
