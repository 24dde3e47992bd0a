/**
 * The session host's page log (keeper role): the library's ConsoleRecorder on the host's own session of each page,
 * written to the session's files in batches, so `svc console` and `svc errors` see what happened between commands
 * too. Nothing is asked of the page per message; the objects Chrome keeps for console arguments are released after
 * each batch.
 */
import { type CdpSession, ConsoleRecorder } from "../../src/internal.js";
import { type PageLogKind, boundedPageLog, onPageLogFlush, sessionPageLog } from "../../src/base.js";

/**
 * How long a logged message waits before it reaches the session's files: QUIET_FLUSH_MS when nothing was
 * written for a second, else BUSY_FLUSH_MS (a page that keeps logging costs at most two writes a second).
 */
export const QUIET_FLUSH_MS = 50;
export const BUSY_FLUSH_MS = 500;

export class PageLogRecorder {
  private readonly recorder = new ConsoleRecorder({ onChange: (kind) => this.schedule(kind) });
  private readonly dirty = new Set<PageLogKind>();
  private readonly sessions = new Set<CdpSession>();
  private timer: NodeJS.Timeout | undefined;
  private lastFlush = 0;
  private readonly store;

  constructor(options: { id: string; root: string }) {
    this.store = sessionPageLog(options.id, options.root);
    onPageLogFlush(() => this.flush());
  }

  /** Records the page's console and exceptions on the host's session `session` (of target `target`). */
  watch(session: CdpSession, target: string): Promise<unknown> {
    this.sessions.add(session);
    session.on("svc.detached" as never, () => this.sessions.delete(session));
    return this.recorder.watch(session, target);
  }

  private schedule(kind: PageLogKind): void {
    this.dirty.add(kind);
    this.timer ??= setTimeout(() => this.flush(), Date.now() - this.lastFlush > 1000 ? QUIET_FLUSH_MS : BUSY_FLUSH_MS);
  }

  /** Writes the pending batch now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.dirty.size === 0) return;
    this.lastFlush = Date.now();
    for (const kind of this.dirty) {
      try {
        const write = this.store.write as (k: PageLogKind, list: readonly unknown[]) => unknown[];
        this.recorder.replace(kind, write(kind, boundedPageLog(this.recorder.entries(kind) as unknown[])) as never);
      } catch {
        // the log is a record, not a reason to stop watching the pages
      }
    }
    this.dirty.clear();
    for (const s of this.sessions) s.send("Runtime.releaseObjectGroup", { objectGroup: "console" }).catch(() => {});
  }

  /** Chrome is gone: the session is ending and its files go with it, so nothing more is written. */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.dirty.clear();
    onPageLogFlush(undefined);
  }
}
