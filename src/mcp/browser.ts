/**
 * One MCP client's browser: one Service, started on the first tool call that needs it and closed when the
 * client goes; on a shared browser (shared-browser.ts), the Service drives the client's own browser context (or
 * the default one) and ending it ends only that context. It remembers the last snapshot it returned of each tab,
 * so a tool's result can be just what changed.
 */
import { type Page, Service, ServiceInvalidArgumentError, type ServiceOptions, isServiceError } from "../index.js";
import type { SnapshotView, TakenSnapshot } from "../capabilities/index.js";
import { BrowserTrace, ConsoleRecorder, type ElementHandle, NetworkRecorder, PAGE_NETWORK_ENABLE, PageEmulation, PageFetch, PageRefs, PageSnapshots, resolveTarget } from "../internal.js";
import { lineDiff } from "./diff.js";
import type { SharedBrowser } from "./shared-browser.js";

/** A client on a shared browser: the browser, and whether it works in the default context rather than its own. */
export interface SharedPlace {
  browser: SharedBrowser;
  sharedContext: boolean;
}

export type ToolResult = {
  content: ({ type: "text"; text: string } | { type: "image"; data: string; mimeType: string } | { type: "resource"; resource: { uri: string; mimeType: string; blob: string } })[];
  isError?: boolean;
};

export class McpBrowser {
  private svc: Service | undefined;
  private starting: Promise<Service> | undefined;
  /** Each tab's last full snapshot (by target id), the one its next report counts changes from. */
  private readonly last = new Map<string, string>();
  private closed = false;
  /** On a shared browser: ends the client's context once its Service is gone. */
  private release: (() => Promise<void>) | undefined;
  /** Tab numbers: given the first time a tab is seen, from 1, never reused (closing 2 does not make 3 into 2). */
  private readonly tabs = new WeakMap<object, number>();
  private nextTab = 1;

  /** The refs each page's snapshots issued (the Service keeps them here), so a tool can resolve a ref itself. */
  private readonly refState = new Map<string, unknown>();
  /** Each page's last outlines (the base of a delta), shared by the Service's snapshots and the snapshot tool's. */
  private readonly outlines = new Map<string, unknown>();
  private refWrites = 0;
  /** The store the Service's snapshots and the snapshot tool's share: the stamp tells each when the other wrote. */
  private readonly refStore = {
    load: (id: string) => this.refState.get(id),
    save: (id: string, state: unknown) => {
      this.refState.set(id, state);
      this.refWrites++;
    },
    stamp: () => String(this.refWrites),
    loadOutlines: (id: string) => this.outlines.get(id),
    saveOutlines: (id: string, lines: unknown) => void this.outlines.set(id, lines),
  };
  private snapshots = new PageSnapshots(this.refStore);

  /** What the browser's pages logged and threw since it started (the `console` and `errors` tools). */
  pageLog = new ConsoleRecorder();
  /** Every request of the browser's pages since it started (the `network_requests` tool). */
  network = new NetworkRecorder();
  private emulating: Promise<PageEmulation> | undefined;
  private fetching: Promise<PageFetch> | undefined;
  private tracing: BrowserTrace | undefined;

  /** Told when the Service starts and after every tool run (tools-webmcp.ts follows the current tab's WebMCP tools). */
  private readonly activity = new Set<(svc: Service) => void>();

  constructor(
    private readonly options: ServiceOptions,
    private readonly shared?: SharedPlace,
  ) {}

  /** `listener` runs with the Service once it started, and after every tool run while it lives. */
  onActivity(listener: (svc: Service) => void): void {
    this.activity.add(listener);
  }

  private tell(): void {
    if (this.svc) for (const l of [...this.activity]) l(this.svc);
  }

  /** The element a ref of the latest snapshots (or any selector svc accepts) names on `page` (default: the selected tab). */
  async resolve(target: string, on?: Page): Promise<ElementHandle> {
    const page = on ?? (await this.service()).page;
    const state = this.refState.get(page.targetId);
    return resolveTarget(page, target, state === undefined ? undefined : PageRefs.restore(state, `ref map of page ${page.targetId}`));
  }

  /** The tab a tool addresses: number `tab` as the `tabs` tool lists it, else the selected one (the selection never moves). */
  async page(tab?: number): Promise<Page> {
    const svc = await this.service();
    if (tab === undefined) return svc.page;
    const pages = svc.context.pages();
    for (const p of pages) this.tabNumber(p);
    const page = pages.find((p) => this.tabNumber(p) === tab);
    if (!page) throw new ServiceInvalidArgumentError(`tab: no open tab ${tab} (the tabs tool lists them)`);
    return page;
  }

  /** The Service's options: its own Chrome, or its place (context) in the shared one. */
  private async serviceOptions(): Promise<ServiceOptions> {
    const refStore = this.refStore;
    if (!this.shared) return { ...this.options, refStore };
    const place = await this.shared.browser.context(this.shared.sharedContext);
    this.release = place.release;
    return { ...this.options, refStore, localBrowserLaunchOptions: place.launch, tabScope: place.scope };
  }

  /** Ends the Service: its own Chrome, or (shared) only its connection, then its context. */
  private async end(svc: Service | undefined): Promise<void> {
    await svc?.close({ force: !this.shared && !this.attached() }).catch(() => {});
    const release = this.release;
    this.release = undefined;
    await release?.();
  }

