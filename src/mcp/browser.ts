/**
 * One MCP client's browser: one Service, started on the first tool call that needs it and closed when the
 * client goes. It remembers the last snapshot it returned, so a tool's result can be just what changed.
 */
import { type Page, Service, type ServiceOptions, isServiceError } from "../index.js";
import { BrowserTrace, ConsoleRecorder, type ElementHandle, NetworkRecorder, PAGE_NETWORK_ENABLE, PageEmulation, PageFetch, PageRefs, resolveTarget } from "../internal.js";
import { lineDiff } from "./diff.js";

export type ToolResult = {
  content: ({ type: "text"; text: string } | { type: "image"; data: string; mimeType: string } | { type: "resource"; resource: { uri: string; mimeType: string; blob: string } })[];
  isError?: boolean;
};

export class McpBrowser {
  private svc: Service | undefined;
  private starting: Promise<Service> | undefined;
  private last: string | undefined;
  private closed = false;
  /** Tab numbers: given the first time a tab is seen, from 1, never reused (closing 2 does not make 3 into 2). */
  private readonly tabs = new WeakMap<object, number>();
  private nextTab = 1;

  /** The refs each page's snapshots issued (the Service keeps them here), so a tool can resolve a ref itself. */
  private readonly refState = new Map<string, unknown>();

  /** What the browser's pages logged and threw since it started (the `console` and `errors` tools). */
  pageLog = new ConsoleRecorder();
  /** Every request of the browser's pages since it started (the `network_requests` tool). */
  network = new NetworkRecorder();
  private emulating: Promise<PageEmulation> | undefined;
  private fetching: Promise<PageFetch> | undefined;
  private tracing: BrowserTrace | undefined;

  /** Told when the Service starts and after every tool run (tools-webmcp.ts follows the current tab's WebMCP tools). */
  private readonly activity = new Set<(svc: Service) => void>();

  constructor(private readonly options: ServiceOptions) {}

  /** `listener` runs with the Service once it started, and after every tool run while it lives. */
  onActivity(listener: (svc: Service) => void): void {
    this.activity.add(listener);
  }

  private tell(): void {
    if (this.svc) for (const l of [...this.activity]) l(this.svc);
  }

  /** The element a ref of the latest snapshots (or any selector svc accepts) names on the current page. */
  async resolve(target: string): Promise<ElementHandle> {
    const svc = await this.service();
    const page = svc.page;
    const state = this.refState.get(page.targetId);
    return resolveTarget(page, target, state === undefined ? undefined : PageRefs.restore(state, `ref map of page ${page.targetId}`));
  }

  /** The session's Service, initialized (its browser launched on first use). */
  async service(): Promise<Service> {
    if (this.closed) throw new Error("this MCP session is closed");
    if (this.svc) return this.svc;
    this.starting ??= (async () => {
      const svc = new Service({ ...this.options, refStore: { load: (id) => this.refState.get(id), save: (id, state) => void this.refState.set(id, state) } });
      try {
        await svc.init();
      } catch (e) {
        await svc.close({ force: true }).catch(() => {});
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
      const emulation = new PageEmulation({ root, browserUserAgent: userAgent, networkEnable: PAGE_NETWORK_ENABLE });
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
    const svc = await this.service();
    this.tracing ??= new BrowserTrace({ root: svc.context.connection.root, pages: () => svc.context.pages().map((p) => p.mainSession) });
    return this.tracing;
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

  /** A snapshot; a whole one becomes the one later changes are counted from. */
  async snapshot(options: { interactiveOnly?: boolean; maxTokens?: number; selector?: string; delta?: boolean; from?: string } = {}): Promise<string> {
    const svc = await this.service();
    const { text } = await svc.snapshot(options);
    if (!options.interactiveOnly && options.maxTokens === undefined && !options.selector && !options.delta && options.from === undefined) this.last = text;
    return text;
  }

  /** `head`, then the page now: the whole snapshot, or what changed since the last one when that is shorter. */
  async report(head: string): Promise<ToolResult> {
    const svc = await this.service();
    const { text } = await svc.snapshot();
    const before = this.last;
    this.last = text;
    const changes = before === undefined ? undefined : lineDiff(before, text);
    const page = `${svc.page.url()}`;
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

  /** Closes the browser; the next tool call starts a new one (the `close` tool). */
  async restart(): Promise<void> {
    const svc = this.svc ?? (await this.starting?.catch(() => undefined));
    this.svc = undefined;
    this.starting = undefined;
    this.last = undefined;
    this.refState.clear();
    this.pageLog = new ConsoleRecorder();
    this.network = new NetworkRecorder();
    this.emulating = undefined;
    this.fetching = undefined;
    this.tracing = undefined;
    await svc?.close({ force: !this.attached() }).catch(() => {});
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const svc = this.svc ?? (await this.starting?.catch(() => undefined));
    await svc?.close({ force: !this.attached() }).catch(() => {});
  }
}

export function textResult(text: string): ToolResult {
  return { content: [{ type: "text", text }] };
}
