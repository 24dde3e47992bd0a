/**
 * The requests of the pages a DevTools client watches, from the Network domain on its own session of each page: one
 * entry per request (per redirect hop), held in memory (the newest `limit`), with the page loads a HAR groups them
 * by. Events only, nothing asked of the page per request; a body is fetched when wanted. It writes nothing: the
 * session host saves the list (commands/host/network.ts).
 */
import type { Protocol } from "devtools-protocol";
import { ServiceInvalidArgumentError, ServiceStateError } from "../errors.js";
import { NETWORK_LOG_LIMITS, type NetworkEntry, type ResourceTiming } from "../store/network-log.js";
import type { CdpSession } from "./cdp/connection.js";

/** A main-frame document load: what a HAR calls a page. */
export interface NetworkPage {
  /** `p3`. */
  id: string;
  target: string;
  url: string;
  startedAt: string;
  /** Chrome's monotonic clock (seconds) at its document request. */
  start: number;
  /** Milliseconds from `start` to DOMContentLoaded and to load. */
  onContentLoad?: number;
  onLoad?: number;
}

export interface NetworkBody {
  /** The body as text, or base64 when `base64Encoded` (a binary body). */
  body: string;
  base64Encoded: boolean;
  /** Its length in bytes (decoded). */
  bytes: number;
}

export interface NetworkRecorderOptions {
  /** How many requests it keeps (the newest; default NETWORK_LOG_LIMITS.entries). */
  limit?: number;
  /** Called (synchronously, keep it cheap) whenever an entry was added or changed. */
  onChange?: () => void;
}

/**
 * The most pages it remembers, and requests whose hops and extra info it keeps matching (a finished one too:
 * Chrome may send its extra-info headers after loadingFinished).
 */
const PAGES_KEPT = 200;
const OPEN_KEPT = 2000;

/** The largest body `body()` hands out (characters as Chrome gives them: text, or base64 for binary). */
export const NETWORK_BODY_LIMIT = 10_000_000;

/** What Chrome keeps of the bodies for a recorder's session: 50 MB in all, 10 MB for one (a larger one is not kept). */
const CHROME_BUFFER = { total: 50_000_000, resource: NETWORK_BODY_LIMIT } as const;
/** How the recorder enables the Network domain (an emulation on the same session enables it the same way). */
export const NETWORK_ENABLE_PARAMS = { maxTotalBufferSize: CHROME_BUFFER.total, maxResourceBufferSize: CHROME_BUFFER.resource };

/** What one Chrome request id (all its hops) gathered: the hops, and the extra-info headers of each, in order. */
interface Open {
  hops: NetworkEntry[];
  requestExtra: Array<Record<string, string>>;
  responseExtra: Array<Record<string, string>>;
}

const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** Chrome's headers object, bounded (names and values clipped, at most NETWORK_LOG_LIMITS.headers of them). */
function headers(h: Protocol.Network.Headers | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  let n = 0;
  for (const [k, v] of Object.entries(h ?? {})) {
    if (n++ >= NETWORK_LOG_LIMITS.headers) break;
    out[clip(k, 200)] = clip(String(v), NETWORK_LOG_LIMITS.headerChars);
  }
  return out;
}

export class NetworkRecorder {
  private readonly list: NetworkEntry[] = [];
  private readonly open = new Map<string, Open>();
  private readonly sessions = new Map<string, CdpSession>();
  private readonly pages = new Map<string, NetworkPage>();
  private readonly current = new Map<string, NetworkPage>();
  private readonly limit: number;
  private readonly onChange: () => void;
  private captured: NetworkEntry[] | undefined;
  private capturedDropped = 0;
  private captureLimit = 0;
  private counter = 0;
  private pageCounter = 0;

  constructor(options: NetworkRecorderOptions = {}) {
    this.limit = Math.max(1, options.limit ?? NETWORK_LOG_LIMITS.entries);
    this.onChange = options.onChange ?? (() => {});
  }

