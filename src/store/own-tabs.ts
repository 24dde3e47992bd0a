/**
 * The tabs a session on a user's own Chrome (`svc connect --auto`) may drive: `<state>/sessions/<id>.own-tabs` (0600),
 * the target ids svc created there, plus popups they open (browser/tab-scope.ts). Read on every question, since another
 * process's command may have added a tab; what this process saw is kept too (`known()`), so the host can close the tabs
 * after the file is gone.
 */
import { ensureDir, readIfExists, resolveStateDir, writeStateFile } from "./files.js";
import { ownTabsPath, sessionsDir } from "./session-records.js";

/** At most this many ids are kept (the oldest go first); a target id is at most 64 characters. */
export const MAX_OWN_TABS = 500;
const TARGET_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** A TabScope (browser/tab-scope.ts) kept in the session's file. */
export interface OwnTabs {
  owns(targetId: string, openerId?: string): boolean;
  adopt(targetId: string): void;
  /** Every id this process read or adopted, the file's current ones included. */
  known(): string[];
  /** Calls `listener` with each tab adopted in this process (the host's keeper starts watching it). */
  onAdopt(listener: (targetId: string) => void): () => void;
}

/** Adoptions in this process, per session: the host's keeper and its Service are two readers of one file. */
const listeners = new Map<string, Set<(targetId: string) => void>>();

export function sessionOwnTabs(id: string, root: string = resolveStateDir()): OwnTabs {
  const path = ownTabsPath(root, id);
  const seen = new Set<string>();
  const read = (): string[] => {
    const text = readIfExists(path);
    if (text === undefined || text.length > MAX_OWN_TABS * 70) return [];
    try {
      const v = JSON.parse(text) as unknown;
      const ids = Array.isArray(v) ? v.filter((x): x is string => typeof x === "string" && TARGET_ID.test(x)) : [];
      for (const x of ids) seen.add(x);
      return ids;
    } catch {
      return [];
    }
  };
  const adopt = (targetId: string) => {
    if (!TARGET_ID.test(targetId)) return;
    const ids = read();
    if (!ids.includes(targetId)) {
      ensureDir(sessionsDir(root));
      writeStateFile(path, `${JSON.stringify([...ids, targetId].slice(-MAX_OWN_TABS))}\n`, 0o600);
    }
    seen.add(targetId);
    for (const l of listeners.get(id) ?? []) l(targetId);
  };
  return {
    owns(targetId, openerId) {
      const ids = read();
      if (ids.includes(targetId)) return true;
      if (openerId === undefined || !ids.includes(openerId)) return false;
      adopt(targetId);
      return true;
    },
    adopt,
    known: () => (read(), [...seen]),
    onAdopt(listener) {
      const set = listeners.get(id) ?? new Set();
      listeners.set(id, set);
      set.add(listener);
      return () => void set.delete(listener);
    },
  };
}
