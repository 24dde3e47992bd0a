/**
 * One entry for every way to get a browser: launch a local one, or attach to any CDP endpoint (`cdpUrl`:
 * a running Chrome, a remote grid, a cloud session). All end as one CdpConnection + BrowserContext.
 */
import { resolve } from "node:path";
import { CdpConnection } from "./cdp/connection.js";
import { BrowserContext } from "./context.js";
import { DialogHandler, type DialogPolicy } from "./dialogs.js";
import { DownloadWatcher } from "./downloads.js";
import { browserWsEndpoint, launchBrowser, type LaunchedBrowser, type Lifeline } from "./launch.js";
import type { LocalBrowserLaunchOptions } from "./types.js";
import { ServiceInitError } from "../errors.js";
import { processAlive } from "../util/process.js";
import type { UrlPolicy } from "../util/url-policy.js";
import type { TabScope } from "./tab-scope.js";

export const DEFAULT_VIEWPORT = { width: 1280, height: 720 } as const;

/**
 * The size the pages of a browser opened with these options get: the caller's, else, for a headless Chrome svc
 * launches, DEFAULT_VIEWPORT: headless Chrome's own default (800×600 window, ~780×437 viewport) hides the
 * layout most sites show on a laptop. A headed window, or a Chrome svc attaches to, keeps its own size.
 */
export function pageViewport(options: Pick<LocalBrowserLaunchOptions, "viewport" | "headless" | "cdpUrl">): { width: number; height: number } | undefined {
  if (options.viewport) return options.viewport;
  return (options.headless ?? true) && !options.cdpUrl ? { ...DEFAULT_VIEWPORT } : undefined;
}

export interface BrowserHandle {
  readonly connection: CdpConnection;
  readonly context: BrowserContext;
  /** Set when svc launched this Chrome (and so may end it). */
  readonly launched: LaunchedBrowser | undefined;
  readonly wsEndpoint: string;
  /** Set with `downloadsPath`: records this connection's downloads and reports the finished ones. */
  readonly downloads: DownloadWatcher | undefined;
  /** Ends a launched browser; for an attached one, only disconnects. */
  close(): Promise<void>;
  disconnect(): Promise<void>;
}

async function resolveCdpUrl(cdpUrl: string): Promise<string> {
  // A ws+unix: URL is the endpoint of a Chrome svc started (a CLI session's, launch.ts).
  if (/^(wss?|ws\+unix):\/\//.test(cdpUrl)) return cdpUrl;
  const u = new URL(cdpUrl);
  return browserWsEndpoint(Number(u.port || (u.protocol === "https:" ? 443 : 80)), u.hostname);
}

export async function openBrowser(options: LocalBrowserLaunchOptions & { domSettleTimeout: number; urlPolicy?: UrlPolicy | undefined; dialogPolicy?: DialogPolicy | undefined; tabScope?: TabScope | undefined }, lifeline: Lifeline = { kind: "parent" }): Promise<BrowserHandle> {
  let launched: LaunchedBrowser | undefined;
  let wsEndpoint: string;
  if (options.cdpUrl) {
    try {
      wsEndpoint = await resolveCdpUrl(options.cdpUrl);
    } catch (e) {
      throw new ServiceInitError(`cannot reach a browser at ${options.cdpUrl}`, { hint: "is the browser still running?", cause: e });
    }
  } else {
    launched = await launchBrowser(options, lifeline);
    wsEndpoint = launched.wsEndpoint;
  }
  let connection: CdpConnection;
  try {
    connection = await CdpConnection.connect(wsEndpoint, { protocolTimeout: options.protocolTimeout });
  } catch (e) {
    await launched?.close();
    throw new ServiceInitError(`cannot connect to the browser at ${wsEndpoint}`, { hint: "is the browser still running?", cause: e });
  }
  const proxy = options.proxy;
  const viewport = pageViewport(options);
  let context: BrowserContext;
  let downloads: DownloadWatcher | undefined;
  try {
    context = await BrowserContext.create(connection, {
      domSettleTimeout: options.domSettleTimeout,
      ...(options.urlPolicy ? { urlPolicy: options.urlPolicy } : {}),
      dialogs: new DialogHandler(options.dialogPolicy),
      ...(viewport ? { viewport } : {}),
      ...(options.ignoreHTTPSErrors ? { ignoreHTTPSErrors: true } : {}),
      ...(proxy?.username ? { proxyCredentials: { username: proxy.username, password: proxy.password ?? "" } } : {}),
    }, options.tabScope);
    if (options.downloadsPath) downloads = await DownloadWatcher.start(connection.root, resolve(options.downloadsPath));
  } catch (e) {
    await connection.close();
    await launched?.close();
    throw e instanceof ServiceInitError ? e : new ServiceInitError(`browser setup failed: ${(e as Error).message}`, { cause: e });
  }
  return {
    connection,
    context,
    launched,
    wsEndpoint,
    downloads,
    async close() {
      // Browser.close lets Chrome flush and exit at once; the signal path in launched.close() is the backstop.
      if (launched && !connection.closed) {
        const sent = await Promise.race([connection.root.send("Browser.close").then(() => true, () => false), new Promise<boolean>((r) => setTimeout(() => r(false), 1000))]);
        // Browser.close answers ~200 ms before Chrome has flushed the profile (localStorage, cookies) and
        // exited; a signal in between loses that data in a userDataDir that is kept. Wait for the exit.
        for (let i = 0; sent && i < 100 && processAlive(launched.pid); i++) await new Promise((r) => setTimeout(r, 20));
      }
      await connection.close();
      await launched?.close();
    },
    async disconnect() {
      await connection.close();
    },
  };
}

