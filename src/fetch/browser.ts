/**
 * Rendering in Chrome before conversion, for pages that build themselves with JavaScript: open the URL, wait for load
 * and then until neither network nor DOM moves (bounded), hand back the serialized document. `pageRenderer` uses a
 * page the caller owns; `renderInBrowser` launches a headless Chrome for one URL and always closes it, also on abort.
 */
import type { Page } from "../browser/page.js";
import type { LocalBrowserLaunchOptions } from "../browser/types.js";
import { abortable } from "../util/abort.js";
import { type BrowserRenderer, DEFAULT_FETCH_TIMEOUT_MS, type RenderOptions, type RenderedPage } from "./types.js";
import type { CallOptions } from "../util/abort.js";

/** The DOM must stay unchanged this long to count as rendered. */
const DOM_QUIET_MS = 400;
/** At most this long is spent waiting for quiet after the load event (the rest of the budget is the navigation's). */
const MAX_SETTLE_MS = 10_000;

interface Snapshot {
  html: string;
  contentType: string;
  title: string;
  url: string;
}

/** Resolves once no DOM mutation happened for `quietMs` (or after `maxMs`): runs in the page. */
function domQuiet(arg: { quietMs: number; maxMs: number }): Promise<boolean> {
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (quiet: boolean) => {
      observer.disconnect();
      clearTimeout(timer);
      clearTimeout(cap);
      resolve(quiet);
    };
    const observer = new MutationObserver(() => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(true), arg.quietMs);
    });
    observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    timer = setTimeout(() => finish(true), arg.quietMs);
    const cap = setTimeout(() => finish(false), arg.maxMs);
  });
}

function snapshot(): Snapshot {
  const doctype = document.doctype ? `<!DOCTYPE ${document.doctype.name}>\n` : "";
  return { html: doctype + document.documentElement.outerHTML, contentType: document.contentType, title: document.title, url: location.href };
}

/** A renderer on a page you hold: it navigates that page. */
export function pageRenderer(page: Page): BrowserRenderer {
  return (url: string, options: RenderOptions): Promise<RenderedPage> =>
    abortable(
      (async () => {
        const started = Date.now();
        const nav = await page.goto(url, { waitUntil: "load", timeout: options.timeoutMs });
        // Scripts may fetch data and render after load: wait until the network and the DOM are both quiet.
        const deadline = Date.now() + Math.max(0, Math.min(MAX_SETTLE_MS, options.timeoutMs - (Date.now() - started)));
        for (;;) {
          const left = deadline - Date.now();
          if (left <= 0) break;
          await page.settle(left, options.signal);
          const quiet = await page.evaluate(domQuiet, { quietMs: DOM_QUIET_MS, maxMs: Math.max(1, deadline - Date.now()) });
          if (!quiet || page.network.busy() === 0) break;
        }
        const snap = await page.evaluate(snapshot);
        return { url: snap.url || nav.url, html: snap.html, statusCode: nav.status ?? 200, contentType: snap.contentType || "text/html", ...(snap.title ? { title: snap.title } : {}) };
      })(),
      options.signal,
      `rendering ${url} was aborted`,
    );
}

export interface RenderInBrowserOptions extends CallOptions {
  /** Launch plus render. Default 30000. */
  timeoutMs?: number;
  /** Headless by default. */
  launchOptions?: LocalBrowserLaunchOptions;
}

/** One URL in a headless Chrome launched for it and closed afterwards (also when aborted or failing). */
export async function renderInBrowser(url: string, options: RenderInBrowserOptions = {}): Promise<RenderedPage> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  const { Service } = await import("../service.js");
  const svc = new Service({
    env: "LOCAL",
    verbose: 0,
    disablePino: true,
    logger: () => {},
    localBrowserLaunchOptions: { headless: true, ...(options.launchOptions ?? {}) },
  });
  const started = Date.now();
  try {
    await abortable(svc.init(), options.signal, `rendering ${url} was aborted`);
    const left = Math.max(1, timeoutMs - (Date.now() - started));
    return await pageRenderer(svc.page)(url, { timeoutMs: left, ...(options.signal ? { signal: options.signal } : {}) });
  } finally {
    await svc.close({ force: true }).catch(() => {});
  }
}
