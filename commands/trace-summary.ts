/**
 * What `svc trace stop` prints of a Chrome trace (the JSON object with `traceEvents`): each main-frame page
 * load's timings from its navigationStart to the Performance panel's own markers (MarkDOMContent, MarkLoad, the
 * last largestContentfulPaint candidate of that navigation), and the long tasks — tasks over 50 ms on the main
 * thread (CrRendererMain) of a page renderer (Chrome's own WebUI renderers left out).
 */

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

/** The summary of a parsed trace; throws when it is not a trace. */
export function summarizeTrace(trace: unknown): TraceSummary {
  const events = (Array.isArray(trace) ? trace : (trace as { traceEvents?: unknown } | null)?.traceEvents) as TraceEvent[] | undefined;
  if (!Array.isArray(events)) throw new Error("no traceEvents in it");
  const renderers = new Set<number | undefined>();
  for (const e of events) if (e.ph === "M" && e.name === "process_name" && e.args?.name === "Renderer") renderers.add(e.pid);
  const mainThreads = new Set<string>();
  for (const e of events) if (e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain" && renderers.has(e.pid)) mainThreads.add(`${e.pid}:${e.tid}`);
  let first = Infinity;
  let last = -Infinity;
  const longTasks: number[] = [];
  const starts: Array<{ frame: string; ts: number; id?: string; load: PageLoad }> = [];
  const marks: Array<{ name: string; frame?: string; id?: string; ts: number }> = [];
  for (const e of events) {
    if (typeof e.ts !== "number" || e.ph === "M") continue;
    if (e.ts > 0) first = Math.min(first, e.ts);
    last = Math.max(last, e.ts + (e.dur ?? 0));
    if (e.name === "RunTask" && e.ph === "X" && (e.dur ?? 0) > LONG_TASK_MS * 1000 && mainThreads.has(`${e.pid}:${e.tid}`)) longTasks.push(e.dur!);
    const data = e.args?.data;
    if (e.name === "navigationStart") {
      const url = data?.documentLoaderURL ?? "";
      if (e.args?.frame && (data?.isOutermostMainFrame ?? data?.isLoadingMainFrame) && url && url !== "about:blank") starts.push({ frame: e.args.frame, ts: e.ts, id: data?.navigationId, load: { url } });
    } else if ((e.name === "MarkDOMContent" || e.name === "MarkLoad") && data?.isOutermostMainFrame !== false) marks.push({ name: e.name, frame: data?.frame, ts: e.ts });
    else if (e.name === "largestContentfulPaint::Candidate") marks.push({ name: e.name, id: data?.navigationId, frame: e.args?.frame, ts: e.ts });
  }
  starts.sort((a, b) => a.ts - b.ts);
  for (const m of marks.sort((a, b) => a.ts - b.ts)) {
    // A candidate names its navigation; a marker is the latest navigation of its frame that started before it.
    const nav = (m.id && starts.find((s) => s.id === m.id)) || starts.filter((s) => s.frame === m.frame && s.ts <= m.ts).pop();
    if (!nav) continue;
    const at = ms(m.ts - nav.ts);
    if (m.name === "MarkDOMContent") nav.load.domContentLoadedMs ??= at;
    else if (m.name === "MarkLoad") nav.load.loadMs ??= at;
    else nav.load.largestContentfulPaintMs = at;
  }
  return {
    events: events.length,
    durationMs: Number.isFinite(first) && last >= first ? ms(last - first) : 0,
    loads: starts.map((s) => s.load),
    longTasks: { count: longTasks.length, longestMs: longTasks.length ? ms(Math.max(...longTasks)) : 0, totalMs: ms(longTasks.reduce((a, b) => a + b, 0)) },
  };
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
