/**
 * `svc trace start|stop` on a real Chrome: a trace of a page that runs a 120 ms task after its load
 * (long-task.html) is written as the JSON object with traceEvents the Performance panel opens, and the summary
 * computed from it lists the page's load timings and at least that long task; a second start and a stop
 * without a start are one-line errors; a full process reaches the same trace as the host.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { expectOneLine, hostAndFullModes, json, sessionRunners, useCliWorld } from "./helpers.js";

const world = useCliWorld({ session: true });
const { run, ok } = sessionRunners(() => world.sb.env);
const dir = mkdtempSync(join(tmpdir(), "svc-trace-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Summary {
  events: number;
  loads: Array<{ url: string; domContentLoadedMs?: number; loadMs?: number; largestContentfulPaintMs?: number }>;
  longTasks: { count: number; longestMs: number };
}

describe("svc trace", () => {
  it("writes a trace of the session's pages and summarizes its load timings and long tasks", async () => {
    await ok("trace", "start", "--screenshots");
    await ok("goto", world.server.url("long-task.html"));
    await ok("wait", "#big[data-done]");
    const file = join(dir, "f.json");
    const stopped = json<{ file: string; bytes: number; dataLoss: boolean; summary: Summary }>(await ok("--json", "trace", "stop", file));
    expect(stopped.file).toBe(file);
    expect(readdirSync(dir)).toEqual(["f.json"]); // written atomically: no temp file left

    const trace = JSON.parse(readFileSync(file, "utf8")) as { traceEvents: Array<{ name: string; cat?: string }> };
    expect(Array.isArray(trace.traceEvents)).toBe(true);
    expect(stopped.bytes).toBe(readFileSync(file).length);
    expect(trace.traceEvents.some((e) => e.cat?.includes("devtools.screenshot"))).toBe(true);
    expect(stopped.summary.events).toBe(trace.traceEvents.length);

    const load = stopped.summary.loads.find((l) => l.url === world.server.url("long-task.html"));
    expect(load, JSON.stringify(stopped.summary.loads)).toBeDefined();
    expect(load!.domContentLoadedMs).toBeGreaterThan(0);
    expect(load!.loadMs).toBeGreaterThanOrEqual(load!.domContentLoadedMs!);
    expect(load!.largestContentfulPaintMs).toBeGreaterThan(0);
    expect(stopped.summary.longTasks.count).toBeGreaterThanOrEqual(1);
    expect(stopped.summary.longTasks.longestMs).toBeGreaterThanOrEqual(100);
  });

  it("prints the summary as lines", async () => {
    await ok("trace", "start");
    await ok("goto", world.server.url("long-task.html"));
    await ok("wait", "#big[data-done]");
    const out = await ok("trace", "stop", join(dir, "lines.json"));
    expect(out).toMatch(/^wrote .*lines\.json \(\d+ bytes\)$/m);
    expect(out).toMatch(/^load http:\/\/.*long-task\.html: DOMContentLoaded [\d.]+ ms, load [\d.]+ ms, LCP [\d.]+ ms$/m);
    expect(out).toMatch(/^long tasks \(> 50 ms\): [1-9]\d*, longest \d{3,}(\.\d)? ms/m);
  });

  for (const { mode, run: runIn } of hostAndFullModes(() => world.sb.env)) {
    it(`refuses a second start and a stop without a start (${mode})`, async () => {
      const stopWithout = await runIn(["trace", "stop", join(dir, "none.json")], { key: true });
      expect(stopWithout.code).toBe(8);
      expect(expectOneLine(stopWithout.stderr)).toMatch(/no trace is running in this session/);
      expect((await runIn(["trace", "start"], { key: true })).code).toBe(0);
      const again = await runIn(["trace", "start"], { key: true });
      expect(again.code).toBe(8);
      expect(expectOneLine(again.stderr)).toMatch(/a trace is already running in this session/);
      expect((await runIn(["trace", "stop", join(dir, `${mode.length}.json`)], { key: true })).code).toBe(0);
    });
  }

  it("keeps the file within --max-size on a page that never rests, whole JSON, and says what it left out", async () => {
    await ok("goto", world.server.url("forms.html"));
    await ok("trace", "start", "--max-size", "1");
    // Never at rest: an animation, constant logging and user-timing marks of 2 kB each (MBs of trace a second).
    await ok("eval", `(() => { window.svcMarks = 0; const name = "svc-mark-" + "x".repeat(2000);
      (function frame() { document.body.style.opacity = String(0.5 + Math.random() / 2); requestAnimationFrame(frame); })();
      setInterval(() => { for (let i = 0; i < 50; i++) performance.mark(name + i); performance.clearMarks(); console.log("svc-restless", window.svcMarks += 50); }, 4);
      return 1; })()`);
    // Four times the bound in marks alone.
    await ok("wait", "--fn", "window.svcMarks >= 2000");
    const file = join(dir, "bounded.json");
    const stopped = json<{ bytes: number; maxBytes: number; boundHit: boolean; droppedEvents: number; droppedBytes: number; summary: Summary }>(await ok("--json", "trace", "stop", file));
    const size = readFileSync(file).length;
    expect(stopped.maxBytes).toBe(1024 * 1024);
    expect(size).toBe(stopped.bytes);
    expect(size).toBeLessThanOrEqual(stopped.maxBytes);
    expect(size).toBeGreaterThan(stopped.maxBytes - 64 * 1024); // filled up to the bound, not stopped short
    const trace = JSON.parse(readFileSync(file, "utf8")) as { traceEvents: Array<{ name?: string }> };
    expect(trace.traceEvents.length).toBe(stopped.summary.events);
    expect(trace.traceEvents.some((e) => e.name?.startsWith("svc-mark-"))).toBe(true);
    expect(stopped.boundHit).toBe(true);
    expect(stopped.droppedEvents).toBeGreaterThan(0);
    expect(stopped.droppedBytes).toBeGreaterThan(0);
    await ok("eval", "location.reload(), 1");

    // In words: the bound, and how much was left out.
    await ok("trace", "start", "--max-size", "1");
    await ok("eval", `(() => { window.svcMarks = 0; const name = "svc-mark-" + "x".repeat(2000); setInterval(() => { for (let i = 0; i < 50; i++) performance.mark(name + i); performance.clearMarks(); window.svcMarks += 50; }, 4); return 1; })()`);
    await ok("wait", "--fn", "window.svcMarks >= 2000");
    const out = await ok("trace", "stop", join(dir, "bounded-lines.json"));
    expect(out).toMatch(/^wrote .*bounded-lines\.json \(\d+ bytes(; Chrome's buffer filled[^;]*)?; its 1 MB bound was hit: [1-9]\d* later events \([1-9]\d* bytes\) left out\)$/m);
    await ok("eval", "location.reload(), 1");
  });

  it("refuses bad categories and an unwritable file before anything starts", async () => {
    for (const [args, message] of [
      [["trace", "start", "--categories", "a b"], /invalid --categories: "a b" is not a category name/],
      [["trace", "start", "--categories", ","], /invalid --categories: expected 1 to 100/],
      [["trace", "stop", join(dir, "no", "such", "dir.json")], /cannot write .*does not exist/],
      [["trace", "start", "--max-size", "0"], /invalid --max-size: expected a whole number of MB from 1 to 1024, got 0/],
      [["trace", "start", "--max-size", "lots"], /invalid --max-size: expected a whole number of MB from 1 to 1024, got "lots"/],
    ] as const) {
      const r = await run(...args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(expectOneLine(r.stderr)).toMatch(message);
    }
    // Nothing started: a stop still finds no trace.
    expect(expectOneLine((await run("trace", "stop", join(dir, "x.json"))).stderr)).toMatch(/no trace is running/);
  });
});
