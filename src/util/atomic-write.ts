/**
 * The one atomic file writer: temp file beside the target, fsync, rename over it, so a crash or a concurrent reader
 * never sees half a file. On failure the temp file is removed and the fs error thrown as is; callers say what they
 * were writing. `exclusive` never replaces an existing file (link, EEXIST), for a file two processes may create where
 * the first must win.
 */
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, linkSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600, options: { exclusive?: boolean } = {}): void {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const fd = openSync(tmp, "wx", mode);
    try {
      const buf = typeof data === "string" ? Buffer.from(data) : data;
      let off = 0;
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (options.exclusive) {
      linkSync(tmp, path);
      rmSync(tmp, { force: true });
    } else renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
