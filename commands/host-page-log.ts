/**
 * The session host's page log (part of its keeper role, host-keeper.ts): with Runtime enabled on the host's
 * own session of each page, it records console API calls and uncaught exceptions / unhandled rejections
 * into bounded buffers, written to the session's files (store/page-log.ts) in batches (QUIET_FLUSH_MS,
 * BUSY_FLUSH_MS), so `svc console` and `svc errors` list what the pages did between commands too.
 *
 * Kept cheap for the page: nothing is asked of the page per message; the objects Chrome keeps alive for
 * this session's console arguments are released after each batch (Runtime.releaseObjectGroup "console").
 */
import type { CdpSession } from "../src/internal.js";
import { type ConsoleEntry, type ErrorEntry, PAGE_LOG_LIMITS, type PageLogKind, boundedPageLog, clipPageText, onPageLogFlush, sessionPageLog } from "../src/base.js";

/**
 * How long a logged message waits before it reaches the session's files: QUIET_FLUSH_MS when nothing was
 * written for a second, else BUSY_FLUSH_MS (a page that keeps logging costs at most two writes a second).
 */
export const QUIET_FLUSH_MS = 50;
export const BUSY_FLUSH_MS = 500;

/** What this file reads of CDP's Runtime.RemoteObject and its previews. */
interface PropertyPreview {
  name: string;
  type: string;
  value?: string;
}
interface ObjectPreview {
  subtype?: string;
  description?: string;
  overflow: boolean;
  properties: PropertyPreview[];
}
interface RemoteObject {
  type: string;
  subtype?: string;
  value?: unknown;
  unserializableValue?: string;
  description?: string;
  preview?: ObjectPreview;
}
interface StackTrace {
  callFrames: Array<{ functionName: string; url: string; lineNumber: number; columnNumber: number }>;
}

function previewText(p: ObjectPreview): string {
  const value = (v: PropertyPreview) => (v.type === "string" ? JSON.stringify(v.value ?? "") : (v.value ?? v.type));
  const more = p.overflow ? ", …" : "";
  if (p.subtype === "array") return `[${p.properties.map(value).join(", ")}${more}]`;
  const head = p.description && p.description !== "Object" ? `${p.description} ` : "";
  return `${head}{${p.properties.map((x) => `${x.name}: ${value(x)}`).join(", ")}${more}}`;
}

/** One console argument as DevTools shows it, roughly: strings bare, objects by their preview. */
function show(o: RemoteObject): string {
  if (o.type === "string") return String(o.value);
  if (o.unserializableValue !== undefined) return o.unserializableValue;
  if (o.type === "undefined") return "undefined";
  if (o.subtype === "null") return "null";
  if (o.type !== "object" && o.type !== "function" && o.value !== undefined) return String(o.value);
  if (o.subtype === "error") return o.description ?? "Error";
  if (o.preview && o.type === "object") return previewText(o.preview);
  return o.description ?? o.type;
}

/** `console.log("a %s b %d", x, y)`: the format's substitutions, then the rest separated by spaces. */
export function consoleText(args: readonly RemoteObject[]): string {
  const rest = [...args];
  let head = "";
  if (rest[0]?.type === "string" && String(rest[0].value).includes("%")) {
    const format = String(rest.shift()!.value);
    head = format.replace(/%([sdifoOc%])/g, (m, f: string) => {
      if (f === "%") return "%";
      const a = rest.shift();
      if (!a) return m;
      if (f === "c") return "";
      if (f === "d" || f === "i") return a.type === "number" ? String(Math.trunc(Number(a.value))) : "NaN";
      return show(a);
    });
  }
  return [head, ...rest.map(show)].filter((s, i) => i > 0 || s !== "").join(" ");
}

function frames(trace: StackTrace | undefined): string[] {
  return (trace?.callFrames ?? []).slice(0, PAGE_LOG_LIMITS.frames).map((f) => clipPageText(`${f.functionName || "(anonymous)"} (${f.url}:${f.lineNumber + 1}:${f.columnNumber + 1})`, 500));
}