  /**
   * Records the requests of target `target` on `session` (the page's own session of this client). Resolves
   * once Network is enabled; the events are listened to before that, so a page paused before its first
   * document may be resumed as soon as the call is sent.
   */
  watch(session: CdpSession, target: string): Promise<unknown> {
    this.sessions.set(target, session);
    session.on("svc.detached" as never, () => {
      if (this.sessions.get(target) === session) this.sessions.delete(target);
    });
    session.on("Network.requestWillBeSent", (e) => this.started(target, e));
    session.on("Network.requestWillBeSentExtraInfo", (e) => this.extra(target, e.requestId, "requestExtra", e.headers));
    session.on("Network.responseReceivedExtraInfo", (e) => this.extra(target, e.requestId, "responseExtra", e.headers));
    session.on("Network.responseReceived", (e) => {
      const hop = this.hop(target, e.requestId);
      if (!hop) return;
      this.respond(hop, e.response);
      if (e.type) hop.type = e.type;
      this.onChange();
    });
    session.on("Network.dataReceived", (e) => {
      const hop = this.hop(target, e.requestId);
      if (!hop) return;
      hop.size = (hop.size ?? 0) + e.dataLength;
      hop.bodyBytes = (hop.bodyBytes ?? 0) + e.encodedDataLength;
    });
    session.on("Network.loadingFinished", (e) => {
      const hop = this.hop(target, e.requestId);
      if (!hop) return;
      hop.state = "finished";
      hop.end = e.timestamp;
      hop.encodedDataLength = e.encodedDataLength;
      this.onChange();
    });
    session.on("Network.loadingFailed", (e) => {
      const hop = this.hop(target, e.requestId);
      if (!hop) return;
      hop.state = "failed";
      hop.end = e.timestamp;
      hop.failure = clip(e.errorText, 500);
      if (e.canceled) hop.canceled = true;
      if (e.blockedReason) hop.blockedReason = e.blockedReason;
      if (e.type) hop.type = e.type;
      this.onChange();
    });
    session.on("Page.domContentEventFired", (e) => this.pageEvent(target, "onContentLoad", e.timestamp));
    session.on("Page.loadEventFired", (e) => this.pageEvent(target, "onLoad", e.timestamp));
    // Chrome keeps the bodies for this session within these bounds (the oldest dropped first).
    return session.send("Network.enable", NETWORK_ENABLE_PARAMS);
  }

  /** The requests held, oldest first (live objects: pending ones change). */
  entries(): readonly NetworkEntry[] {
    return this.list;
  }

  find(id: string): NetworkEntry | undefined {
    return this.list.find((e) => e.id === id) ?? this.captured?.find((e) => e.id === id);
  }

  page(id: string): NetworkPage | undefined {
    return this.pages.get(id);
  }

  /** Forgets every request held (a capture in progress keeps its own). */
  clear(): void {
    this.list.length = 0;
  }

  /** Forgets the requests it received before `received` (epoch ms): a clear another process asked for. */
  dropBefore(received: number): void {
    const i = this.list.findIndex((e) => e.received > received);
    this.list.splice(0, i < 0 ? this.list.length : i);
  }

  /** Keeps every request from now on (up to `limit`, the oldest dropped then) until stopCapture(): a HAR's requests. */
  startCapture(limit: number): void {
    this.captured = [];
    this.capturedDropped = 0;
    this.captureLimit = limit;
  }

  get capturing(): boolean {
    return this.captured !== undefined;
  }

  /** The requests since startCapture() and the pages they belong to; capture ends. */
  stopCapture(): { entries: NetworkEntry[]; pages: NetworkPage[]; dropped: number } {
    const entries = this.captured ?? [];
    const dropped = this.capturedDropped;
    this.captured = undefined;
    const ids = new Set(entries.map((e) => e.page).filter((p): p is string => p !== undefined));
    const pages = [...ids].map((id) => this.pages.get(id)).filter((p): p is NetworkPage => p !== undefined);
    return { entries, pages, dropped };
  }

  /** The response body of request `id`, as Chrome still holds it (at most `max` characters). */
  async body(id: string, max = NETWORK_BODY_LIMIT): Promise<NetworkBody> {
    const e = this.find(id);
    if (!e) throw new ServiceInvalidArgumentError(`no request ${JSON.stringify(id.slice(0, 40))} in the network log`, { hint: "svc network requests lists them" });
    if (e.redirectedTo) throw new ServiceStateError(`request ${id} was redirected (to ${e.redirectedTo}): a redirect has no body`);
    if (e.state === "failed") throw new ServiceStateError(`request ${id} failed (${e.failure ?? "no answer"}): it has no body`);
    if (e.state === "pending") throw new ServiceStateError(`request ${id} is still loading: its body is not complete yet`);
    const session = this.sessions.get(e.target);
    if (!session || session.closed) throw new ServiceStateError(`Chrome no longer has the body of ${id}: its tab is closed`);
    let r: Protocol.Network.GetResponseBodyResponse;
    try {
      r = await session.send("Network.getResponseBody", { requestId: e.requestId });
    } catch (err) {
      throw new ServiceStateError(`Chrome no longer has the body of ${id} (${(err as Error).message.replace(/^Network\.getResponseBody: /, "")})`, {
        hint: "Chrome drops bodies when the page navigates to another site or its buffer is full; ask again right after the request",
        cause: err,
      });
    }
    if (r.body.length > max) throw new ServiceStateError(`the body of ${id} is ${r.body.length} characters${r.base64Encoded ? " of base64" : ""}, more than the ${max} svc hands out`);
    const bytes = r.base64Encoded ? Buffer.byteLength(r.body, "base64") : Buffer.byteLength(r.body);
    return { body: r.body, base64Encoded: r.base64Encoded, bytes };
  }

  /** Kept in insertion order, the oldest forgotten past OPEN_KEPT. */
  private remember(key: string, open: Open): void {
    this.open.set(key, open);
    if (this.open.size > OPEN_KEPT) this.open.delete(this.open.keys().next().value!);
  }

  private hop(target: string, requestId: string): NetworkEntry | undefined {
    return this.open.get(`${target}:${requestId}`)?.hops.at(-1);
  }

