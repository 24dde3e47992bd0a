/**
 * A trace file kept within its bound (trace.ts). Chrome streams one event per line; events are written while they
 * fit, and once one does not, it and all later ones are left out (counted) and the object is closed, with the
 * metadata if it fits. The file stays valid JSON the Performance panel opens, at most `maxBytes` long.
 */
import { writeSync } from "node:fs";
import { ServiceStateError } from "../errors.js";

const HEADER = '{"traceEvents":[';
const METADATA_TAIL = '],"metadata":';
const NEWLINE = 0x0a;
/** The shortest close, kept free while events are written. */
const CLOSE = Buffer.from("\n]}");
const SEPARATOR = Buffer.from(",\n");
const NEWLINE_BUF = Buffer.from("\n");
/** Written in batches of about this size (an event is a few hundred bytes). */
const BATCH_BYTES = 1024 * 1024;

/** What a bounded copy left out. */
export interface TraceBoundReport {
  bytes: number;
  /** The bound was reached: later events were left out. */
  boundHit: boolean;
  droppedEvents: number;
  /** The JSON bytes of what was left out (events, and the metadata when it did not fit). */
  droppedBytes: number;
}

/** What a stop says of its bound when it was hit (the CLI's and the MCP tool's words), else nothing. */
export function boundWords(r: TraceBoundReport & { maxBytes: number }): string | undefined {
  if (!r.boundHit) return undefined;
  return `its ${r.maxBytes / (1024 * 1024)} MB bound was hit: ${r.droppedEvents} later events (${r.droppedBytes} bytes) left out`;
}

export class BoundedTraceWriter {
  private state: "header" | "events" | "tail" = "header";
  private rest: Buffer = Buffer.alloc(0);
  private readonly tail: Buffer[] = [];
  private tailBytes = 0;
  private batch: Buffer[] = [];
  private batchBytes = 0;
  private written = 0;
  private events = 0;
  private hit = false;
  private droppedEvents = 0;
  private droppedBytes = 0;

  constructor(
    private readonly fd: number,
    private readonly maxBytes: number,
  ) {}

  /** The next piece of Chrome's stream. */
  push(data: Buffer): void {
    const buf = this.rest.length ? Buffer.concat([this.rest, data]) : data;
    let start = 0;
    for (let nl = buf.indexOf(NEWLINE, start); nl >= 0; nl = buf.indexOf(NEWLINE, start)) {
      this.line(buf.subarray(start, nl + 1));
      start = nl + 1;
    }
    this.rest = Buffer.from(buf.subarray(start));
  }

  /** The stream ended: closes the object and writes what is left; what it left out. */
  end(): TraceBoundReport {
    if (this.rest.length) this.line(this.rest);
    if (this.state === "header") throw new ServiceStateError("Chrome's trace stream was empty");
    // The metadata and Chrome's closing when they fit (whole), else the shortest close.
    const fits = this.tail.length > 0 && this.written + this.batchBytes + NEWLINE_BUF.length + this.tailBytes <= this.maxBytes;
    if (fits) this.out(Buffer.concat([NEWLINE_BUF, ...this.tail]));
    else {
      if (this.tailBytes > 0) this.hit = true;
      this.droppedBytes += this.tailBytes;
      this.out(CLOSE);
    }
    this.flush();
    return { bytes: this.written, boundHit: this.hit, droppedEvents: this.droppedEvents, droppedBytes: this.droppedBytes };
  }

  private line(raw: Buffer): void {
    if (this.state === "tail") return this.keepTail(raw);
    // latin1: one character per byte, so lengths below are byte offsets into `raw`.
    const text = raw.toString("latin1").replace(/[\r\n\t ]+$/, "");
    if (this.state === "header") {
      if (text.trim() === "") return;
      if (text.trim() !== HEADER) throw new ServiceStateError("Chrome's trace stream is not one event per line: it cannot be cut at its bound");
      this.out(Buffer.from(HEADER));
      this.state = "events";
      return;
    }
    if (!text.startsWith("{")) {
      if (text !== "") (this.state = "tail"), this.keepTail(raw);
      return;
    }
    // `{…},`, or the last one: `{…}],"metadata":`, `{…}]}`, or `{…}` with the close on the next line.
    const closes = [",", METADATA_TAIL, "]}"].find((end) => text.endsWith(end)) ?? "";
    this.event(raw.subarray(0, text.length - closes.length));
    if (closes && closes !== ",") {
      this.state = "tail";
      this.keepTail(Buffer.from(`${closes}\n`));
    }
  }

  private event(json: Buffer): void {
    const sep = this.events > 0 ? SEPARATOR : NEWLINE_BUF;
    if (this.hit || this.written + this.batchBytes + sep.length + json.length + CLOSE.length > this.maxBytes) {
      this.hit = true;
      this.droppedEvents++;
      this.droppedBytes += json.length;
      return;
    }
    this.out(sep);
    this.out(Buffer.from(json));
    this.events++;
  }

  /** What follows the events (the metadata and Chrome's closing), kept while it could still fit. */
  private keepTail(raw: Buffer): void {
    this.tailBytes += raw.length;
    if (this.tailBytes <= this.maxBytes) this.tail.push(Buffer.from(raw));
    else this.tail.length = 0;
  }

  private out(data: Buffer): void {
    this.batch.push(data);
    this.batchBytes += data.length;
    if (this.batchBytes >= BATCH_BYTES) this.flush();
  }

  private flush(): void {
    if (!this.batchBytes) return;
    writeSync(this.fd, Buffer.concat(this.batch));
    this.written += this.batchBytes;
    this.batch = [];
    this.batchBytes = 0;
  }
}
