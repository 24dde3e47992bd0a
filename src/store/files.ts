/**
 * The state directory and the small file primitives every record in it uses. Plain files only: one
 * JSON file per session, JSONL for history, so a human (or `cat`) can read them and a crash mid-write
 * never leaves a half-written record (write-temp-then-rename is atomic on POSIX filesystems).
 */
import { closeSync, constants, mkdirSync, openSync, accessSync, readFileSync, rmSync, statSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { ServiceInvalidArgumentError, ServiceStateError, errorMessage } from "../errors.js";
import { writeFileAtomic as atomicWrite } from "../util/atomic-write.js";

export { resolveStateDir } from "./state-dir.js";
import { resolveStateDir } from "./state-dir.js";

/**
 * `mkdir -p` that terminates. Node 20's `mkdirSync(dir, { recursive: true })` spins forever on paths such
 * as /proc/x (the kernel answers ENOENT for the leaf while the parent exists), so walk up by hand and give
 * up when creating a level still fails after its parent exists. The leaf gets `mode`; parents the default.
 */
export function mkdirp(dir: string, mode = 0o700): void {
  try {
    mkdirSync(dir, { mode });
    return;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return;
    if (code !== "ENOENT") throw e;
  }
  const parent = dirname(dir);
  if (parent === dir) throw Object.assign(new Error(`cannot create ${dir}`), { code: "ENOENT" });
  mkdirp(parent, 0o777);
  try {
    mkdirSync(dir, { mode });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
}

/** Create `dir` (mode 0700) if needed and check it is a writable directory; else ServiceStateError naming it. */
export function ensureDir(dir: string): string {
  try {
    mkdirp(dir, 0o700);
    if (!statSync(dir).isDirectory()) throw new Error("not a directory");
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (e) {
    throw new ServiceStateError(`cannot use state directory ${dir}: ${describeFsError(e)}`, {
      hint: "set SVC_STATE_DIR to a writable directory",
      cause: e,
    });
  }
  return dir;
}

/** The state root, created and checked. */
export function ensureStateDir(root: string = resolveStateDir()): string {
  return ensureDir(root);
}

export function describeFsError(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EROFS":
      return "read-only file system";
    case "ENOENT":
      return "no such file or directory";
    case "ENOTDIR":
      return "a parent is not a directory";
    case "ENOSPC":
      return "no space left on device";
    default:
      return errorMessage(e);
  }
}

/** A state file's text, or undefined when it does not exist; any other failure is a ServiceStateError. */
export function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ServiceStateError(`cannot read ${path}: ${describeFsError(e)}`, { cause: e });
  }
}

/** A state file written atomically (util/atomic-write.ts); a failure is a ServiceStateError naming the file. */
export function writeStateFile(path: string, data: string | Uint8Array, mode = 0o600): void {
  try {
    atomicWrite(path, data, mode);
  } catch (e) {
    throw new ServiceStateError(`cannot write ${path}: ${describeFsError(e)}`, { cause: e });
  }
}

const ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Ids become file names: refuse anything that could escape the directory. */
export function checkId(id: string, what = "session id"): string {
  if (!ID_RE.test(id) || id.includes("..")) {
    throw new ServiceInvalidArgumentError(`invalid ${what} ${JSON.stringify(id)}: use letters, digits, '-', '_' or '.'`);
  }
  return id;
}

const sleepBuf = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number): void {
  Atomics.wait(sleepBuf, 0, 0, ms);
}

/**
 * A tiny cross-process lock (O_EXCL lock file) for read-modify-write records such as metrics, where two
 * CLI commands on one session may finish at the same moment. A lock older than `staleMs` is taken over:
 * its holder crashed.
 */
export function withFileLock<T>(target: string, fn: () => T, staleMs = 10_000): T {
  const lock = `${target}.lock`;
  const deadline = Date.now() + staleMs + 1_000;
  for (;;) {
    try {
      closeSync(openSync(lock, "wx", 0o600));
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") {
        throw new ServiceStateError(`cannot lock ${target}: ${describeFsError(e)}`, { cause: e });
      }
      try {
        if (Date.now() - statSync(lock).mtimeMs > staleMs) unlinkSync(lock);
      } catch {
        // Lock vanished between the two calls: retry.
      }
      if (Date.now() > deadline) throw new ServiceStateError(`timed out waiting for lock ${lock}`);
      sleepSync(10);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

/** A log's newest entries within `limits` (entry count, and bytes of the JSON list they make), oldest first. */
export function newestWithin<T>(entries: readonly T[], limits: { entries: number; bytes: number }): T[] {
  const out: T[] = [];
  let bytes = 2;
  for (let i = entries.length - 1; i >= 0 && out.length < limits.entries; i--) {
    bytes += Buffer.byteLength(JSON.stringify(entries[i])) + 1;
    if (bytes > limits.bytes) break;
    out.push(entries[i]!);
  }
  return out.reverse();
}

/** When a log's `<file>.cleared` mark says it was cleared (epoch ms; 0: never, or a mark a crash cut short). */
export function clearedMark(logPath: string): number {
  const text = readIfExists(`${logPath}.cleared`);
  if (text === undefined) return 0;
  try {
    const at = Number((JSON.parse(text) as { at?: unknown }).at);
    return Number.isFinite(at) ? at : 0;
  } catch {
    return 0;
  }
}

/** Marks a log cleared now (`<file>.cleared`, 0600): its readers and writer drop what was received before. */
export function writeClearedMark(logPath: string): void {
  ensureDir(dirname(logPath));
  writeStateFile(`${logPath}.cleared`, `${JSON.stringify({ at: Date.now() })}\n`, 0o600);
}
