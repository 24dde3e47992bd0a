/**
 * The session host's network log (keeper role): a NetworkRecorder on the host's own session of each page, written to
 * the session's file in batches, so `svc network requests` sees what happened between commands too. It answers what
 * only the host can: a response body (Chrome keeps it on the page's session) and the HAR of `svc har` (atomic, 0600,
 * masked). Events only.
 */
import { NETWORK_LOG_LIMITS, type NetworkEntry, ServiceInvalidArgumentError, describeFsError, networkClearedAt, writeFileAtomic, sessionMasker, sessionNetworkLog } from "../../src/base.js";
import { type CdpSession, type HarBody, NetworkRecorder, buildHar } from "../../src/internal.js";
import { checkOutputPath } from "../core/output-file.js";

/** A request waits QUIET_FLUSH_MS before it reaches the file when nothing was written for a second, else BUSY_FLUSH_MS. */
export const QUIET_FLUSH_MS = 50;
export const BUSY_FLUSH_MS = 1000;

/** A HAR's bounds: requests kept between start and stop (the oldest dropped beyond), and the text bodies put in it. */
export const HAR_LIMITS = { entries: 5000, bodyBytes: 1_000_000, totalBodyBytes: 20_000_000, bodiesMs: 10_000 } as const;

/** The MIME types whose bodies a HAR holds as text. */
const TEXT_TYPES = /^(text\/|application\/(json|javascript|ecmascript|xml|xhtml\+xml|x-www-form-urlencoded|ld\+json|manifest\+json)|image\/svg\+xml)|[+/]json\b|\+xml\b/i;

export interface HarWritten {
  file: string;
  entries: number;
  pages: number;
  bodies: number;
  dropped: number;
  bytes: number;
}

export class HostNetwork {
  readonly recorder: NetworkRecorder;
  private readonly store;
  private timer: NodeJS.Timeout | undefined;
  private lastFlush = 0;
  private dirty = false;
  private closed = false;
  private harStartedAt: string | undefined;

  constructor(private readonly options: { id: string; root: string }) {
    this.store = sessionNetworkLog(options.id, options.root);
    this.recorder = new NetworkRecorder({ limit: NETWORK_LOG_LIMITS.entries, onChange: () => this.schedule() });
  }

  watch(session: CdpSession, target: string): Promise<unknown> {
    return this.recorder.watch(session, target);
  }

  private schedule(): void {
    this.dirty = true;
    if (this.closed) return;
    this.timer ??= setTimeout(() => this.flush(), Date.now() - this.lastFlush > 1000 ? QUIET_FLUSH_MS : BUSY_FLUSH_MS);
  }

  /** Writes the pending batch now; the number of requests in the log. */
  flush(): number {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.recorder.dropBefore(networkClearedAt(this.options.id, this.options.root));
    const entries = this.recorder.entries();
    if (!this.dirty || this.closed) return entries.length;
    this.lastFlush = Date.now();
    this.dirty = false;
    try {
      this.store.write(entries);
    } catch {
      // the log is a record, not a reason to stop watching the pages
    }
    return entries.length;
  }

  /** `svc network request ID --body`: the body Chrome still holds, masked when it is text. */
  async body(id: string): Promise<{ body: string; base64Encoded: boolean; bytes: number }> {
    const b = await this.recorder.body(id);
    return b.base64Encoded ? b : { ...b, body: sessionMasker(this.options.id, this.options.root).text(b.body) };
  }

  /** `svc har start`. */
  harStart(): { startedAt: string } {
    if (this.recorder.capturing) throw new ServiceInvalidArgumentError(`a HAR is already being recorded (since ${this.harStartedAt})`, { hint: "svc har stop FILE writes it" });
    this.recorder.startCapture(HAR_LIMITS.entries);
    this.harStartedAt = new Date().toISOString();
    return { startedAt: this.harStartedAt };
  }

  /** `svc har stop FILE`: the HAR of the requests since `svc har start`, written to FILE (absolute) atomically. */
  async harStop(file: string, creator: { name: string; version: string }): Promise<HarWritten> {
    if (!this.recorder.capturing) throw new ServiceInvalidArgumentError("no HAR is being recorded", { hint: "svc har start, then load pages, then svc har stop FILE" });
    if (!file.startsWith("/")) throw new ServiceInvalidArgumentError("har stop: file: expected an absolute path");
    const path = checkOutputPath(file);
    const { entries, pages, dropped } = this.recorder.stopCapture();
    const startedAt = this.harStartedAt;
    this.harStartedAt = undefined;
    const bodies = await this.textBodies(entries);
    const har = buildHar({
      entries,
      pages,
      creator,
      bodies,
      comment: `recorded by svc from ${startedAt} to ${new Date().toISOString()}${dropped ? `; the ${dropped} oldest requests were dropped (at most ${HAR_LIMITS.entries} are kept)` : ""}`,
    });
    const text = `${JSON.stringify(sessionMasker(this.options.id, this.options.root).deep(har), null, 1)}\n`;
    // 0600: a HAR holds cookies and authorization headers.
    try {
      writeFileAtomic(path, text, 0o600);
    } catch (e) {
      throw new ServiceInvalidArgumentError(`cannot write ${path}: ${describeFsError(e)}`, { cause: e });
    }
    return { file: path, entries: har.log.entries.length, pages: har.log.pages.length, bodies: bodies.size, dropped, bytes: Buffer.byteLength(text) };
  }

  /** The text bodies Chrome still holds for these requests, within HAR_LIMITS (best effort: one it lost is left out). */
  private async textBodies(entries: readonly NetworkEntry[]): Promise<Map<string, HarBody>> {
    const out = new Map<string, HarBody>();
    const deadline = Date.now() + HAR_LIMITS.bodiesMs;
    let total = 0;
    for (const e of entries) {
      if (Date.now() > deadline || total >= HAR_LIMITS.totalBodyBytes) break;
      if (e.state !== "finished" || e.redirectedTo || !e.mimeType || !TEXT_TYPES.test(e.mimeType) || (e.size ?? 0) > HAR_LIMITS.bodyBytes) continue;
      try {
        const b = await this.recorder.body(e.id, HAR_LIMITS.bodyBytes);
        if (b.base64Encoded || total + b.bytes > HAR_LIMITS.totalBodyBytes) continue;
        total += b.bytes;
        out.set(e.id, { text: b.body, base64Encoded: false });
      } catch {
        // gone (another site's page, a closed tab, a full buffer): the entry says its size without the text
      }
    }
    return out;
  }

  /** Chrome is gone: the session is ending and its files go with it, so nothing more is written. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