  private started(target: string, e: Protocol.Network.RequestWillBeSentEvent): void {
    const key = `${target}:${e.requestId}`;
    let open = this.open.get(key);
    const previous = open?.hops.at(-1);
    const id = `r${++this.counter}`;
    if (previous && e.redirectResponse) {
      this.respond(previous, e.redirectResponse);
      previous.state = "finished";
      previous.end = e.timestamp;
      previous.redirectedTo = id;
    }
    if (!open || (!e.redirectResponse && open.hops.length > 0)) {
      open = { hops: [], requestExtra: [], responseExtra: [] };
      this.remember(key, open);
    }
    // The main frame's document (a page target's main frame id is the target id): a new page.
    if (e.type === "Document" && e.frameId === target && e.loaderId === e.requestId && !e.redirectResponse) {
      const page: NetworkPage = { id: `p${++this.pageCounter}`, target, url: clip(e.request.url, NETWORK_LOG_LIMITS.urlChars), startedAt: new Date(e.wallTime * 1000).toISOString(), start: e.timestamp };
      this.pages.set(page.id, page);
      this.current.set(target, page);
      if (this.pages.size > PAGES_KEPT) this.pages.delete(this.pages.keys().next().value!);
    }
    const request = e.request;
    const postData = request.postData ?? request.postDataEntries?.map((x) => (x.bytes ? Buffer.from(x.bytes, "base64").toString("utf8") : "")).join("");
    const entry: NetworkEntry = {
      id,
      received: Date.now(),
      target,
      requestId: e.requestId,
      ...(e.frameId ? { frameId: e.frameId } : {}),
      ...(this.current.get(target) ? { page: this.current.get(target)!.id } : {}),
      method: request.method,
      url: clip(request.url + (request.urlFragment ?? ""), NETWORK_LOG_LIMITS.urlChars),
      type: e.type ?? "Other",
      state: "pending",
      startedAt: new Date(e.wallTime * 1000).toISOString(),
      start: e.timestamp,
      requestHeaders: headers(request.headers),
      ...(postData !== undefined ? { postData: clip(postData, NETWORK_LOG_LIMITS.postDataChars) } : {}),
      ...((postData !== undefined && postData.length > NETWORK_LOG_LIMITS.postDataChars) || (request.hasPostData && postData === undefined) ? { postDataClipped: true } : {}),
    };
    open.hops.push(entry);
    this.apply(open, open.hops.length - 1);
    this.list.push(entry);
    // At most `limit` in memory at every moment: the oldest goes as the newest comes (the byte bound is the store's).
    if (this.list.length > this.limit) this.list.splice(0, this.list.length - this.limit);
    if (this.captured) {
      this.captured.push(entry);
      if (this.captured.length > this.captureLimit) (this.captured.shift(), this.capturedDropped++);
    }
    this.onChange();
  }

  /** Extra-info headers (with cookies, as sent and received) go to the hop of the same rank. */
  private extra(target: string, requestId: string, kind: "requestExtra" | "responseExtra", h: Protocol.Network.Headers): void {
    const key = `${target}:${requestId}`;
    let open = this.open.get(key);
    if (!open) {
      // Before its requestWillBeSent: kept for the first hop.
      open = { hops: [], requestExtra: [], responseExtra: [] };
      this.remember(key, open);
    }
    open[kind].push(headers(h));
    this.apply(open, open[kind].length - 1);
    this.onChange();
  }

  private apply(open: Open, i: number): void {
    const hop = open.hops[i];
    if (!hop) return;
    const req = open.requestExtra[i];
    if (req) hop.requestHeaders = req;
    const res = open.responseExtra[i];
    if (res && hop.status !== undefined) hop.responseHeaders = res;
  }

  private respond(hop: NetworkEntry, r: Protocol.Network.Response): void {
    hop.status = r.status;
    hop.statusText = clip(r.statusText, 200);
    if (r.protocol) hop.protocol = r.protocol;
    hop.mimeType = clip(r.mimeType, 200);
    hop.responseHeaders = headers(r.headers);
    if (r.remoteIPAddress) hop.remoteAddress = r.remoteIPAddress.replace(/^\[|\]$/g, "");
    if (r.remotePort) hop.remotePort = r.remotePort;
    if (r.connectionId) hop.connectionId = r.connectionId;
    if (r.timing) hop.timing = { ...r.timing } as ResourceTiming;
    const from = r.fromServiceWorker ? "service-worker" : r.fromDiskCache ? "disk" : r.fromPrefetchCache ? "prefetch" : undefined;
    if (from) hop.fromCache = from;
    // The extra info's headers (with Set-Cookie) when they came first.
    const open = this.open.get(`${hop.target}:${hop.requestId}`);
    const i = open?.hops.indexOf(hop) ?? -1;
    if (open && i >= 0 && open.responseExtra[i]) hop.responseHeaders = open.responseExtra[i];
  }

  private pageEvent(target: string, field: "onContentLoad" | "onLoad", timestamp: number): void {
    const page = this.current.get(target);
    if (page && page[field] === undefined) page[field] = Math.max(0, Math.round((timestamp - page.start) * 1000));
  }
}
