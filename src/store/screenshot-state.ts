/**
 * The fingerprint of each tab's last screenshot in a CLI session (browser/screenshot.ts), for `svc screenshot
 * --if-changed`: kept in `<state>/sessions/<id>.shots` (0600) because each command may be a Service of its own.
 * Validated on read; a corrupt file is a STATE_ERROR naming it.
 */
import { ServiceStateError } from "../errors.js";
import { ensureDir, readIfExists, resolveStateDir, writeStateFile } from "./files.js";
import { screenshotStatePath, sessionsDir } from "./session-records.js";

/** Tabs kept per session (the most recently written). */
const MAX_PAGES = 32;

function read(path: string): Record<string, string> {
  const text = readIfExists(path);
  if (text === undefined) return {};
  const hint = "delete the file; the next screenshot of each tab is taken in full";
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ServiceStateError(`corrupt screenshot state ${path}: not JSON`, { cause: e, hint });
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new ServiceStateError(`corrupt screenshot state ${path}: expected an object`, { hint });
  for (const [page, f] of Object.entries(value)) {
    if (typeof f !== "string" || !/^[0-9a-f]{64}$/.test(f)) throw new ServiceStateError(`corrupt screenshot state ${path}: ${page}: expected a sha256 hex digest`, { hint });
  }
  return value as Record<string, string>;
}

export interface ScreenshotStateStore {
  /** The tab's last screenshot's fingerprint; undefined before its first. */
  load(pageId: string): string | undefined;
  save(pageId: string, fingerprint: string): void;
}

export function sessionScreenshotStore(id: string, root: string = resolveStateDir()): ScreenshotStateStore {
  const path = screenshotStatePath(root, id);
  return {
    load(pageId) {
      return read(path)[pageId];
    },
    save(pageId, fingerprint) {
      const pages = read(path);
      delete pages[pageId];
      const kept = Object.entries(pages).slice(-(MAX_PAGES - 1));
      ensureDir(sessionsDir(root));
      writeStateFile(path, `${JSON.stringify(Object.fromEntries([...kept, [pageId, fingerprint]]))}\n`);
    },
  };
}
