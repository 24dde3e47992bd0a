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

  it("refuses bad categories and an unwritable file before anything starts", async () => {
    for (const [args, message] of [
      [["trace", "start", "--categories", "a b"], /invalid --categories: "a b" is not a category name/],
      [["trace", "start", "--categories", ","], /invalid --categories: expected 1 to 100/],
      [["trace", "stop", join(dir, "no", "such", "dir.json")], /cannot write .*does not exist/],
    ] as const) {
      const r = await run(...args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(expectOneLine(r.stderr)).toMatch(message);
    }
    // Nothing started: a stop still finds no trace.
    expect(expectOneLine((await run("trace", "stop", join(dir, "x.json"))).stderr)).toMatch(/no trace is running/);
  });
});
