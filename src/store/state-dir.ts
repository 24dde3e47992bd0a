/**
 * Where svc keeps its state, and where a session's host listens. A file of its own (node builtins only) so that
 * the session host's thin client (commands/host/client.ts) can find both without loading anything else.
 */
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** `SVC_STATE_DIR`, else `$XDG_STATE_HOME/svc`, else `~/.local/state/svc`. Not created. */
export function resolveStateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SVC_STATE_DIR) return resolve(env.SVC_STATE_DIR);
  if (env.XDG_STATE_HOME) return resolve(env.XDG_STATE_HOME, "svc");
  return join(homedir(), ".local", "state", "svc");
}

/** The longest socket path used as is: sun_path's smaller size (macOS) less its NUL and a margin. */
export const MAX_SOCKET_PATH = 100;

/** A folder only this user may enter, or an Error saying why it is not one. */
function privateDir(dir: string, create: boolean): string {
  if (create) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  const uid = process.getuid?.();
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o077) !== 0) {
    throw new Error(`${dir} is not a folder of this user's alone (mode 0700): the session's socket cannot go there`);
  }
  return dir;
}

/**
 * The socket of a session's host: `<state>/sessions/<id>.sock`, unless that path is too long for a unix socket
 * (sun_path is 104 bytes on macOS). Then a folder of this user's alone under /tmp, which both ends check before
 * use, since a command line sent to a host may carry what a user typed. `create`: the host, making that folder.
 */
export function hostSocketPath(root: string, id: string, create = false): string {
  const own = join(root, "sessions", `${id}.sock`);
  if (Buffer.byteLength(own) <= MAX_SOCKET_PATH || process.platform === "win32") return own;
  const dir = privateDir(join("/tmp", `svc-${process.getuid?.() ?? "user"}`), create);
  return join(dir, `${createHash("sha256").update(root).digest("hex").slice(0, 16)}-${id}.sock`);
}
