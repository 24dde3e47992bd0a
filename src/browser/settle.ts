/**
 * "The page is quiet": no document-affecting network request in flight across any of the page's sessions
 * (main frame and OOPIFs). Long-lived streams (WebSocket, EventSource) and requests that hang for longer
 * than STALL_MS are ignored, otherwise a chat widget or an analytics beacon would hold every action hostage.
 */
import type { CdpSession } from "./cdp/connection.js";
import { sleep } from "../util/abort.js";

const STALL_MS = 2000;
const QUIET_MS = 100;
const IGNORED_TYPES = new Set(["WebSocket", "EventSource", "Media", "Ping", "CSPViolationReport", "Preflight"]);

export class NetworkTracker {
  private readonly inflight = new Map<string, number>();
  private lastActivity = 0;
  private readonly waiters = new Set<() => void>();

  track(session: CdpSession): void {
    session.on("Network.requestWillBeSent", (e) => {
      if (e.type && IGNORED_TYPES.has(e.type)) return;
      if (e.request.url.startsWith("data:")) return;
      this.inflight.set(e.requestId, Date.now());
      this.lastActivity = Date.now();
    });
    const done = (e: { requestId: string }) => {
      if (this.inflight.delete(e.requestId)) {
        this.lastActivity = Date.now();
        this.notify();
      }
    };
    session.on("Network.loadingFinished", done);
    session.on("Network.loadingFailed", done);
    // A request may start in one session and finish in another (an iframe navigating into its own
    // process), so ids are global, and a session that goes away takes nothing with it: the stall
    // timeout covers requests whose end we never see.
  }

  /** Requests still in flight that are not stalled. */
  busy(now = Date.now()): number {
    let n = 0;
    for (const started of this.inflight.values()) if (now - started < STALL_MS) n++;
    return n;
  }

  /**
   * Resolves when nothing has been in flight for QUIET_MS, or at the deadline (settling is best effort:
   * a page that never goes quiet must not fail the action that triggered it). Returns at once if quiet.
   */
  async waitForQuiet(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const now = Date.now();
      if (now >= deadline || signal?.aborted) return;
      if (this.busy(now) === 0) {
        const idleFor = now - this.lastActivity;
        if (idleFor >= QUIET_MS) return;
        await sleep(Math.min(QUIET_MS - idleFor, deadline - now));
        continue;
      }
      await new Promise<void>((resolve) => {
        const finish = () => {
          clearTimeout(timer);
          this.waiters.delete(finish);
          resolve();
        };
        const timer = setTimeout(finish, Math.min(250, deadline - now));
        this.waiters.add(finish);
      });
    }
  }

  private notify(): void {
    const list = [...this.waiters];
    this.waiters.clear();
    for (const w of list) w();
  }
}
