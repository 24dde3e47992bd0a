/**
 * The bounded trace writer (src/browser/trace-bound.ts) on Chrome's stream layouts, fed in pieces that split
 * lines anywhere: the file is valid JSON, within its bound, the trace's first events whole, and what was left
 * out counted.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BoundedTraceWriter } from "../../src/browser/trace-bound.js";

const dir = mkdtempSync(join(tmpdir(), "svc-trace-bound-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const event = (i: number) => JSON.stringify({ name: `e${i}`, ph: "X", ts: i, args: { text: "ü".repeat(40), list: [{ a: 1 }] } });

/** Chrome's layout: one event per line, the last closing the array and opening the metadata (or closing the object). */
function chromeStream(n: number, withMetadata: boolean): string {
  const events = Array.from({ length: n }, (_, i) => event(i));
  const last = withMetadata ? `${events.pop()}],"metadata":\n{"source":"svc-test"}}\n` : `${events.pop()}]}\n`;
  return `{"traceEvents":[\n${events.map((e) => `${e},\n`).join("")}${last}`;
}

function write(stream: string, maxBytes: number, piece: number) {
  const path = join(dir, `t-${maxBytes}-${piece}-${stream.length}.json`);
  const fd = openSync(path, "w");
  const writer = new BoundedTraceWriter(fd, maxBytes);
  const bytes = Buffer.from(stream);
  for (let i = 0; i < bytes.length; i += piece) writer.push(bytes.subarray(i, i + piece));
  const report = writer.end();
  closeSync(fd);
  return { report, text: readFileSync(path, "utf8") };
}

describe("BoundedTraceWriter", () => {
  for (const withMetadata of [true, false]) {
    it(`keeps a trace under its bound whole, metadata too (${withMetadata ? "with" : "without"} metadata)`, () => {
      const stream = chromeStream(50, withMetadata);
      const { report, text } = write(stream, 1_000_000, 7);
      const trace = JSON.parse(text) as { traceEvents: unknown[]; metadata?: unknown };
      expect(trace.traceEvents).toEqual(Array.from({ length: 50 }, (_, i) => JSON.parse(event(i))));
      if (withMetadata) expect(trace.metadata).toEqual({ source: "svc-test" });
      expect(report).toEqual({ bytes: Buffer.byteLength(text), boundHit: false, droppedEvents: 0, droppedBytes: 0 });
    });
  }

  it("cuts a larger one at its bound: the first events, valid JSON, the rest counted", () => {
    const stream = chromeStream(2000, true);
    for (const piece of [1, 333, 65_536]) {
      const { report, text } = write(stream, 20_000, piece);
      expect(Buffer.byteLength(text)).toBe(report.bytes);
      expect(report.bytes).toBeLessThanOrEqual(20_000);
      const trace = JSON.parse(text) as { traceEvents: Array<{ name: string }> };
      const kept = trace.traceEvents.length;
      expect(trace.traceEvents.map((e) => e.name)).toEqual(Array.from({ length: kept }, (_, i) => `e${i}`));
      expect(report.boundHit).toBe(true);
      expect(report.droppedEvents).toBe(2000 - kept);
      expect(report.bytes + report.droppedBytes).toBeGreaterThan(Buffer.byteLength(stream) - 2000 * 3);
      expect(report.bytes).toBeGreaterThan(20_000 - Buffer.byteLength(event(1999)) - 10);
    }
  });
});
