/**
 * All pages of one browser connection. New tabs and popups are auto-attached (paused until set up) and
 * become pages; the most recently opened page becomes the active one, as a user's attention would.
 */
import type { CdpConnection, CdpSession } from "./cdp/connection.js";
import { DialogHandler } from "./dialogs.js";
import { Page, type NavigateHandler, type PageOperations, type PageOptions } from "./page.js";
import { normalizeUrl } from "./page-navigation.js";
import { type StorageState, applyStorageState, collectStorageState } from "./storage-state.js";
import { ServiceInitError, ServiceTimeoutError } from "../errors.js";

export class BrowserContext {
  private readonly byTarget = new Map<string, Page>();
  private readonly order: Page[] = [];
  private active: Page | undefined;
  private readonly pageWaiters = new Map<string, (p: Page) => void>();
  private readonly pending = new Set<Promise<unknown>>();
  private readonly pageListeners = new Set<(p: Page) => void>();

  private constructor(
    readonly connection: CdpConnection,
    private readonly pageOptions: PageOptions,
  ) {}

  static async create(connection: CdpConnection, pageOptions: PageOptions): Promise<BrowserContext> {
    pageOptions.dialogs ??= new DialogHandler();
    const ctx = new BrowserContext(connection, pageOptions);
    const root = connection.root;
    root.on("Target.attachedToTarget", (e) => {
      const session = connection.session(e.sessionId);
      if (!session) return;
      if (e.targetInfo.type !== "page") {
        void session.send("Runtime.runIfWaitingForDebugger").catch(() => {});
        return;
      }
      const p = ctx.addPage(session, e.targetInfo.targetId).catch(() => {});
      ctx.pending.add(p);
      void p.finally(() => ctx.pending.delete(p));
    });
    root.on("Target.detachedFromTarget", (e) => {
      if (e.targetId) ctx.removePage(e.targetId);
    });
    root.on("Target.targetDestroyed", (e) => ctx.removePage(e.targetId));
    await root.send("Target.setDiscoverTargets", { discover: true });
    await root.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
    await ctx.idle();
    if (ctx.order.length === 0) await ctx.newPage();
    return ctx;
  }

  private async addPage(session: CdpSession, targetId: string): Promise<void> {
    if (this.byTarget.has(targetId)) return;
    const page = new Page(session, targetId, this.pageOptions);
    this.byTarget.set(targetId, page);
    await page.initialize();
    this.order.push(page);
    this.active = page;
    this.pageWaiters.get(targetId)?.(page);
    this.pageWaiters.delete(targetId);
    for (const l of this.pageListeners) l(page);
  }

  private removePage(targetId: string): void {
    const page = this.byTarget.get(targetId);
    if (!page) return;
    page.markClosed();
    this.byTarget.delete(targetId);
    const i = this.order.indexOf(page);
    if (i >= 0) this.order.splice(i, 1);
    if (this.active === page) this.active = this.order[this.order.length - 1];
  }

  /** Waits for pages that are still being set up (a popup that just opened). */
  async idle(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  /** Sends every page's goto() to `handler` (a session API's navigate); undefined restores CDP navigation. */
  routeNavigation(handler: NavigateHandler | undefined): void {
    this.pageOptions.navigate = handler;
  }

  /** Runs every page's act/extract/observe (the older generation's page methods) on `ops`. */
  provideOperations(ops: PageOperations | undefined): void {
    this.pageOptions.serviceOps = ops;
  }

  /** Answers the JavaScript dialogs of every page (see dialogs.ts). */
  get dialogs(): DialogHandler {
    return this.pageOptions.dialogs!;
  }

  onPage(listener: (p: Page) => void): () => void {
    this.pageListeners.add(listener);
    return () => this.pageListeners.delete(listener);
  }

  pages(): Page[] {
    return this.order.filter((p) => !p.isClosed);
  }

  activePage(): Page | undefined {
    if (this.active?.isClosed) this.active = this.pages().at(-1);
    return this.active;
  }

  setActivePage(page: Page): void {
    if (!this.order.includes(page) || page.isClosed) throw new ServiceInitError("setActivePage: that page is closed or belongs to another browser");
    this.active = page;
    void this.connection.root.send("Target.activateTarget", { targetId: page.targetId }).catch(() => {});
  }

  /** Cookies (session-only ones too) and the web storage of the origins open in its tabs (storage-state.ts). */
  storageState(): Promise<StorageState> {
    return collectStorageState(this);
  }

  /** Applies a state from storageState(): cookies to the browser, web storage through the active tab. */
  addState(state: StorageState): Promise<void> {
    return applyStorageState(this, state);
  }

  async newPage(url = "about:blank"): Promise<Page> {
    // A URL goto() would refuse opens no tab either.
    if (url !== "about:blank") normalizeUrl(url, this.pageOptions.urlPolicy);
    const { targetId } = await this.connection.root.send("Target.createTarget", { url: "about:blank" });
    const page =
      this.byTarget.get(targetId) && this.order.includes(this.byTarget.get(targetId)!)
        ? this.byTarget.get(targetId)!
        : await new Promise<Page>((resolve, reject) => {
            const timer = setTimeout(() => reject(new ServiceTimeoutError("new page did not attach within 10 s")), 10_000);
            this.pageWaiters.set(targetId, (p) => {
              clearTimeout(timer);
              resolve(p);
            });
          });
    this.active = page;
    if (url !== "about:blank") await page.goto(url);
    return page;
  }
}
