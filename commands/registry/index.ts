/**
 * Every command svc has, in the order `svc --help` lists them. To add a command: declare it in the file of
 * its group (name, arguments, flags, examples, hosted, MCP tool, and `run` importing its implementation).
 */
import { MODEL_COMMANDS } from "./model.js";
import { PAGE_COMMANDS } from "./page.js";
import { SERVER_COMMANDS } from "./server.js";
import { SESSION_COMMANDS, SESSION_GROUPS } from "./sessions.js";
import type { CommandDecl, GroupDecl } from "./types.js";
import { VERB_COMMANDS } from "./verbs.js";

export { GLOBAL_OPTIONS } from "./globals.js";

export const GROUPS: readonly GroupDecl[] = SESSION_GROUPS;

export const COMMANDS: readonly CommandDecl[] = [...SESSION_COMMANDS, ...PAGE_COMMANDS, ...VERB_COMMANDS, ...MODEL_COMMANDS, ...SERVER_COMMANDS] as readonly CommandDecl[];

/** A command's declaration by its path (`goto`, `sessions start`). */
export function declaration(name: string): CommandDecl | undefined {
  return COMMANDS.find((c) => c.name === name || c.aliases?.includes(name));
}
