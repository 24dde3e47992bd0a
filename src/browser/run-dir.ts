/**
 * svc's run dir for one Chrome (`<base>/svc-chrome-XXXXXX`: profile, TMPDIR, downloads, the DevTools socket) and its
 * removal. Its two pid files (Chrome's and its pipe holder's) are removed last, so a dir whose removal failed part
 * way is still recognised by sweepRunDirs once both are gone. Kept free of heavy imports: the reaper loads it.
 */
import { accessSync, constants as fsConstants, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processAlive } from "../util/process.js";

/** In a run dir: the pid of the process holding Chrome's pipe. */
export const HOLDER_PID_FILE = "holder.pid";
/** In a run dir: Chrome's pid. */
export const CHROME_PID_FILE = "chrome.pid";

/**
 * Chrome puts its singleton socket at `$TMPDIR/org.chromium.Chromium.XXXXXX/SingletonSocket` and dies
 * (`FATAL … Socket path too long`) when that exceeds sun_path (104 bytes on macOS, 108 on Linux). svc sets
 * Chrome's TMPDIR to `<base>/svc-chrome-XXXXXX/tmp`, so the base may take at most 104 - 1 - 45 - 22 bytes.
 */
const MAX_RUN_BASE_LENGTH = 36;

/** Where svc's per-Chrome run folders go: the OS temp dir, or /tmp when that path is too long (macOS). */
export function runBase(): string {
  const base = tmpdir();
  if (base.length <= MAX_RUN_BASE_LENGTH || process.platform === "win32") return base;
  try {
    accessSync("/tmp", fsConstants.W_OK | fsConstants.X_OK);
    return "/tmp";
  } catch {
    return base; // Chrome may then fail; its own fatal line says why
  }
}

/**
 * Removes a run dir with its pid files last. A removal that fails part way (a process of that Chrome still
 * creating files in it) throws and leaves the pid files, so the dir stays one sweepRunDirs removes later
 * instead of an empty shell nothing would ever remove. Gone already is success.
 */
export function removeRunDir(dir: string): void {
  const last = new Set([HOLDER_PID_FILE, CHROME_PID_FILE]);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
    throw e;
  }
  for (const name of names) if (!last.has(name)) rmSync(join(dir, name), { recursive: true, force: true, maxRetries: 3 });
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

/**
 * Removes the run dirs whose holder and Chrome are both gone (a holder killed with -9 ends its Chrome through
 * the pipe, but nothing of it was left to remove the dir). Only this user's dirs; a dir without both pid files
 * is a launch under way, or not svc's, and is left alone.
 */
export function sweepRunDirs(): void {
  const base = runBase();
  let names: string[];
  try {
    names = readdirSync(base).filter((n) => n.startsWith("svc-chrome-"));
  } catch {
    return;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    const dir = join(base, name);
    try {
      if (uid !== undefined && statSync(dir).uid !== uid) continue;
      const holder = Number(readFileSync(join(dir, HOLDER_PID_FILE), "utf8"));
      const chrome = Number(readFileSync(join(dir, CHROME_PID_FILE), "utf8"));
      if (!(holder > 0) || processAlive(holder) || (chrome > 0 && processAlive(chrome))) continue;
      removeRunDir(dir);
    } catch {
      // not complete yet (its launch is under way), not svc's, or its removal failed again: a later sweep
    }
  }
}
