/**
 * What pages log and throw (console calls, uncaught exceptions, unhandled rejections; one handled later is taken
 * back), from their DevTools sessions into bounded buffers. The session host writes them to files
 * (commands/host/page-log.ts); the MCP server reads them directly. Nothing is asked of the page per message:
 * arguments are shown from Chrome's previews.
 */
import { type ConsoleEntry, type ErrorEntry, PAGE_LOG_LIMITS, type PageLogEntries, type PageLogKind, clip } from "../store/page-log.js";
import type { CdpSession } from "./cdp/connection.js";

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
  return (trace?.callFrames ?? []).slice(0, PAGE_LOG_LIMITS.frames).map((f) => clip(`${f.functionName || "(anonymous)"} (${f.url}:${f.lineNumber + 1}:${f.columnNumber + 1})`, 500));
}

const LEVELS: Record<string, string> = { warning: "warn", startGroup: "group", startGroupCollapsed: "group" };

/**
 * A page restored from the back/forward cache replays, on Runtime's re-enable, what its document reported before it
 * was cached (same context, same timestamp). Those are recognised by that identity and not added twice; per page as
 * many are remembered as V8 replays (its last 1000).
 */
const REMEMBERED = 1000;

class Reported {
  private readonly byTarget = new Map<string, Set<string>>();

  /** True the first time `key` is seen for `target`. */
  first(target: string, key: string): boolean {
    let seen = this.byTarget.get(target);
    if (!seen) this.byTarget.set(target, (seen = new Set()));
    if (seen.has(key)) return false;
    seen.add(key);
    if (seen.size > REMEMBERED) seen.delete(seen.values().next().value as string);
    return true;
  }

  forget(target: string): void {
    this.byTarget.delete(target);
  }
}

export class ConsoleRecorder {
  private readonly buffers: PageLogEntries = { console: [], errors: [] };
  private readonly reported = new Reported();

  /** `onChange`: called after each change of a kind's buffer (an entry added or taken back). */
  constructor(private readonly options: { onChange?: (kind: PageLogKind) => void } = {}) {}

  /**
   * Records the console and exceptions of the page whose DevTools session is `session` (target `target`);
   * resolves once Runtime is enabled there (Chrome then also reports what was logged before).
   */
  watch(session: CdpSession, target: string): Promise<unknown> {
    session.on("svc.detached" as never, () => this.reported.forget(target));
    session.on("Runtime.consoleAPICalled", (e) => {
      if (e.type === "endGroup") return;
      const text = clip(consoleText(e.args));
      if (!this.reported.first(target, `c ${e.executionContextId} ${e.timestamp} ${e.type} ${text.slice(0, 200)}`)) return;
      const top = e.stackTrace?.callFrames[0];
      this.add("console", {
        received: Date.now(),
        at: new Date(e.timestamp).toISOString(),
        target,
        level: LEVELS[e.type] ?? e.type,
        text,
        ...(top?.url ? { url: clip(top.url, 1000), line: top.lineNumber + 1 } : {}),
      });
    });
    session.on("Runtime.exceptionThrown", (e) => {
      const d = e.exceptionDetails;
      if (!this.reported.first(target, `x ${d.executionContextId ?? ""} ${d.exceptionId} ${e.timestamp}`)) return;
      const description = d.exception?.description ?? (d.exception?.value !== undefined ? String(d.exception.value) : undefined);
      const url = d.url ?? d.stackTrace?.callFrames[0]?.url;
      this.add("errors", {
        received: Date.now(),
        at: new Date(e.timestamp).toISOString(),
        target,
        kind: d.text.includes("(in promise)") ? "rejection" : "exception",
        message: clip(description?.split("\n")[0] ?? d.text),
        stack: frames(d.stackTrace),
        ...(url ? { url: clip(url, 1000), line: d.lineNumber + 1 } : {}),
        exceptionId: d.exceptionId,
      });
    });
    session.on("Runtime.exceptionRevoked", (e) => {
      const list = this.buffers.errors;
      const i = list.findIndex((x) => x.target === target && x.exceptionId === e.exceptionId);
      if (i >= 0) (list.splice(i, 1), this.options.onChange?.("errors"));
    });
    return session.send("Runtime.enable");
  }

  /** The kind's entries, oldest first (the array itself: a writer may replace it with `replace`). */
  entries<K extends PageLogKind>(kind: K): PageLogEntries[K] {
    return this.buffers[kind];
  }

  /** Replaces the kind's buffer (with the bounded list its writer kept). */
  replace<K extends PageLogKind>(kind: K, list: PageLogEntries[K]): void {
    this.buffers[kind] = list;
  }

  /** Empties the kind. */
  clear(kind: PageLogKind): void {
    this.buffers[kind] = [];
  }

  private add<K extends PageLogKind>(kind: K, entry: PageLogEntries[K][number]): void {
    const list = this.buffers[kind] as Array<ConsoleEntry | ErrorEntry>;
    list.push(entry);
    // At most the bound at every moment: the oldest goes as the newest comes (a writer bounds by bytes too).
    if (list.length > PAGE_LOG_LIMITS.entries) list.splice(0, list.length - PAGE_LOG_LIMITS.entries);
    this.options.onChange?.(kind);
  }
}
