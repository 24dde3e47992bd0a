/**
 * Where svc keeps its state. A file of its own (node builtins only) so that the session host's thin
 * client (commands/host/client.ts) can find the state dir without loading anything else.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** `SVC_STATE_DIR`, else `$XDG_STATE_HOME/svc`, else `~/.local/state/svc`. Not created. */
export function resolveStateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SVC_STATE_DIR) return resolve(env.SVC_STATE_DIR);
  if (env.XDG_STATE_HOME) return resolve(env.XDG_STATE_HOME, "svc");
  return join(homedir(), ".local", "state", "svc");
}
