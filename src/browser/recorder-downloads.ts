/**
 * A recorded browser's downloads (recorder.ts): the recorder's connection points them at one folder and holds them to
 * a byte budget; a download past it is cancelled (or deleted if it finished) and `note` hears why. A shared budget
 * (svc serve's per-key total) is asked through `admit` as the bytes grow. Each client's detach resets Chrome's
 * download behavior, so it is set again on each new tab.
 */
import { rmSync } from "node:fs";
import type { CdpSession } from "./cdp/connection.js";

export interface DownloadBudget {
  dir: string;
  /** Bytes this browser's downloads may take all together. */
  maxBytes: number;
  /**
   * Whether this browser may hold `bytes` of downloads (finished plus in flight): undefined yes, else why
   * not (the download is then cancelled, or deleted when it already finished).
   */
  admit?: ((bytes: number) => string | undefined) | undefined;
}

/** Holds downloads to `budget` over the recorder's browser session (`root`). */
export class DownloadGuard {
  private readonly received = new Map<string, number>();
  private completedBytes = 0;
  private readonly root: CdpSession;
  private readonly dir: string;
  private readonly maxBytes: number;
  private readonly admit: (bytes: number) => string | undefined;
  private readonly note: (method: string, params: Record<string, unknown>) => void;

  constructor(o: { root: CdpSession; budget: DownloadBudget; note: (method: string, params: Record<string, unknown>) => void }) {
    this.root = o.root;
    this.dir = o.budget.dir;
    this.maxBytes = o.budget.maxBytes;
    this.admit = o.budget.admit ?? (() => undefined);
    this.note = o.note;
  }

  /** Why holding `bytes` in all is refused, or undefined. */
  private refusal(bytes: number): string | undefined {
    return bytes > this.maxBytes ? `the downloads would pass ${this.maxBytes} bytes` : this.admit(bytes);
  }

  async start(): Promise<void> {
    await this.apply();
    this.root.on("Browser.downloadProgress", (p) => this.progress(p.guid, p.state, p.receivedBytes, p.totalBytes, p.filePath));
  }

  /** (Re)sets Chrome's default context to save into the folder, with events for this connection. */
  apply(): Promise<unknown> {
    return this.root.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: this.dir, eventsEnabled: true });
  }

  private progress(guid: string, state: string, receivedBytes: number, totalBytes: number, filePath: string | undefined): void {
    if (state === "canceled") {
      this.received.delete(guid);
      return;
    }
    if (state === "completed") {
      this.received.delete(guid);
      const inFlight = [...this.received.values()].reduce((a, b) => a + b, 0);
      const reason = this.refusal(this.completedBytes + receivedBytes + inFlight);
      if (reason) {
        if (filePath) rmSync(filePath, { force: true });
        this.note("svc.downloadRefused", { guid, bytes: receivedBytes, reason });
        return;
      }
      this.completedBytes += receivedBytes;
      return;
    }
    const expected = Math.max(receivedBytes, totalBytes);
    this.received.set(guid, receivedBytes);
    const inFlight = [...this.received.values()].reduce((a, b) => a + b, 0) - receivedBytes + expected;
    const reason = this.refusal(this.completedBytes + inFlight);
    if (reason) {
      this.received.delete(guid);
      this.note("svc.downloadRefused", { guid, bytes: expected, reason });
      void this.cancel(guid);
    }
  }

  /** Cancels a download in whichever browser context it runs. */
  private async cancel(guid: string): Promise<void> {
    const ok = await this.root.send("Browser.cancelDownload", { guid }).then(() => true, () => false);
    if (ok) return;
    const contexts = await this.root.send("Target.getBrowserContexts").catch(() => ({ browserContextIds: [] as string[] }));
    for (const browserContextId of contexts.browserContextIds) await this.root.send("Browser.cancelDownload", { guid, browserContextId }).catch(() => {});
  }
}
