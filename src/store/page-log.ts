/**
 * What a CLI session's pages logged and threw (`sessions/<id>.console`, `.errors`, 0600, atomic), written in batches
 * by the host and bounded by PAGE_LOG_LIMITS. `--clear` writes `<file>.cleared` instead of rewriting the host's file,
 * and reader and host drop what came before. Every string is masked with the session's secrets (store/secrets.ts) on
 * write and on read.
 */
import { ServiceStateError } from "../errors.js";
import { clearedMark, ensureDir, newestWithin, readIfExists, resolveStateDir, writeClearedMark, writeStateFile } from "./files.js";
import { sessionMasker } from "./secrets.js";
import { pageLogPath, sessionsDir } from "./session-records.js";

export type PageLogKind = "console" | "errors";

/** The bounds of one kind's buffer. */
export const PAGE_LOG_LIMITS = { entries: 1000, bytes: 1_000_000, textChars: 4000, frames: 5 } as const;

interface Common {
  /** When the host received it (epoch ms): what `--clear` compares with. */
  received: number;
  /** When the page logged or threw it (ISO). */
  at: string;
  /** The page's DevTools target id (its tab number comes from store/tabs.ts). */
  target: string;
  url?: string;
  line?: number;
}

export interface ConsoleEntry extends Common {
  level: string;
  text: string;
}

export interface ErrorEntry extends Common {
  kind: "exception" | "rejection";
  message: string;
  /** The stack's first frames, `fn (url:line:col)`. */
  stack: string[];
  /** Chrome's id, to drop a rejection handled later (Runtime.exceptionRevoked). */
  exceptionId?: number;
}

export interface PageLogEntries {
  console: ConsoleEntry[];
  errors: ErrorEntry[];
}

/** A string cut to `max` characters (with … when cut). */
export function clip(s: string, max: number = PAGE_LOG_LIMITS.textChars): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** The newest entries within the bounds (entries count and JSON bytes), oldest first. */
export function bounded<T>(entries: readonly T[]): T[] {
  return newestWithin(entries, PAGE_LOG_LIMITS);
}

const where = (e: { url?: string; line?: number }) => (e.url ? `${e.url}${e.line ? `:${e.line}` : ""}` : "-");
const tabWord = (n: number | undefined) => (n === undefined ? "tab -" : `tab ${n}`);
const oneLine = (s: string) => s.replace(/\r?\n/g, "\\n");

/** One entry as one line of text: when, the tab's number, the level or kind, the text, where. */
export function pageLogLine(kind: PageLogKind, e: ConsoleEntry | ErrorEntry, tab: number | undefined): string {
  if (kind === "console") {
    const c = e as ConsoleEntry;
    return `${c.at} ${tabWord(tab)} ${c.level.padEnd(5)} ${oneLine(c.text)} (${where(c)})`;
  }
  const x = e as ErrorEntry;
  const first = x.stack[0] ? ` at ${x.stack[0]}` : "";
  return `${x.at} ${tabWord(tab)} ${x.kind === "rejection" ? "unhandled rejection" : "uncaught"}: ${oneLine(x.message)}${first} (${where(x)})`;
}

/** When the kind was last cleared (epoch ms; 0: never). */
export function clearedAt(id: string, kind: PageLogKind, root: string = resolveStateDir()): number {
  return clearedMark(pageLogPath(root, id, kind));
}

export interface PageLogStore {
  /** Entries after the last clear, masked with the session's secrets now. */
  read<K extends PageLogKind>(kind: K): PageLogEntries[K];
  /** Replaces the kind's file with these entries (bounded, masked; the cleared ones dropped): the host's batch. */
  write<K extends PageLogKind>(kind: K, entries: readonly PageLogEntries[K][number][]): PageLogEntries[K];
  /** Empties the kind: entries received until now are dropped by readers and by the host's next batch. */
  clear(kind: PageLogKind): void;
}

export function sessionPageLog(id: string, root: string = resolveStateDir()): PageLogStore {
  return {
    read<K extends PageLogKind>(kind: K) {
      const path = pageLogPath(root, id, kind);
      const text = readIfExists(path);
      if (text === undefined) return [] as unknown as PageLogEntries[K];
      let list: unknown;
      try {
        list = (JSON.parse(text) as { entries?: unknown }).entries;
      } catch (e) {
        throw new ServiceStateError(`corrupt page log ${path}: not JSON`, { cause: e, hint: "delete the file" });
      }
      if (!Array.isArray(list)) throw new ServiceStateError(`corrupt page log ${path}: entries: expected an array`, { hint: "delete the file" });
      const since = clearedAt(id, kind, root);
      return sessionMasker(id, root).deep(list.filter((e: Common) => e && typeof e === "object" && typeof e.received === "number" && e.received > since)) as PageLogEntries[K];
    },
    write<K extends PageLogKind>(kind: K, entries: readonly PageLogEntries[K][number][]) {
      const since = clearedAt(id, kind, root);
      const kept = sessionMasker(id, root).deep(bounded(entries.filter((e) => e.received > since))) as PageLogEntries[K];
      ensureDir(sessionsDir(root));
      writeStateFile(pageLogPath(root, id, kind), `${JSON.stringify({ entries: kept })}\n`, 0o600);
      return kept;
    },
    clear(kind) {
      writeClearedMark(pageLogPath(root, id, kind));
    },
  };
}

/** The host's recorder registers how to write its pending batch now, so a command it runs reads everything. */
let flushHook: (() => void) | undefined;

export function onPageLogFlush(fn: (() => void) | undefined): void {
  flushHook = fn;
}

/** Writes the host's pending batch (in the host; nothing to do in another process). */
export function flushPageLog(): void {
  flushHook?.();
}