const LEVELS: Record<string, string> = { warning: "warn", startGroup: "group", startGroupCollapsed: "group" };

export class PageLogRecorder {
  private readonly buffers: { console: ConsoleEntry[]; errors: ErrorEntry[] } = { console: [], errors: [] };
  private readonly dirty = new Set<PageLogKind>();
  private readonly sessions = new Set<CdpSession>();
  private timer: NodeJS.Timeout | undefined;
  private lastFlush = 0;
  private readonly store;

  constructor(options: { id: string; root: string }) {
    this.store = sessionPageLog(options.id, options.root);
    onPageLogFlush(() => this.flush());
  }

  /** Records the page's console and exceptions on the host's session `session` (of target `target`). */
  watch(session: CdpSession, target: string): Promise<unknown> {
    this.sessions.add(session);
    session.on("svc.detached" as never, () => this.sessions.delete(session));
    session.on("Runtime.consoleAPICalled", (e) => {
      if (e.type === "endGroup") return;
      const top = e.stackTrace?.callFrames[0];
      this.add("console", {
        received: Date.now(),
        at: new Date(e.timestamp).toISOString(),
        target,
        level: LEVELS[e.type] ?? e.type,
        text: clipPageText(consoleText(e.args)),
        ...(top?.url ? { url: clipPageText(top.url, 1000), line: top.lineNumber + 1 } : {}),
      });
    });
    session.on("Runtime.exceptionThrown", (e) => {
      const d = e.exceptionDetails;
      const description = d.exception?.description ?? (d.exception?.value !== undefined ? String(d.exception.value) : undefined);
      const url = d.url ?? d.stackTrace?.callFrames[0]?.url;
      this.add("errors", {
        received: Date.now(),
        at: new Date(e.timestamp).toISOString(),
        target,
        kind: d.text.includes("(in promise)") ? "rejection" : "exception",
        message: clipPageText(description?.split("\n")[0] ?? d.text),
        stack: frames(d.stackTrace),
        ...(url ? { url: clipPageText(url, 1000), line: d.lineNumber + 1 } : {}),
        exceptionId: d.exceptionId,
      });
    });
    // A rejection handled later is no longer unhandled.
    session.on("Runtime.exceptionRevoked", (e) => {
      const list = this.buffers.errors;
      const i = list.findIndex((x) => x.target === target && x.exceptionId === e.exceptionId);
      if (i >= 0) (list.splice(i, 1), this.schedule("errors"));
    });
    return session.send("Runtime.enable");
  }

  private add<K extends PageLogKind>(kind: K, entry: (typeof this.buffers)[K][number]): void {
    const list = this.buffers[kind] as Array<typeof entry>;
    list.push(entry);
    // Bounded in memory too: trimmed by count at once, by bytes on the next write.
    if (list.length > PAGE_LOG_LIMITS.entries * 2) list.splice(0, list.length - PAGE_LOG_LIMITS.entries);
    this.schedule(kind);
  }

  private schedule(kind: PageLogKind): void {
    this.dirty.add(kind);
    this.timer ??= setTimeout(() => this.flush(), Date.now() - this.lastFlush > 1000 ? QUIET_FLUSH_MS : BUSY_FLUSH_MS);
  }

  /** Writes the pending batch now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.dirty.size === 0) return;
    this.lastFlush = Date.now();
    for (const kind of this.dirty) {
      try {
        const write = this.store.write as (k: PageLogKind, list: readonly unknown[]) => unknown[];
        (this.buffers as Record<PageLogKind, unknown[]>)[kind] = write(kind, boundedPageLog(this.buffers[kind] as unknown[]));
      } catch {
        // the log is a record, not a reason to stop watching the pages
      }
    }
    this.dirty.clear();
    for (const s of this.sessions) s.send("Runtime.releaseObjectGroup", { objectGroup: "console" }).catch(() => {});
  }

  /** Chrome is gone: the session is ending and its files go with it, so nothing more is written. */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.dirty.clear();
    onPageLogFlush(undefined);
  }
}
