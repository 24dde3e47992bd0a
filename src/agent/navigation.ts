/**
 * A click that submits a form or follows a link starts a navigation a moment later: Page.settle() can return before the
 * new document's request is sent, and the next step would read the old page. So around each tool the main frame is
 * watched: when it started (or was asked) to load and has not stopped, we wait for it (bounded, abortable) and settle
 * again.
 */
import type { Page } from "../browser/page.js";

export interface NavigationWatch {
  /** Waits for a navigation the tool started to finish loading (at most `timeoutMs`), then settles. */
  finish(timeoutMs: number, signal: AbortSignal): Promise<void>;
  stop(): void;
}

export function watchNavigation(page: Page): NavigationWatch {
  let loading = false;
  let wake: (() => void) | undefined;
  const isMain = (frameId: string) => {
    try {
      return frameId === page.frames.main.id;
    } catch {
      return false;
    }
  };
  const settled = () => {
    loading = false;
    wake?.();
  };
  const session = page.mainSession;
  const offs = [
    session.on("Page.frameRequestedNavigation", (e) => void (isMain(e.frameId) && (loading = true))),
    session.on("Page.frameStartedLoading", (e) => void (isMain(e.frameId) && (loading = true))),
    session.on("Page.frameStoppedLoading", (e) => void (isMain(e.frameId) && settled())),
    // A fragment link asks for a navigation that never loads.
    session.on("Page.navigatedWithinDocument", (e) => void (isMain(e.frameId) && settled())),
  ];
  const stop = () => {
    for (const off of offs) off();
    wake?.();
  };
  return {
    stop,
    async finish(timeoutMs, signal) {
      if (!loading || page.isClosed) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        signal.addEventListener("abort", done, { once: true });
        wake = done;
      });
      if (!signal.aborted && !page.isClosed) await page.settle(undefined, signal).catch(() => {});
    },
  };
}
