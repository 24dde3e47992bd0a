/**
 * Shared helpers for e2e tests: a Service per test file (headless Chrome, closed in afterAll; the worker's
 * shared Chrome unless the file opts out, see shared-chrome.ts), reading text in any frame through
 * deepLocator, and polling for async effects instead of sleeping.
 */
import { afterAll, beforeAll } from "vitest";
import { Service } from "../../src/service.js";
import type { ServiceOptions } from "../../src/options.js";
import type { Page } from "../../src/browser/page.js";
import { leaseBrowser, type BrowserLease } from "./shared-chrome.js";
import { QUIET_FEATURES } from "../../src/browser/launch.js";

export const CHROMIUM = process.env.CHROME_PATH ?? "/usr/bin/chromium";
/** Chromium's headless shell (Debian: apt-get install -y chromium-headless-shell): the same engine without Chrome's own layer. */
export const HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell";

/**
 * A Chrome argument that brings back Chrome's own address-bar popups (chrome://omnibox-popup… targets), which
 * svc's launch turns off: the last --disable-features wins. For tests of what a tenant may do to Chrome's own pages.
 */
export const CHROME_OWN_PAGES_BACK = `--disable-features=${QUIET_FEATURES.join(",")}`;

/** A Service with test defaults (headless, short settle timeout); `init()` is left to the caller. */
export function makeService(options: ServiceOptions = {}): Service {
  return new Service({
    verbose: 0,
    domSettleTimeout: 10_000,
    ...options,
    localBrowserLaunchOptions: { headless: true, ...(options.localBrowserLaunchOptions ?? {}) },
  });
}

/**
 * Registers beforeAll/afterAll hooks: the Service is created and initialized before the file's tests and
 * closed after them (its own Chrome ended; the shared one left running, only disconnected). Call at module
 * or describe level; read `.svc` inside tests.
 */
export function useService(options: ServiceOptions = {}): { readonly svc: Service } {
  let svc: Service | undefined;
  let lease: BrowserLease | undefined;
  beforeAll(async () => {
    lease = await leaseBrowser(options);
    svc = makeService(lease.options);
    await svc.init();
  });
  afterAll(async () => {
    if (svc && lease) await lease.close(svc);
  });
  return {
    get svc(): Service {
      if (!svc) throw new Error("useService: the Service is not ready (used outside a test?)");
      return svc;
    },
  };
}

/**
 * Text of an element in any frame: `frames` are CSS selectors of the iframes from the top (each entered
 * with a `>>` hop), `selector` is the element inside the innermost one.
 */
export async function textIn(page: Page, selector: string, frames: string[] = []): Promise<string> {
  return page.deepLocator([...frames, selector].join(" >> ")).textContent();
}

export { type Truthy, waitFor, waitForValue } from "./wait.js";

/** The launched Chrome's pid and profile dir (test-only peek at a private field). */
export function launchedOf(svc: Service): { pid: number; port?: number; socketPath: string; wsEndpoint: string; userDataDir: string; runDir: string } {
  const backend = (svc as unknown as { backend?: { s?: { browser?: { launched?: { pid: number; port?: number; socketPath: string; wsEndpoint: string; userDataDir: string; runDir: string } } } } }).backend;
  const launched = backend?.s?.browser?.launched;
  if (!launched) throw new Error("launchedOf: this Service did not launch a browser");
  return launched;
}

/** Chrome's command line, from /proc. */
export async function cmdlineOf(pid: number): Promise<string[]> {
  const { readFile } = await import("node:fs/promises");
  return (await readFile(`/proc/${pid}/cmdline`, "utf8")).split("\0").filter(Boolean);
}

/** A deterministic Action: `{ selector, description, method, arguments }`. */
export function action(method: string, selector: string, args: string[] = [], description = `${method} ${selector}`) {
  return { selector, description, method, arguments: args };
}
