/**
 * Append-only history per session (`<state>/history/<id>.jsonl`, one HistoryEntry per line). One-shot
 * runs, which have no session, append to the "default" log. History outlives its session.
 */
import { appendFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ServiceStateError } from "../errors.js";
import { checkId, describeFsError, ensureDir, readIfExists, resolveStateDir } from "./files.js";

/** The log one-shot runs (no session) append to. */
export const DEFAULT_LOG_ID = "default";

/** The shape of HistoryEntry (docs/wire-formats.md "Records"), as stored. */
export interface StoredHistoryEntry {
  method: string;
  parameters: unknown;
  result: unknown;
  timestamp: string;
}

function historyDir(root: string = resolveStateDir()): string {
  return join(root, "history");
}

export function historyPath(id: string, root: string = resolveStateDir()): string {
  return join(historyDir(root), `${checkId(id)}.jsonl`);
}

/** Append entries in one write (so concurrent appenders interleave by whole batches, not by bytes). */
export function appendHistory(id: string, entries: readonly StoredHistoryEntry[], root: string = resolveStateDir()): void {
  if (entries.length === 0) return;
  ensureDir(historyDir(root));
  const path = historyPath(id, root);
  const text = entries.map((e) => JSON.stringify(e)).join("\n") + "\n";
  try {
    appendFileSync(path, text, { mode: 0o600 });
  } catch (e) {
    throw new ServiceStateError(`cannot append to ${path}: ${describeFsError(e)}`, { cause: e });
  }
}

/** Entries in the order they were appended; undefined when the log does not exist. */
export function readHistory(id: string, root: string = resolveStateDir()): StoredHistoryEntry[] | undefined {
  const path = historyPath(id, root);
  const text = readIfExists(path);
  if (text === undefined) return undefined;
  const out: StoredHistoryEntry[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as StoredHistoryEntry);
    } catch {
      // A line cut short by a crash mid-append: skip it, keep the rest.
    }
  }
  return out;
}

/** Ids of every history log, most recently appended first. */
export function listHistoryIds(root: string = resolveStateDir()): string[] {
  return listByMtime(historyDir(root), ".jsonl");
}

export function listByMtime(dir: string, ext: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith(ext) && !n.startsWith("."))
    .map((n) => {
      let mtime = 0;
      try {
        mtime = statSync(join(dir, n)).mtimeMs;
      } catch {
        // removed meanwhile
      }
      return { id: n.slice(0, -ext.length), mtime };
    })
    .sort((a, b) => b.mtime - a.mtime)
    .map((x) => x.id);
}
