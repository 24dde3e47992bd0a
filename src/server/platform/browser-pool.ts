/**
 * Warm browsers: Chrome's ~0.5–1.5 s start is most of a session start, so the pool keeps `size` Chromes with the
 * default options ready; a session asking for exactly those takes one and a replacement starts. A warm Chrome is not
 * a session: not counted by maxSessions, no key, ends with the pool.
 */
import { launchBrowser, type LaunchedBrowser, type LocalBrowserLaunchOptions } from "../../index.js";
import { processAlive } from "../../util/process.js";

/** After a warm Chrome failed to start (a loaded machine, a bad path), the next try waits this long, doubling to the max. */
const RETRY_MS = { min: 1000, max: 30_000 } as const;

export class BrowserPool {
  private readonly ready: LaunchedBrowser[] = [];
  private readonly starting = new Set<Promise<void>>();
  private closed = false;
  private retryMs: number = RETRY_MS.min;
  private retry: NodeJS.Timeout | undefined;
  private readonly key: string;

  constructor(
    private readonly size: number,
    private readonly options: LocalBrowserLaunchOptions,
    private readonly log: (line: string) => void,
  ) {
    this.key = JSON.stringify(options);
    this.fill();
  }

  /**
   * A warm Chrome launched with exactly `options`, or undefined (the caller launches its own). One still
   * starting is waited for: it is further along than a launch from scratch.
   */
  async take(options: LocalBrowserLaunchOptions): Promise<LaunchedBrowser | undefined> {
    if (this.closed || JSON.stringify(options) !== this.key) return undefined;
    if (!this.ready.length && this.starting.size) await Promise.race(this.starting);
    let browser: LaunchedBrowser | undefined;
    while ((browser = this.ready.shift()) && !processAlive(browser.pid)) void browser.close();
    this.fill();
    return browser;
  }

  /** Ends every warm Chrome, including those still starting. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await Promise.allSettled([...this.starting]);
    await Promise.all(this.ready.splice(0).map((b) => b.close().catch(() => {})));
  }

  private fill(): void {
    while (!this.closed && this.ready.length + this.starting.size < this.size) {
      const start: Promise<void> = launchBrowser(this.options, { kind: "self" })
        .then((b) => {
          this.ready.push(b);
          this.retryMs = RETRY_MS.min;
        })
        .catch((e: unknown) => {
          this.log(`warm browser failed to start: ${e instanceof Error ? e.message : String(e)}; trying again in ${this.retryMs} ms`);
          this.retryLater();
        })
        .finally(() => this.starting.delete(start));
      this.starting.add(start);
    }
  }

  /** The pool fills itself again after a failed start, not only when a session next takes one. */
  private retryLater(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.fill();
    }, this.retryMs);
    this.retry.unref();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MS.max);
  }
}
