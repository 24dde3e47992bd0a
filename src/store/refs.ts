/**
 * A CLI session's refs, per page: `<state>/sessions/<id>.refs`, next to the session's record, so a ref
 * printed by one command (`svc extract`) names the same element in the next (`svc act`). The state of each
 * page is the library's (PageRefs JSON, validated there); this file only keeps it, written atomically, and
 * is removed with the session.
 */
import { statSync } from "node:fs";
import { ServiceStateError } from "../errors.js";
import { ensureDir, readIfExists, resolveStateDir, writeStateFile } from "./files.js";
import { sessionOutlineStore } from "./outlines.js";
import { refsPath, sessionsDir } from "./session-records.js";

/** Pages kept per session (the most recently saved): a session's closed tabs do not pile up. */
const MAX_PAGES = 32;

interface RefsFile {
  pages: Record<string, { savedAt: string; state: unknown }>;
}

function read(path: string): RefsFile {
  const text = readIfExists(path);
  if (text === undefined) return { pages: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ServiceStateError(`corrupt ref map ${path}: not JSON`, { cause: e, hint: "delete the file; the next snapshot issues refs again" });
  }
  const pages = (value as Partial<RefsFile> | null)?.pages;
  if (!pages || typeof pages !== "object" || Array.isArray(pages)) {
    throw new ServiceStateError(`corrupt ref map ${path}: pages: expected an object`, { hint: "delete the file; the next snapshot issues refs again" });
  }
  return { pages };
}

/** The RefStore (src/operations/snapshots.ts) of one CLI session, with its last outlines (store/outlines.ts). */
export function sessionRefStore(
  id: string,
  root: string = resolveStateDir(),
): { load(pageId: string): unknown; save(pageId: string, state: unknown): void; stamp(): string } & ReturnType<typeof sessionOutlineStore> {
  const path = refsPath(root, id);
  return {
    ...sessionOutlineStore(id, root),
    /** Changes with every write (each one renames a new file into place): whether another process saved since. */
    stamp() {
      try {
        const s = statSync(path, { bigint: true });
        return `${s.ino}:${s.mtimeNs}:${s.size}`;
      } catch {
        return "none";
      }
    },
    load(pageId) {
      const entry = read(path).pages[pageId];
      return entry && typeof entry === "object" ? entry.state : undefined;
    },
    save(pageId, state) {
      const file = read(path);
      file.pages[pageId] = { savedAt: new Date().toISOString(), state };
      const keep = Object.entries(file.pages)
        .sort(([, a], [, b]) => String(b.savedAt).localeCompare(String(a.savedAt)))
        .slice(0, MAX_PAGES);
      ensureDir(sessionsDir(root));
      writeStateFile(path, `${JSON.stringify({ pages: Object.fromEntries(keep) })}\n`);
    },
  };
}
