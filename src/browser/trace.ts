/**
 * A browser's Chrome trace (`svc trace start|stop`, held by the CLI session host on its keeper's root session,
 * commands/host-keeper.ts; the MCP `trace_start`/`trace_stop` tools on their Service's): Chrome's tracing covers
 * every process of the browser, so every tab is in it. Screenshots (the filmstrip) are recorded only by a page's own Tracing domain, so a
 * trace with them is held on that tab's keeper session instead (closing that tab ends it). One trace at a time; Chrome's buffer is bounded (recordUntilFull: once full, later
 * events are dropped and the stop says so). Stopped, the trace is streamed (ReturnAsStream, IO.read) into the
 * file, written atomically (a temp file beside it, then renamed): the JSON object with `traceEvents` the
 * DevTools Performance panel opens. A trace still running when the session ends ends with its Chrome.
 */
import { closeSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { ServiceStateError, ServiceTimeoutError } from "../errors.js";
import type { CdpSession } from "./cdp/connection.js";

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

/** Chrome's trace buffer, in KB: the bound on what one trace holds. */
export const TRACE_BUFFER_KB = 200 * 1024;
/** The longest Chrome may take to hand over a stopped trace. */
const COMPLETE_TIMEOUT_MS = 60_000;
const READ_CHUNK = 4 * 1024 * 1024;

export interface TraceStarted {
  categories: string[];
}

export interface TraceWritten {
  path: string;
  bytes: number;
  /** Chrome's buffer filled: the trace lacks its later events. */
  dataLoss: boolean;
  startedAt: string;
}

export class BrowserTrace {
  private state: { kind: "idle" } | { kind: "running" | "stopping"; startedAt: string; on: CdpSession } = { kind: "idle" };

  /** `pages`: the keeper's session of each page, by target id. */
  constructor(private readonly config: { root: CdpSession; pages: () => Iterable<CdpSession> }) {}

  get running(): boolean {
    return this.state.kind !== "idle";
  }

  /** Starts the trace: on the browser, or with screenshots on the page `target` (else the first page). */
  async start(categories: readonly string[], screenshotsOf?: { target?: string | undefined }): Promise<TraceStarted> {
    if (this.state.kind !== "idle") throw new ServiceStateError(`a trace is already ${this.state.kind} in this session (since ${this.state.startedAt})`, { hint: "svc trace stop FILE" });
    let on = this.config.root;
    if (screenshotsOf) {
      const pages = [...this.config.pages()].filter((p) => !p.closed);
      const page = pages.find((p) => p.targetId === screenshotsOf.target) ?? pages[0];
      if (!page) throw new ServiceStateError("--screenshots records a tab's frames, and the session has no tab open", { hint: "svc tabs new URL" });
      on = page;
    }
    const startedAt = new Date().toISOString();
    this.state = { kind: "running", startedAt, on };
    const included = categories.filter((c) => !c.startsWith("-"));
    const excluded = categories.filter((c) => c.startsWith("-")).map((c) => c.slice(1));
    try {
      await on.send("Tracing.start", {
        transferMode: "ReturnAsStream",
        streamFormat: "json",
        traceConfig: { recordMode: "recordUntilFull", traceBufferSizeInKb: TRACE_BUFFER_KB, includedCategories: included, excludedCategories: excluded },
      });
    } catch (e) {
      this.state = { kind: "idle" };
      throw e;
    }
    return { categories: [...categories] };
  }

  /** Stops the trace and writes it to `path` (absolute; its directory checked by the command). */
  async stop(path: string): Promise<TraceWritten> {
    if (this.state.kind !== "running") {
      throw new ServiceStateError(this.state.kind === "idle" ? "no trace is running in this session" : "the trace is already being stopped", { hint: this.state.kind === "idle" ? "svc trace start" : undefined });
    }
    const { startedAt, on } = this.state;
    if (on.closed) {
      this.state = { kind: "idle" };
      throw new ServiceStateError("the tab the trace recorded screenshots of was closed: its trace is gone", { hint: "svc trace start" });
    }
    this.state = { kind: "stopping", startedAt, on };
    try {
      let timer: NodeJS.Timeout | undefined;
      const complete = on.once("Tracing.tracingComplete");
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new ServiceTimeoutError(`Chrome did not hand over the trace within ${COMPLETE_TIMEOUT_MS / 1000} s`)), COMPLETE_TIMEOUT_MS);
      });
      await on.send("Tracing.end");
      const done = await Promise.race([complete, late]).finally(() => clearTimeout(timer));
      if (!done.stream) throw new ServiceStateError("Chrome ended the trace without a stream");
      const bytes = await this.copy(on, done.stream, path);
      return { path, bytes, dataLoss: !!done.dataLossOccurred, startedAt };
    } finally {
      this.state = { kind: "idle" };
    }
  }

  /** IO.read until the end, into a temp file beside `path`, renamed to it once whole; the stream is closed. */
  private async copy(on: CdpSession, stream: string, path: string): Promise<number> {
    const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
    const fd = openSync(temp, "wx", 0o644);
    let bytes = 0;
    let closed = false;
    try {
      for (;;) {
        const chunk = await on.send("IO.read", { handle: stream, size: READ_CHUNK });
        const data = chunk.base64Encoded ? Buffer.from(chunk.data, "base64") : Buffer.from(chunk.data, "utf8");
        if (data.length) writeSync(fd, data);
        bytes += data.length;
        if (chunk.eof) break;
      }
      closeSync(fd);
      closed = true;
      renameSync(temp, path);
      return bytes;
    } finally {
      if (!closed) closeSync(fd);
      rmSync(temp, { force: true });
      await on.send("IO.close", { handle: stream }).catch(() => {});
    }
  }
}
