/**
 * A bounded list of what a session's recorder keeps: at most `maxEntries` entries and `maxBytes` of JSON. Past
 * either, `keep: "oldest"` drops the oldest (logs: the newest matter most) and `keep: "first"` takes no more (a
 * recording: incremental rrweb events mean nothing without the snapshot before them). Either way it counts what it
 * dropped.
 */

/** The SDK's SessionLog (@browserbasehq/sdk resources/sessions/logs.d.ts). */
export interface SessionLog {
  method: string;
  pageId: number;
  sessionId: string;
  frameId?: string;
  loaderId?: string;
  request?: { params: Record<string, unknown>; rawBody: string; timestamp?: number };
  response?: { rawBody: string; result: Record<string, unknown>; timestamp?: number };
  timestamp?: number;
}

/** Logs: the newest 5,000 events or 2 MiB per session. */
export const LOG_LIMITS = { maxEntries: 5_000, maxBytes: 2 * 1024 * 1024, keep: "oldest" } as const;
/** Recordings: the first 50,000 rrweb events or 16 MiB per session. */
export const RECORDING_LIMITS = { maxEntries: 50_000, maxBytes: 16 * 1024 * 1024, keep: "first" } as const;
/** Longest string kept in a logged event's parameters (console arguments, URLs …). */
export const MAX_LOGGED_STRING = 2_000;

export interface Limits {
  maxEntries: number;
  maxBytes: number;
  keep: "oldest" | "first";
}

export class BoundedList<T> {
  private readonly items: { item: T; bytes: number }[] = [];
  private start = 0;
  private total = 0;
  /** Entries dropped (or not taken) because of the bounds. */
  dropped = 0;

  constructor(private readonly limits: Limits) {}

  /** Adds `item` (whose JSON is `bytes` long); false when it was not taken. */
  push(item: T, bytes: number): boolean {
    if (bytes > this.limits.maxBytes) {
      this.dropped++;
      return false;
    }
    if (this.limits.keep === "first" && (this.size >= this.limits.maxEntries || this.total + bytes > this.limits.maxBytes)) {
      this.dropped++;
      return false;
    }
    this.items.push({ item, bytes });
    this.total += bytes;
    while (this.size > this.limits.maxEntries || this.total > this.limits.maxBytes) {
      this.total -= this.items[this.start]!.bytes;
      this.start++;
      this.dropped++;
    }
    // Compacts now and then, so dropped entries do not stay referenced.
    if (this.start > 1024 && this.start * 2 > this.items.length) {
      this.items.splice(0, this.start);
      this.start = 0;
    }
    return true;
  }

  get size(): number {
    return this.items.length - this.start;
  }

  get bytes(): number {
    return this.total;
  }

  list(): T[] {
    return this.items.slice(this.start).map((e) => e.item);
  }

  /** Frees the entries (the list stays usable, empty, with its dropped count). */
  clear(): void {
    this.dropped += this.size;
    this.items.length = 0;
    this.start = 0;
    this.total = 0;
  }
}

/** `value` with every string longer than `max` cut (and marked), arrays past 100 items cut, depth past 8 replaced. */
export function clipDeep(value: unknown, max = MAX_LOGGED_STRING, depth = 0): unknown {
  if (typeof value === "string") return value.length > max ? `${value.slice(0, max)}…[${value.length - max} more characters]` : value;
  if (value === null || typeof value !== "object") return value;
  if (depth >= 8) return "[nested too deeply]";
  if (Array.isArray(value)) return value.slice(0, 100).map((v) => clipDeep(v, max, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = clipDeep(v, max, depth + 1);
  return out;
}

/** A log entry for CDP event `method` with `params` (already reduced to what is kept), heard on page `pageId`. */
export function eventEntry(sessionId: string, pageId: number, method: string, params: Record<string, unknown>, ids: { frameId?: string | undefined; loaderId?: string | undefined } = {}): { entry: SessionLog; bytes: number } {
  const timestamp = Date.now();
  const clipped = clipDeep(params) as Record<string, unknown>;
  const rawBody = JSON.stringify({ method, params: clipped });
  const entry: SessionLog = {
    method,
    pageId,
    sessionId,
    ...(ids.frameId ? { frameId: ids.frameId } : {}),
    ...(ids.loaderId ? { loaderId: ids.loaderId } : {}),
    request: { params: clipped, rawBody, timestamp },
    timestamp,
  };
  // The entry's JSON holds the parameters twice (params and rawBody), plus the small fields.
  return { entry, bytes: rawBody.length * 2 + 200 };
}
