/** The summary `svc trace stop` prints (src/browser/trace-summary.ts), from a trace file in Chrome's layout and in a compact one. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { summarizeTrace, summarizeTraceFile } from "../../src/browser/trace-summary.js";

const dir = mkdtempSync(join(tmpdir(), "svc-trace-summary-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const nav = { navigationId: "N1", documentLoaderURL: "http://x/page.html", isLoadingMainFrame: true, isOutermostMainFrame: true };
const EVENTS = [
  { ph: "M", name: "process_name", pid: 1, tid: 0, ts: 0, args: { name: "Renderer" } },
  { ph: "M", name: "thread_name", pid: 1, tid: 1, ts: 0, args: { name: "CrRendererMain" } },
  { ph: "M", name: "process_name", pid: 2, tid: 0, ts: 0, args: { name: "WebUI Top Renderer" } },
  { ph: "M", name: "thread_name", pid: 2, tid: 2, ts: 0, args: { name: "CrRendererMain" } },
  { ph: "R", name: "navigationStart", pid: 1, tid: 1, ts: 1_000_000, args: { frame: "F", data: { ...nav, documentLoaderURL: "" } } },
  { ph: "R", name: "navigationStart", pid: 1, tid: 1, ts: 1_000_000, args: { frame: "F", data: nav } },
  { ph: "I", name: "MarkDOMContent", pid: 1, tid: 1, ts: 1_080_000, args: { data: { frame: "F", isOutermostMainFrame: true } } },
  { ph: "I", name: "MarkLoad", pid: 1, tid: 1, ts: 1_090_000, args: { data: { frame: "F", isOutermostMainFrame: true } } },
  { ph: "R", name: "largestContentfulPaint::Candidate", pid: 1, tid: 1, ts: 1_050_000, args: { frame: "F", data: { navigationId: "N1" } } },
  { ph: "R", name: "largestContentfulPaint::Candidate", pid: 1, tid: 1, ts: 1_120_000, args: { frame: "F", data: { navigationId: "N1" } } },
  { ph: "X", name: "RunTask", pid: 1, tid: 1, ts: 1_100_000, dur: 120_000 },
  { ph: "X", name: "RunTask", pid: 1, tid: 1, ts: 1_300_000, dur: 60_000 },
  { ph: "X", name: "RunTask", pid: 1, tid: 1, ts: 1_400_000, dur: 50_000 },
  { ph: "X", name: "RunTask", pid: 1, tid: 9, ts: 1_400_000, dur: 90_000 },
  { ph: "X", name: "RunTask", pid: 2, tid: 2, ts: 1_500_000, dur: 300_000 },
];
const EXPECTED = {
  events: EVENTS.length,
  durationMs: 800,
  loads: [{ url: "http://x/page.html", domContentLoadedMs: 80, loadMs: 90, largestContentfulPaintMs: 120 }],
  longTasks: { count: 2, longestMs: 120, totalMs: 180 },
};

describe("trace summary", () => {
  it("counts long tasks of page renderers' main threads only, and times each load from its navigationStart", async () => {
    expect(summarizeTrace({ traceEvents: EVENTS })).toEqual(EXPECTED);
    const chrome = join(dir, "chrome.json");
    writeFileSync(chrome, `{"traceEvents":[\n${EVENTS.map((e) => JSON.stringify(e)).join(",\n")}],"metadata":\n{"x":{"y":1}}}\n`);
    expect(await summarizeTraceFile(chrome)).toEqual(EXPECTED);
    const compact = join(dir, "compact.json");
    writeFileSync(compact, JSON.stringify({ traceEvents: EVENTS }));
    expect(await summarizeTraceFile(compact)).toEqual(EXPECTED);
    await expect(summarizeTraceFile(compact, 10)).rejects.toThrow(/larger than 10 bytes/);
    expect(() => summarizeTrace({ nope: 1 })).toThrow(/no traceEvents/);
  });
});
