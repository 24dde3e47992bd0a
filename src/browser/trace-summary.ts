/**
 * What `svc trace stop` (and MCP `trace_stop`) prints of a trace: each main-frame load's timings from navigationStart
 * to the Performance panel's own markers (DOMContentLoaded, load, last LCP candidate), and the long tasks (over 50 ms
 * on a page renderer's main thread, Chrome's WebUI left out).
 */
import { createReadStream, readFileSync, statSync } from "node:fs";
import { createInterface } from "node:readline";

export const LONG_TASK_MS = 50;

export interface PageLoad {
  url: string;
  /** navigationStart → DOMContentLoaded, in ms (absent: not reached while tracing). */
  domContentLoadedMs?: number;
  /** navigationStart → the load event, in ms. */
  loadMs?: number;
  /** navigationStart → the last largest-contentful-paint candidate, in ms. */
  largestContentfulPaintMs?: number;
}

export interface TraceSummary {
  events: number;
  /** The trace's span, first event to last, in ms. */
  durationMs: number;
  loads: PageLoad[];
  longTasks: { count: number; longestMs: number; totalMs: number };
}

interface TraceEvent {
  name?: string;
  ph?: string;
  ts?: number;
  dur?: number;
  pid?: number;
  tid?: number;
  args?: { name?: string; frame?: string; data?: { documentLoaderURL?: string; isLoadingMainFrame?: boolean; isOutermostMainFrame?: boolean; navigationId?: string; frame?: string } };
}

const ms = (us: number) => Math.round(us / 100) / 10;

/**
 * One pass over a trace's events, keeping only the few it needs (thread and process names, tasks over 50 ms,
 * navigations and their markers): a trace of hundreds of MB is summarized in little memory.
 */
export class TraceSummarizer {
  private events = 0;
  private first = Infinity;
  private last = -Infinity;
  private readonly renderers = new Set<number | undefined>();
  private readonly mainThreads = new Map<string, number | undefined>();
  private readonly longTasks: Array<{ thread: string; dur: number }> = [];
  private readonly starts: Array<{ frame: string; ts: number; id?: string; load: PageLoad }> = [];
  private readonly marks: Array<{ name: string; frame?: string; id?: string; ts: number }> = [];

  add(e: TraceEvent): void {
    this.events++;
    if (e.ph === "M") {
      if (e.name === "process_name" && e.args?.name === "Renderer") this.renderers.add(e.pid);
      if (e.name === "thread_name" && e.args?.name === "CrRendererMain") this.mainThreads.set(`${e.pid}:${e.tid}`, e.pid);
      return;
    }
    if (typeof e.ts !== "number") return;
    if (e.ts > 0) this.first = Math.min(this.first, e.ts);
    this.last = Math.max(this.last, e.ts + (e.dur ?? 0));
    if (e.name === "RunTask" && e.ph === "X" && (e.dur ?? 0) > LONG_TASK_MS * 1000) this.longTasks.push({ thread: `${e.pid}:${e.tid}`, dur: e.dur! });
    const data = e.args?.data;
    if (e.name === "navigationStart") {
      const url = data?.documentLoaderURL ?? "";
      if (e.args?.frame && (data?.isOutermostMainFrame ?? data?.isLoadingMainFrame) && url && url !== "about:blank") this.starts.push({ frame: e.args.frame, ts: e.ts, id: data?.navigationId, load: { url } });
    } else if ((e.name === "MarkDOMContent" || e.name === "MarkLoad") && data?.isOutermostMainFrame !== false) this.marks.push({ name: e.name, frame: data?.frame, ts: e.ts });
    else if (e.name === "largestContentfulPaint::Candidate") this.marks.push({ name: e.name, id: data?.navigationId, frame: e.args?.frame, ts: e.ts });
  }

