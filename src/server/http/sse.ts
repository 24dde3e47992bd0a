/**
 * Server-sent events of the session API (docs/wire-formats.md "Streaming"): `event:` + `data:`, except for the
 * Stagehand TypeScript client (`x-language: typescript`), whose 3.x parser reads only blocks starting with `data: `.
 * A log event's `message` is the line object, but Stainless clients (`x-stainless-lang`) type it a string: they get
 * the text there and the object as `logLine`.
 */
import { randomUUID } from "node:crypto";
import type { Context } from "hono";
import type { SSEStreamingApi } from "hono/streaming";
import type { LogLine } from "../../index.js";

export type StreamStatus = "starting" | "connected" | "running" | "finished" | "error";

/**
 * Streaming is on when the body says `streamResponse: true` or, when the body does not say, when the
 * header `x-stream-response` is `true`. The body wins when both are present: it is the more specific
 * choice (one request), the header is often a client-wide default.
 */
export function wantsStream(c: Context, bodyFlag: boolean | null | undefined): boolean {
  if (typeof bodyFlag === "boolean") return bodyFlag;
  return (c.req.header("x-stream-response") ?? "").trim().toLowerCase() === "true";
}

/** Whether events carry an `event:` line (see the module comment). */
export function namedEvents(c: Context): boolean {
  const language = (c.req.header("x-language") ?? "").trim().toLowerCase();
  return !(language === "typescript" && c.req.header("x-sdk-version") !== undefined);
}

/** How log events carry their line (see the module comment). */
export type LogForm = "object" | "text";

export function logForm(c: Context): LogForm {
  return c.req.header("x-stainless-lang") !== undefined ? "text" : "object";
}

/**
 * The events of one streamed response, written in call order (log lines arrive synchronously from the
 * library; writes are chained so they never interleave). After `finished` or `error` nothing more is sent.
 */
export class EventStream {
  private chain: Promise<void> = Promise.resolve();
  private done = false;

  constructor(
    private readonly stream: SSEStreamingApi,
    private readonly named: boolean,
    private readonly form: LogForm = "object",
  ) {}

  /** True once the terminal event was queued or the client went away. */
  get ended(): boolean {
    return this.done || this.stream.aborted || this.stream.closed;
  }

  system(status: "starting" | "connected"): Promise<void> {
    return this.send("system", status, { status });
  }

  log(line: LogLine): Promise<void> {
    const data = this.form === "text" ? { status: "running", message: line.message, logLine: line } : { status: "running", message: line };
    return this.send("log", "running", data);
  }

  finished(result: unknown, extra: Record<string, unknown> = {}): Promise<void> {
    const p = this.send("system", "finished", { status: "finished", result, ...extra });
    this.done = true;
    return p;
  }

  /** `code`: the library error's stable code, as JSON error responses carry it. */
  error(message: string, code?: string): Promise<void> {
    const p = this.send("system", "error", { status: "error", error: message, ...(code ? { code } : {}) });
    this.done = true;
    return p;
  }

  /** Resolves when everything queued so far is written (or dropped because the client left). */
  flush(): Promise<void> {
    return this.chain;
  }

  private send(type: "system" | "log", status: StreamStatus, data: Record<string, unknown>): Promise<void> {
    if (this.ended) return this.chain;
    let payload: string;
    try {
      payload = JSON.stringify({ id: randomUUID(), type, data });
    } catch {
      // A value JSON cannot carry (a cycle, a BigInt, nesting past the stack): a log line is dropped; a
      // result becomes the stream's `error`, so the stream still ends with exactly one terminal event.
      if (status !== "finished") return this.chain;
      payload = JSON.stringify({ id: randomUUID(), type, data: { status: "error", error: "the result could not be serialized as JSON" } });
      status = "error";
    }
    const message = this.named ? { event: status, data: payload } : { data: payload };
    // writeSSE swallows write errors (a gone client), so the chain never rejects.
    this.chain = this.chain.then(() => this.stream.writeSSE(message)).catch(() => {});
    return this.chain;
  }
}
