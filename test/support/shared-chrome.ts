/**
 * One Chrome per test worker, shared by the e2e files that do not test launching (ARCHITECTURE.md, Tests): a Service
 * from useService / useModelService / withService attaches with a fresh state and the 1280×720 viewport, and closes
 * its tabs and disconnects when done. A dead Chrome means a launch; so do `launchOwnChrome()` and options that need
 * one.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, inject } from "vitest";
import { CdpConnection } from "../../src/browser/cdp/connection.js";
import { DEFAULT_VIEWPORT } from "../../src/browser/connect.js";
import type { ServiceOptions } from "../../src/options.js";
import { processAlive } from "../../src/util/process.js";

export interface SharedChrome {
  /** svc's DevTools endpoint of that Chrome (`ws+unix:` on a 0600 socket). */
  wsEndpoint: string;
  pid: number;
  /** Origins its pages visited, one a line (written by the globalSetup's watcher); emptied at each reset. */
  originsFile: string;
}

let ownChrome = false;
/** Shared Services attached right now in this file: a second one at once would reset the first's tabs. */
let attached = 0;

/**
 * Opt-out for a file that tests launching or ending Chrome: its helpers launch a Chrome per Service. Called at
 * a file's top; the next file run by the same worker (which shares this module) starts without it.
 */
export function launchOwnChrome(): void {
  ownChrome = true;
  afterAll(() => {
    ownChrome = false;
  });
}

/** Launch options a shared Chrome already has (headless); any other needs a Chrome launched with it. */
function needsLaunch(options: ServiceOptions): boolean {
  const launch = options.localBrowserLaunchOptions ?? {};
  const keys = Object.keys(launch).filter((k) => !(k === "headless" && launch.headless === true));
  return keys.length > 0 || (options.env ?? "LOCAL") !== "LOCAL" || Boolean(options.useAPI);
}

/** This worker's shared Chrome, or undefined when the Service must launch its own. */
function workerChrome(options: ServiceOptions): SharedChrome | undefined {
  if (ownChrome || attached > 0 || needsLaunch(options)) return undefined;
  const slot = Number(process.env.VITEST_POOL_ID);
  const chromes = inject("sharedChromes") as SharedChrome[] | undefined;
  const chrome = Number.isInteger(slot) && slot >= 1 ? chromes?.[slot - 1] : undefined;
  // A test before this one ended it (Browser.close, a force close): this file launches, so it does not fail for that.
  if (chrome && !processAlive(chrome.pid)) {
    console.warn(`shared Chrome of worker ${slot} (pid ${chrome.pid}) is gone; this Service launches its own`);
    return undefined;
  }
  return chrome;
}

const RESET_TIMEOUT_MS = 10_000;

/** One blank tab left, the others closed (waits for Chrome to report each one destroyed). */
async function oneBlankTab(conn: CdpConnection): Promise<string> {
  const root = conn.root;
  await root.send("Target.setDiscoverTargets", { discover: true });
  const { targetId } = (await root.send("Target.createTarget", { url: "about:blank" })) as { targetId: string };
  const { targetInfos } = (await root.send("Target.getTargets", {})) as { targetInfos: Array<{ targetId: string; type: string; url: string }> };
  const others = new Map(targetInfos.filter((t) => t.type === "page" && t.targetId !== targetId).map((t) => [t.targetId, t.url]));
  if (others.size === 0) return targetId;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`shared Chrome: tabs did not close within ${RESET_TIMEOUT_MS} ms: ${[...others.values()].join(", ")}`)), RESET_TIMEOUT_MS);
    root.on("Target.targetDestroyed", (e: { targetId: string }) => {
      others.delete(e.targetId);
      if (others.size === 0) {
        clearTimeout(timer);
        resolve();
      }
    });
    for (const id of [...others.keys()]) void root.send("Target.closeTarget", { targetId: id }).catch(() => others.delete(id));
  });
  return targetId;
}

/** Puts the shared Chrome back to a launched one's state (see the file header). */
async function resetChrome(chrome: SharedChrome): Promise<void> {
  const conn = await CdpConnection.connect(chrome.wsEndpoint);
  try {
    const tab = await oneBlankTab(conn);
    const root = conn.root;
    await root.send("Storage.clearCookies", {});
    await root.send("Browser.resetPermissions", {});
    await root.send("Browser.setDownloadBehavior", { behavior: "default" });
    // Storage and the HTTP cache are cleared through a page (the browser target answers "Internal error").
    const { sessionId } = (await root.send("Target.attachToTarget", { targetId: tab, flatten: true })) as { sessionId: string };
    const page = conn.session(sessionId)!;
    const origins = new Set(readFileSync(chrome.originsFile, "utf8").split("\n").filter(Boolean));
    writeFileSync(chrome.originsFile, "");
    for (const origin of origins) await page.send("Storage.clearDataForOrigin", { origin, storageTypes: "all" });
    await page.send("Network.clearBrowserCache");
    await root.send("Target.detachFromTarget", { sessionId });
  } finally {
    await conn.close();
  }
}

export interface BrowserLease {
  /** The options to construct the Service with (attached to the shared Chrome, or as given). */
  options: ServiceOptions;
  /** Closes the Service the way this lease needs: disconnect from a shared Chrome, force-close a launched one. */
  close(svc: { close(o?: { force?: boolean }): Promise<void> }): Promise<void>;
}

/** Where a helper's Service gets its browser: the worker's shared Chrome (reset first) or its own launch. */
export async function leaseBrowser(options: ServiceOptions): Promise<BrowserLease> {
  const chrome = workerChrome(options);
  if (!chrome) return { options, close: (svc) => svc.close({ force: true }) };
  attached++;
  try {
    await resetChrome(chrome);
  } catch (e) {
    attached--;
    throw e;
  }
  let released = false;
  return {
    options: { ...options, localBrowserLaunchOptions: { headless: true, cdpUrl: chrome.wsEndpoint, viewport: { ...DEFAULT_VIEWPORT } } },
    async close(svc) {
      try {
        await svc.close();
        // The file's pages stop now, not at the next attach (a page that spins would burn CPU meanwhile).
        const conn = await CdpConnection.connect(chrome.wsEndpoint).catch(() => undefined);
        if (conn) await oneBlankTab(conn).finally(() => conn.close());
      } finally {
        if (!released) attached--;
        released = true;
      }
    },
  };
}