  result(): TraceSummary {
    const starts = [...this.starts].sort((a, b) => a.ts - b.ts).map((s) => ({ ...s, load: { ...s.load } }));
    for (const m of [...this.marks].sort((a, b) => a.ts - b.ts)) {
      // A candidate names its navigation; a marker is the latest navigation of its frame that started before it.
      const nav = (m.id && starts.find((s) => s.id === m.id)) || starts.filter((s) => s.frame === m.frame && s.ts <= m.ts).pop();
      if (!nav) continue;
      const at = ms(m.ts - nav.ts);
      if (m.name === "MarkDOMContent") nav.load.domContentLoadedMs ??= at;
      else if (m.name === "MarkLoad") nav.load.loadMs ??= at;
      else nav.load.largestContentfulPaintMs = at;
    }
    // Long tasks of a page renderer's main thread (Chrome's own WebUI renderers have one too).
    const long = this.longTasks.filter((t) => this.mainThreads.has(t.thread) && this.renderers.has(this.mainThreads.get(t.thread))).map((t) => t.dur);
    return {
      events: this.events,
      durationMs: Number.isFinite(this.first) && this.last >= this.first ? ms(this.last - this.first) : 0,
      loads: starts.map((s) => s.load),
      longTasks: { count: long.length, longestMs: long.length ? ms(Math.max(...long)) : 0, totalMs: ms(long.reduce((a, b) => a + b, 0)) },
    };
  }
}

/** The summary of a parsed trace (the object with traceEvents, or the bare array); throws when it is not a trace. */
export function summarizeTrace(trace: unknown): TraceSummary {
  const events = (Array.isArray(trace) ? trace : (trace as { traceEvents?: unknown } | null)?.traceEvents) as TraceEvent[] | undefined;
  if (!Array.isArray(events)) throw new Error("no traceEvents in it");
  const s = new TraceSummarizer();
  for (const e of events) if (e && typeof e === "object") s.add(e);
  return s.result();
}

function parseEvent(text: string): TraceEvent | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === "object" && !Array.isArray(v) ? (v as TraceEvent) : undefined;
  } catch {
    return undefined; // not one event on its own line (the closing lines, metadata)
  }
}

/**
 * The summary of a trace file, read line by line: Chrome writes one event per line, so memory stays small
 * whatever the trace's size. A file in another layout is parsed whole when it is at most `wholeMaxBytes`.
 */
export async function summarizeTraceFile(path: string, wholeMaxBytes = 64 * 1024 * 1024): Promise<TraceSummary> {
  const s = new TraceSummarizer();
  let header = false;
  const lines = createInterface({ input: createReadStream(path, { encoding: "utf8" }), crlfDelay: Infinity });
  for await (const raw of lines) {
    const line = raw.trim();
    if (!header) {
      header = line === '{"traceEvents":[';
      if (!header) break;
      continue;
    }
    if (line.startsWith("]")) break;
    if (!line.startsWith("{")) continue;
    // An event line ends with "," — the last one closes the array too (`}],"metadata":`): the events end there.
    const event = parseEvent(line.replace(/,$/, ""));
    if (event) {
      s.add(event);
      continue;
    }
    const end = line.lastIndexOf("}]");
    const lastEvent = end > 0 ? parseEvent(line.slice(0, end + 1)) : undefined;
    if (lastEvent) {
      s.add(lastEvent);
      break;
    }
  }
  lines.close();
  if (header) return s.result();
  if (statSync(path).size > wholeMaxBytes) throw new Error(`not one event per line and larger than ${wholeMaxBytes} bytes`);
  return summarizeTrace(JSON.parse(readFileSync(path, "utf8")));
}

/** The summary as `svc trace stop` prints it. */
export function summaryLines(s: TraceSummary): string[] {
  const lines = [`${s.events} events over ${s.durationMs} ms`];
  if (!s.loads.length) lines.push("page loads: none while tracing");
  for (const l of s.loads) {
    const part = (label: string, v: number | undefined) => `${label} ${v === undefined ? "-" : `${v} ms`}`;
    lines.push(`load ${l.url}: ${part("DOMContentLoaded", l.domContentLoadedMs)}, ${part("load", l.loadMs)}, ${part("LCP", l.largestContentfulPaintMs)}`);
  }
  const t = s.longTasks;
  lines.push(t.count ? `long tasks (> ${LONG_TASK_MS} ms): ${t.count}, longest ${t.longestMs} ms, ${t.totalMs} ms in all` : `long tasks (> ${LONG_TASK_MS} ms): none`);
  return lines;
}
