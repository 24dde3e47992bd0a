/**
 * A CLI session's tabs: `<state>/sessions/<id>.tabs`, next to the session's record. Each page target gets
 * a small number the first time a command sees it, and keeps it until it closes; numbers are never
 * reused, so closing tab 2 does not turn tab 3 into tab 2. `selected` is the target later commands drive
 * (the page the last command ended on, or the one `svc tabs select N` chose).
 */
import { ServiceStateError } from "../errors.js";
import { ensureDir, readIfExists, resolveStateDir, writeStateFile } from "./files.js";
import { sessionsDir, tabsPath } from "./session-records.js";

export interface TabsFile {
  /** The next number to give out. */
  next: number;
  /** targetId → tab number. */
  ids: Record<string, number>;
  selected?: string;
}

function parse(text: string, path: string): TabsFile {
  const hint = "delete the file; the next command numbers the tabs again";
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ServiceStateError(`corrupt tab list ${path}: not JSON`, { cause: e, hint });
  }
  const v = value as Partial<TabsFile> | null;
  if (!v || !Number.isInteger(v.next) || !v.ids || typeof v.ids !== "object" || Array.isArray(v.ids)) {
    throw new ServiceStateError(`corrupt tab list ${path}: expected {next, ids}`, { hint });
  }
  if (Object.values(v.ids).some((n) => !Number.isInteger(n))) throw new ServiceStateError(`corrupt tab list ${path}: ids: expected numbers`, { hint });
  return { next: v.next!, ids: v.ids, ...(typeof v.selected === "string" ? { selected: v.selected } : {}) };
}

/** Number the targets not seen before (in the order given) and forget the ones that are gone. */
export function syncTabs(file: TabsFile, targetIds: readonly string[]): TabsFile {
  const ids: Record<string, number> = {};
  let next = file.next;
  for (const t of targetIds) ids[t] = file.ids[t] ?? next++;
  const selected = file.selected !== undefined && file.selected in ids ? file.selected : undefined;
  return { next, ids, ...(selected !== undefined ? { selected } : {}) };
}

export interface TabStore {
  load(): TabsFile;
  save(file: TabsFile): void;
}

export function sessionTabStore(id: string, root: string = resolveStateDir()): TabStore {
  const path = tabsPath(root, id);
  return {
    load() {
      const text = readIfExists(path);
      return text === undefined ? { next: 1, ids: {} } : parse(text, path);
    },
    save(file) {
      ensureDir(sessionsDir(root));
      writeStateFile(path, `${JSON.stringify(file)}\n`);
    },
  };
}
