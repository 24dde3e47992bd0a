/**
 * Where a session's host listens: `<state>/sessions/<id>.sock`, unless that path is too long for a unix socket
 * (sun_path is 104 bytes on macOS). Then a folder of this user's alone under /tmp, which both ends check before
 * use, since a command line sent to a host may carry what a user typed. Node builtins only.
 */
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync } from "node:fs";
import { join } from "node:path";

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

/** The socket of a session's host; `create`: the host, making the short path's folder when it needs one. */
export function hostSocketPath(root: string, id: string, create = false): string {
  const own = join(root, "sessions", `${id}.sock`);
  if (Buffer.byteLength(own) <= MAX_SOCKET_PATH || process.platform === "win32") return own;
  const dir = privateDir(join("/tmp", `svc-${process.getuid?.() ?? "user"}`), create);
  return join(dir, `${createHash("sha256").update(root).digest("hex").slice(0, 16)}-${id}.sock`);
}
