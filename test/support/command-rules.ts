/**
 * The rules inside commands/ (ARCHITECTURE.md "The folders of commands/"), as functions the architecture test
 * (test/unit/architecture.test.ts) applies to every import and checks against planted inputs.
 */
import type { Import } from "./imports.js";

/** The groups of commands, bottom first: a group may import the groups before it, never one after. */
export const COMMAND_GROUPS = ["sessions", "page", "model", "devtools", "server", "batch", "door"] as const;
/** commands/'s other parts: what every command shares, the session host (its own process), the Ink views, the registry. */
export const COMMAND_PARTS = ["core", "host", "ui", ...COMMAND_GROUPS, "registry"] as const;
/** commands/'s only top-level file: the edge (dispatch, errors → exit codes). */
export const COMMAND_ROOT_FILES = ["main.ts"] as const;
/**
 * What the rest of the CLI may load from host/: asking a host (`ask.ts`), starting one (`start.ts`), its thin client
 * and socket path, and the Service a host keeps between commands (`service.ts`, which the CLI's runtime consults).
 */
export const HOST_DOORS = ["ask.ts", "start.ts", "client.ts", "socket.ts", "service.ts"] as const;
/** What host/ loads statically beyond itself and core/: the table of hosted commands and the environment they take. */
const HOST_STATIC = ["commands/registry/hosted.ts", "commands/registry/host-env.ts"];
/**
 * Imports that point up, each with its reason. The runtime starts the session a command needs when none is live
 * (on demand); the registry's `svc serve` help quotes the server's limits, a module of plain numbers.
 */
const UPWARD: Readonly<Record<string, { to: string; dynamicOnly: boolean }>> = {
  "commands/core/runtime.ts": { to: "commands/sessions/sessions.ts", dynamicOnly: true },
  "commands/registry/server.ts": { to: "commands/server/serve-limits.ts", dynamicOnly: false },
};

type Part = (typeof COMMAND_PARTS)[number] | "main" | "unknown";

export function commandPart(file: string): { part: Part; what: string } {
  const rest = file.replace(/^commands\//, "");
  if (!rest.includes("/")) return (COMMAND_ROOT_FILES as readonly string[]).includes(rest) ? { part: "main", what: file } : { part: "unknown", what: file };
  const top = rest.slice(0, rest.indexOf("/"));
  return (COMMAND_PARTS as readonly string[]).includes(top) ? { part: top as Part, what: `commands/${top}/` } : { part: "unknown", what: `commands/${top}/` };
}

const groupRank = (p: Part) => (COMMAND_GROUPS as readonly string[]).indexOf(p);
const base = (f: string) => f.slice(f.lastIndexOf("/") + 1);

/** Why `i.from` may not import `to` (both in commands/), or undefined. */
export function commandViolation(i: Pick<Import, "from" | "typeOnly"> & { dynamic: boolean }, to: string): string | undefined {
  const a = commandPart(i.from);
  const b = commandPart(to);
  for (const m of [a, b]) if (m.part === "unknown") return `${m.what} has no part in commands/: give it one in this test and in ARCHITECTURE.md`;
  if (a.part === b.part) return undefined;
  const up = UPWARD[i.from];
  if (up?.to === to && (i.dynamic || !up.dynamicOnly)) return undefined;
  // Types are erased when compiled: they load nothing and set no order.
  if (i.typeOnly) return undefined;
  if (a.part === "host") {
    if (b.part === "core" || HOST_STATIC.includes(to)) return undefined;
    return i.dynamic && i.from === "commands/host/main.ts" ? undefined : "host/ is its own process: it loads host/, core/ and the hosted table only (host/main.ts loads the CLI on demand to run a command)";
  }
  if (b.part === "host") return (HOST_DOORS as readonly string[]).includes(base(to)) ? undefined : `host/ is reached only through its doors (${HOST_DOORS.join(", ")})`;
  if (b.part === "core") return undefined;
  if (a.part === "core") return "core/ is what every command shares: it imports only core/ (and host/'s doors)";
  if (a.part === "ui") return "ui/ imports only core/";
  if (b.part === "main") return "main.ts is the edge: only host/main.ts loads it";
  if (a.part === "main") return b.part === "registry" ? undefined : "main.ts dispatches through the registry";
  if (a.part === "registry") return i.dynamic ? undefined : "the registry loads a command's code only when it runs (dynamic import)";
  if (b.part === "registry") return "a command is declared in the registry; it does not import it";
  if (b.part === "ui") return i.dynamic ? undefined : "ui/ (Ink, React) is loaded only on demand";
  if (groupRank(b.part) > groupRank(a.part)) return `${a.part}/ may not import ${b.part}/ (groups, bottom first: ${COMMAND_GROUPS.join(" ← ")})`;
  return undefined;
}
