/**
 * All pages of one browser connection. New tabs and popups are auto-attached (paused until set up) and
 * become pages; the most recently opened page becomes the active one, as a user's attention would.
 */
import type { CdpConnection, CdpSession } from "./cdp/connection.js";
import { DialogHandler } from "./dialogs.js";
import { Page, type NavigateHandler, type PageOperations, type PageOptions } from "./page.js";
import { normalizeUrl } from "./page-navigation.js";
import { type StorageState, applyStorageState, collectStorageState } from "./storage-state.js";
import { type TabScope, releaseTab } from "./tab-scope.js";
import { ServiceInitError, ServiceTimeoutError } from "../errors.js";

export class BrowserContext {
  private readonly byTarget = new Map<string, Page>();
  private readonly order: Page[] = [];
  private active: Page | undefined;
  private readonly pageWaiters = new Map<string, (p: Page) => void>();
  private readonly pending = new Set<Promise<unknown>>();
  private readonly pageListeners = new Set<(p: Page) => void>();
  /** With a scope: tabs out of it that attached while this context created one, decided once its id is known. */
  private creating = 0;
  private readonly undecided = new Map<string, { session: CdpSession; sessionId: string; waiting: boolean }>();

  private constructor(
    readonly connection: CdpConnection,
    private readonly pageOptions: PageOptions,
    private readonly scope: TabScope | undefined,
  ) {}

  /** `scope`: drive only the tabs in it (a user's own Chrome); none: every tab of the browser. */
  static async create(connection: CdpConnection, pageOptions: PageOptions, scope?: TabScope): Promise<BrowserContext> {
    pageOptions.dialogs ??= new DialogHandler();
    const ctx = new BrowserContext(connection, pageOptions, scope);
    const root = connection.root;
    root.on("Target.attachedToTarget", (e) => {
      const session = connection.session(e.sessionId);
      if (!session) return;
      if (e.targetInfo.type !== "page") {
        void session.send("Runtime.runIfWaitingForDebugger").catch(() => {});
        return;
      }
      const { targetId, openerId, browserContextId } = e.targetInfo;
      if (scope && !scope.owns(targetId, openerId, browserContextId)) {
        const held = { session, sessionId: e.sessionId, waiting: e.waitingForDebugger };
        // Perhaps the tab this context is creating (Chrome may report it before it answers createTarget).
        if (ctx.creating > 0) ctx.undecided.set(targetId, held);
        else releaseTab(root, session, e.sessionId, e.waitingForDebugger);
        return;
      }
      ctx.attach(session, targetId);
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

  private attach(session: CdpSession, targetId: string): void {
    const p = this.addPage(session, targetId).catch(() => {});
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  /** After a create in scope: the created tab joins, every other tab that attached meanwhile is released. */
  private decide(created: string | undefined): void {
    if (--this.creating > 0) return;
    for (const [targetId, held] of this.undecided) {
      if (targetId === created) this.attach(held.session, targetId);
      else releaseTab(this.connection.root, held.session, held.sessionId, held.waiting);
    }
    this.undecided.clear();
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

  /** The CDP browser context this client's tabs are in, when it drives one (a shared Chrome); else the default one. */
  get browserContextId(): string | undefined {
    return this.scope?.browserContextId;
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

  /** A new tab; in a scope, in a window of its own when the scope has none yet (a user's windows stay theirs). */
  private async createTarget(): Promise<string> {
    if (!this.scope) return (await this.connection.root.send("Target.createTarget", { url: "about:blank" })).targetId;
    this.creating++;
    let created: string | undefined;
    try {
      const where = this.scope.browserContextId ? { browserContextId: this.scope.browserContextId } : { newWindow: this.pages().length === 0 };
      created = (await this.connection.root.send("Target.createTarget", { url: "about:blank", ...where })).targetId;
      this.scope.adopt(created);
      return created;
    } finally {
      this.decide(created);
    }
  }

  async newPage(url = "about:blank"): Promise<Page> {
    // A URL goto() would refuse opens no tab either.
    if (url !== "about:blank") normalizeUrl(url, this.pageOptions.urlPolicy);
    const targetId = await this.createTarget();
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
