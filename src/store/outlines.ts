/**
 * A CLI session's last outlines per tab: `<state>/sessions/<id>.outline` (0600, written atomically, removed with the
 * session), the base of `svc snapshot --delta` in the next command, whichever process runs it. Kept bounded (the most
 * recent tabs); a file past its size reads as empty, so the next delta is a full snapshot that says so. The outline is
 * validated by the library when used.
 */
import { statSync } from "node:fs";
import { ensureDir, readIfExists, resolveStateDir, writeStateFile } from "./files.js";
import { outlinePath, sessionsDir } from "./session-records.js";

/** Tabs kept per session (each: at most 3 outlines of 300,000 characters, snapshot/delta.ts). */
export const MAX_OUTLINE_PAGES = 4;
/** A file larger than this is not read: the bound of the tabs' outlines with room for JSON's escapes. */
const MAX_FILE_BYTES = 6_000_000;

type Pages = Record<string, { savedAt: string; outlines: unknown }>;

function read(path: string): Pages {
  try {
    if (statSync(path).size > MAX_FILE_BYTES) return {};
  } catch {
    return {};
  }
  const text = readIfExists(path);
  if (text === undefined) return {};
  try {
    const pages = (JSON.parse(text) as { pages?: unknown } | null)?.pages;
    return pages && typeof pages === "object" && !Array.isArray(pages) ? (pages as Pages) : {};
  } catch {
    return {}; // unreadable: the next delta is a full snapshot
  }
}

/** The outline half of a CLI session's RefStore (src/operations/snapshots.ts). */
export function sessionOutlineStore(id: string, root: string = resolveStateDir()): { loadOutlines(pageId: string): unknown; saveOutlines(pageId: string, outlines: unknown): void } {
  const path = outlinePath(root, id);
  return {
    loadOutlines(pageId) {
      const entry = read(path)[pageId];
      return entry && typeof entry === "object" ? entry.outlines : undefined;
    },
    saveOutlines(pageId, outlines) {
      const pages = read(path);
      pages[pageId] = { savedAt: new Date().toISOString(), outlines };
      const keep = Object.entries(pages)
        .sort(([, a], [, b]) => String(b.savedAt).localeCompare(String(a.savedAt)))
        .slice(0, MAX_OUTLINE_PAGES);
      ensureDir(sessionsDir(root));
      writeStateFile(path, `${JSON.stringify({ pages: Object.fromEntries(keep) })}\n`);
    },
  };
}
