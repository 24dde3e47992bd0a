/**
 * `svc mcp --http --shared-browser`: one Chrome for every client, launched on first need and held by this process
 * through its DevTools pipe, so it ends with the server, kill -9 included. Each client gets a browser context of
 * its own unless it shares the default one; a client that ends closes only its own.
 */
import { type LaunchedBrowser, type LocalBrowserLaunchOptions, launchBrowser } from "../index.js";
import { CdpConnection, type TabScope, contextScope, createIsolatedContext, defaultContextId, disposeContext, pageViewport } from "../internal.js";

/** Where one client's Service attaches, the tabs it drives, and what ends its context. */
export interface ClientContext {
  launch: LocalBrowserLaunchOptions;
  scope: TabScope;
  release(): Promise<void>;
}

interface Chrome {
  launched: LaunchedBrowser;
  connection: CdpConnection;
}

export class SharedBrowser {
  private chrome: Promise<Chrome> | undefined;
  private closed = false;

  constructor(private readonly launch: LocalBrowserLaunchOptions) {}

  /** The Chrome, launched on first use (and again if it went away); clients asking at once share one launch. */
  private async running(): Promise<Chrome> {
    if (this.closed) throw new Error("the MCP server is closing");
    const chrome = (this.chrome ??= this.start());
    const c = await chrome;
    if (!c.connection.closed) return c;
    if (this.chrome === chrome) {
      void c.launched.close().catch(() => {});
      this.chrome = this.start();
    }
    return this.chrome!;
  }

  private start(): Promise<Chrome> {
    const chrome = (async () => {
      const launched = await launchBrowser(this.launch, { kind: "self" });
      try {
        return { launched, connection: await CdpConnection.connect(launched.wsEndpoint) };
      } catch (e) {
        await launched.close();
        throw e;
      }
    })();
    chrome.catch(() => {
      if (this.chrome === chrome) this.chrome = undefined;
    });
    return chrome;
  }

  /** A client's place in the Chrome: a new isolated context, or (`shared`) the default one. */
  async context(shared: boolean): Promise<ClientContext> {
    const { launched, connection } = await this.running();
    const viewport = pageViewport(this.launch);
    const launch = { cdpUrl: launched.wsEndpoint, ...(viewport ? { viewport } : {}) };
    if (shared) return { launch, scope: contextScope(await defaultContextId(connection.root)), release: async () => {} };
    const id = await createIsolatedContext(connection.root);
    return { launch, scope: contextScope(id), release: () => disposeContext(connection.root, id).catch(() => {}) };
  }

  /** Ends the Chrome (the server stops). */
  async close(): Promise<void> {
    this.closed = true;
    const chrome = await this.chrome?.catch(() => undefined);
    await chrome?.connection.close().catch(() => {});
    await chrome?.launched.close();
  }
}
