/** Output files of commands (`-o`): checked before any work, so a bad path fails fast and nothing is half-written. */
import { accessSync, constants, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { ServiceInvalidArgumentError } from "../../src/base.js";
import { describeFsError, writeFileAtomic } from "../../src/base.js";

/** The absolute path to write, once its directory exists and is writable and the path is not a directory. */
export function checkOutputPath(file: string): string {
  const path = resolve(file);
  const dir = dirname(path);
  try {
    if (!statSync(dir).isDirectory()) throw new Error("not a directory");
    accessSync(dir, constants.W_OK);
  } catch {
    throw new ServiceInvalidArgumentError(`cannot write ${file}: directory ${dir} does not exist or is not writable`);
  }
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    // does not exist yet: fine
  }
  if (isDir) throw new ServiceInvalidArgumentError(`cannot write ${file}: it is a directory`);
  return path;
}

/** Writes a command's output file atomically (temp file + rename: never half-written), mode 0644. */
export function writeOutputFile(path: string, data: string | Uint8Array): void {
  try {
    writeFileAtomic(path, data, 0o644);
  } catch (e) {
    throw new ServiceInvalidArgumentError(`cannot write ${path}: ${describeFsError(e)}`, { cause: e });
  }
}