  /** The session's Service, initialized (its browser launched on first use). */
  async service(): Promise<Service> {
    if (this.closed) throw new Error("this MCP session is closed");
    if (this.svc) return this.svc;
    this.starting ??= (async () => {
      let svc: Service | undefined;
      try {
        svc = new Service(await this.serviceOptions());
        await svc.init();
      } catch (e) {
        await this.end(svc);
        this.starting = undefined;
        throw e;
      }
      const log = this.pageLog;
      const network = this.network;
      const watch = (p: Page) => {
        void log.watch(p.mainSession, p.targetId).catch(() => {});
        void network.watch(p.mainSession, p.targetId).catch(() => {});
      };
      for (const p of svc.context.pages()) watch(p);
      svc.context.onPage(watch);
      this.svc = svc;
      this.tell();
      return svc;
    })();
    return this.starting;
  }

  /** The browser's emulation (the `emulate` tool), applied to every tab, later ones too, from its first use. */
  emulation(): Promise<PageEmulation> {
    this.emulating ??= (async () => {
      const svc = await this.service();
      const root = svc.context.connection.root;
      const { userAgent } = await root.send("Browser.getVersion");
      const emulation = new PageEmulation({ root, browserUserAgent: userAgent, networkEnable: PAGE_NETWORK_ENABLE, browserContextId: svc.context.browserContextId });
      for (const p of svc.context.pages()) await emulation.track(p.mainSession);
      svc.context.onPage((p) => void emulation.track(p.mainSession).catch(() => {}));
      return emulation;
    })();
    this.emulating.catch(() => (this.emulating = undefined));
    return this.emulating;
  }

  /** The browser's routes (the `route` tool), on every tab, later ones too, from its first use. */
  routes(): Promise<PageFetch> {
    this.fetching ??= (async () => {
      const svc = await this.service();
      const fetch = new PageFetch({});
      for (const p of svc.context.pages()) await fetch.track(p.mainSession);
      svc.context.onPage((p) => void fetch.track(p.mainSession).catch(() => {}));
      return fetch;
    })();
    this.fetching.catch(() => (this.fetching = undefined));
    return this.fetching;
  }

  /** The browser's trace (the `trace_start` / `trace_stop` tools). */
  async trace(): Promise<BrowserTrace> {
    // Chrome traces every renderer of the browser: other clients' pages would be in this client's file.
    if (this.shared) throw new ServiceInvalidArgumentError("trace_start: a trace records the whole Chrome, which this server shares between clients (--shared-browser)");
    const svc = await this.service();
    this.tracing ??= new BrowserTrace({ root: svc.context.connection.root, pages: () => svc.context.pages().map((p) => p.mainSession) });
    return this.tracing;
  }

  /** Its own Chrome, launched showing its window (`svc mcp --headed`). */
  headed(): boolean {
    return !this.shared && !this.attached() && this.options.localBrowserLaunchOptions?.headless === false;
  }

  /** Attached to a browser it did not launch (`svc mcp call` on a live session): closing detaches, Chrome goes on. */
  private attached(): boolean {
    return Boolean(this.options.localBrowserLaunchOptions?.cdpUrl);
  }

  /** The tab's stable number. */
  tabNumber(page: object): number {
    let n = this.tabs.get(page);
    if (n === undefined) {
      n = this.nextTab++;
      this.tabs.set(page, n);
    }
    return n;
  }

  /** A snapshot of `page` through the client's refs; a whole one shown becomes the one its later changes are counted from. */
  async snapshot(page: Page, view: SnapshotView): Promise<TakenSnapshot> {
    const snap = await this.snapshots.take(page, view);
    if (view.shown && !view.interactiveOnly && view.maxTokens === undefined && !view.selector && !view.delta && view.from === undefined) this.last.set(page.targetId, snap.text);
    return snap;
  }

  /** `head`, then `page` (default: the selected tab) now: the whole snapshot, or what changed since its last one when that is shorter. */
  async report(head: string, on?: Page): Promise<ToolResult> {
    const svc = await this.service();
    const target = on ?? svc.page;
    const { text } = await svc.snapshot({ page: target });
    const before = this.last.get(target.targetId);
    this.last.set(target.targetId, text);
    const changes = before === undefined ? undefined : lineDiff(before, text);
    const page = `${target.url()}`;
    const body =
      changes === undefined || changes.length >= text.length
        ? `page ${page}:\n${text}`
        : changes === ""
          ? `page ${page}: no change since the last snapshot`
          : `page ${page}, changes since the last snapshot:\n${changes}`;
    return textResult(`${head}\n${body}`);
  }

  /** Runs a tool body; a failure becomes an MCP tool error whose text starts with svc's error code. */
  async run(fn: () => Promise<ToolResult>): Promise<ToolResult> {
    try {
      return await fn();
    } catch (e) {
      const code = isServiceError(e) ? e.code : "INTERNAL";
      const message = e instanceof Error ? e.message : String(e);
      return { isError: true, content: [{ type: "text", text: `${code}: ${this.svc ? this.svc.secrets.text(message) : message}` }] };
    } finally {
      this.tell();
    }
  }

  /** Closes the browser (on a shared one, the client's context); the next tool call starts a new one (the `close` tool). */
  async restart(): Promise<void> {
    const svc = this.svc ?? (await this.starting?.catch(() => undefined));
    this.svc = undefined;
    this.starting = undefined;
    this.last.clear();
    this.refState.clear();
    this.outlines.clear();
    this.snapshots = new PageSnapshots(this.refStore);
    this.pageLog = new ConsoleRecorder();
    this.network = new NetworkRecorder();
    this.emulating = undefined;
    this.fetching = undefined;
    this.tracing = undefined;
    await this.end(svc);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.end(this.svc ?? (await this.starting?.catch(() => undefined)));
  }
}

export function textResult(text: string): ToolResult {
  return { content: [{ type: "text", text }] };
}
