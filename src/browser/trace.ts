/**
 * A browser's Chrome trace (`svc trace start|stop`, MCP `trace_start|trace_stop`), one at a time. Tracing covers
 * every process, so every tab is in it; screenshots need the page's own Tracing domain, so such a trace is held on
 * that tab. The file is cut at TRACE_MAX_SIZE_MB (trace-bound.ts); Chrome's buffer holds twice that, since an event's
 * JSON is larger than its buffer slot. Written atomically.
 */
import { closeSync, openSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { ServiceInvalidArgumentError, ServiceStateError, ServiceTimeoutError } from "../errors.js";
import { TRACE_MAX_SIZE_MB, traceMaxSizeExpected } from "../util/trace-limits.js";
import type { CdpSession } from "./cdp/connection.js";
import { BoundedTraceWriter, type TraceBoundReport } from "./trace-bound.js";

/** What the DevTools Performance panel records (Puppeteer's set, plus `loading` for the largest contentful paint). */
export const DEFAULT_TRACE_CATEGORIES: readonly string[] = [
  "-*",
  "devtools.timeline",
  "v8.execute",
  "disabled-by-default-devtools.timeline",
  "disabled-by-default-devtools.timeline.frame",
  "toplevel",
  "blink.console",
  "blink.user_timing",
  "loading",
  "latencyInfo",
  "disabled-by-default-devtools.timeline.stack",
  "disabled-by-default-v8.cpu_profiler",
];
export const SCREENSHOT_CATEGORY = "disabled-by-default-devtools.screenshot";

/** Chrome's trace buffer at most, in KB (twice the file's bound below that). */
export const TRACE_BUFFER_KB = 200 * 1024;

export { TRACE_MAX_SIZE_MB };

/** A trace's bound in MB as a caller gave it (`field`: how the caller names it), checked: a whole number in range. */
export function checkTraceMaxSize(mb: unknown, field: string): number {
  const { min, max } = TRACE_MAX_SIZE_MB;
  if (typeof mb !== "number" || !Number.isInteger(mb) || mb < min || mb > max) {
    throw new ServiceInvalidArgumentError(`invalid ${field}: ${traceMaxSizeExpected(mb)}`);
  }
  return mb;
}
/** The longest Chrome may take to hand over a stopped trace. */
const COMPLETE_TIMEOUT_MS = 60_000;
const READ_CHUNK = 4 * 1024 * 1024;

export interface TraceStarted {
  categories: string[];
  maxSizeMb: number;
}

/** The file written (`bytes` ≤ maxBytes) and what its bound left out (`boundHit`, `droppedEvents`, `droppedBytes`). */
export interface TraceWritten extends TraceBoundReport {
  path: string;
  /** Chrome's buffer filled: the trace lacks its later events. */
  dataLoss: boolean;
  maxBytes: number;
  startedAt: string;
}

export class BrowserTrace {
  private state: { kind: "idle" } | { kind: "running" | "stopping"; startedAt: string; on: CdpSession; maxBytes: number } = { kind: "idle" };

  /** `pages`: the keeper's session of each page, by target id. */
  constructor(private readonly config: { root: CdpSession; pages: () => Iterable<CdpSession> }) {}

  get running(): boolean {
    return this.state.kind !== "idle";
  }

  /**
   * Starts the trace: on the browser, or with screenshots on the page `target` (else the first page); its file
   * at most `maxSizeMb` MB (TRACE_MAX_SIZE_MB; checked here for every caller).
   */
  async start(categories: readonly string[], screenshotsOf?: { target?: string | undefined }, maxSizeMb: number = TRACE_MAX_SIZE_MB.default): Promise<TraceStarted> {
    const mb = checkTraceMaxSize(maxSizeMb, "maxSizeMb");
    if (this.state.kind !== "idle") throw new ServiceStateError(`a trace is already ${this.state.kind} in this session (since ${this.state.startedAt})`, { hint: "svc trace stop FILE" });
    let on = this.config.root;
    if (screenshotsOf) {
      const pages = [...this.config.pages()].filter((p) => !p.closed);
      const page = pages.find((p) => p.targetId === screenshotsOf.target) ?? pages[0];
      if (!page) throw new ServiceStateError("--screenshots records a tab's frames, and the session has no tab open", { hint: "svc tabs new URL" });
      on = page;
    }
    const startedAt = new Date().toISOString();
    const maxBytes = mb * 1024 * 1024;
    this.state = { kind: "running", startedAt, on, maxBytes };
    const included = categories.filter((c) => !c.startsWith("-"));
    const excluded = categories.filter((c) => c.startsWith("-")).map((c) => c.slice(1));
    try {
      await on.send("Tracing.start", {
        transferMode: "ReturnAsStream",
        streamFormat: "json",
        traceConfig: { recordMode: "recordUntilFull", traceBufferSizeInKb: Math.min(TRACE_BUFFER_KB, 2 * mb * 1024), includedCategories: included, excludedCategories: excluded },
      });
    } catch (e) {
      this.state = { kind: "idle" };
      throw e;
    }
    return { categories: [...categories], maxSizeMb: mb };
  }

  /** Stops the trace and writes it to `path` (absolute; its directory checked by the command). */
  async stop(path: string): Promise<TraceWritten> {
    if (this.state.kind !== "running") {
      throw new ServiceStateError(this.state.kind === "idle" ? "no trace is running in this session" : "the trace is already being stopped", { hint: this.state.kind === "idle" ? "svc trace start" : undefined });
    }
    const { startedAt, on, maxBytes } = this.state;
    if (on.closed) {
      this.state = { kind: "idle" };
      throw new ServiceStateError("the tab the trace recorded screenshots of was closed: its trace is gone", { hint: "svc trace start" });
    }
    this.state = { kind: "stopping", startedAt, on, maxBytes };
    try {
      let timer: NodeJS.Timeout | undefined;
      const complete = on.once("Tracing.tracingComplete");
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new ServiceTimeoutError(`Chrome did not hand over the trace within ${COMPLETE_TIMEOUT_MS / 1000} s`)), COMPLETE_TIMEOUT_MS);
      });
      await on.send("Tracing.end");
      const done = await Promise.race([complete, late]).finally(() => clearTimeout(timer));
      if (!done.stream) throw new ServiceStateError("Chrome ended the trace without a stream");
      const bound = await this.copy(on, done.stream, path, maxBytes);
      return { path, ...bound, dataLoss: !!done.dataLossOccurred, maxBytes, startedAt };
    } finally {
      this.state = { kind: "idle" };
    }
  }

  /**
   * IO.read until the end (what is left out is still read, to be counted), into a temp file beside `path`, cut at
   * `maxBytes`, renamed to it once whole; the stream is closed.
   */
  private async copy(on: CdpSession, stream: string, path: string, maxBytes: number): Promise<TraceBoundReport> {
    const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
    const fd = openSync(temp, "wx", 0o644);
    let closed = false;
    try {
      const writer = new BoundedTraceWriter(fd, maxBytes);
      for (;;) {
        const chunk = await on.send("IO.read", { handle: stream, size: READ_CHUNK });
        const data = chunk.base64Encoded ? Buffer.from(chunk.data, "base64") : Buffer.from(chunk.data, "utf8");
        if (data.length) writer.push(data);
        if (chunk.eof) break;
      }
      const report = writer.end();
      closeSync(fd);
      closed = true;
      renameSync(temp, path);
      return report;
    } finally {
      if (!closed) closeSync(fd);
      rmSync(temp, { force: true });
      await on.send("IO.close", { handle: stream }).catch(() => {});
    }
  }
}
