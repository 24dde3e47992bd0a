/**
 * A tab. Owns its main CDP session, the sessions of its out-of-process iframes, its frame tree and its
 * network tracker. Navigation (its URL rules and waits: page-navigation.ts), inspection and input live here;
 * element work goes through Locator.
 */
import { type CdpSession, isDocumentGone } from "./cdp/connection.js";
import type { DialogHandler } from "./dialogs.js";
import { FrameTree } from "./frames.js";
import { focusedIsPassword } from "./password-input.js";
import { Input } from "./input.js";
import { Locator } from "./locator.js";
import { type Capture, type CaptureOptions, type Picture, type ScreenshotOptions, takeScreenshot } from "./screenshot.js";
import { pageFunction } from "./selector.js";
import { NetworkTracker } from "./settle.js";
import { PageWebMcp } from "./webmcp.js";
import { within } from "../util/abort.js";
import { SerialLock } from "../util/serial.js";
import { committedMainUrl, leaveUnanswering, lifecycleWaiter, navigationWithin, normalizeUrl } from "./page-navigation.js";
import type { UrlPolicy } from "../util/url-policy.js";
import type { Viewport, WaitUntil } from "./types.js";
import { ServiceEvalError, ServiceNavigationError, ServiceNotInitializedError, ServiceTimeoutError } from "../errors.js";

export interface PageOptions {
  viewport?: Viewport;
  ignoreHTTPSErrors?: boolean;
  proxyCredentials?: { username: string; password: string };
  domSettleTimeout: number;
  /** What goto() may open (util/url-policy.ts; default "any"). */
  urlPolicy?: UrlPolicy | undefined;
  /** Set by BrowserContext.routeNavigation: goto() is served elsewhere (a session API's navigate). */
  navigate?: NavigateHandler | undefined;
  /** Answers the JavaScript dialogs of every session of this page (see dialogs.ts). */
  dialogs?: DialogHandler | undefined;
  /** Set by BrowserContext.provideOperations: the Service behind page.act/extract/observe. */
  serviceOps?: PageOperations | undefined;
}

/** The Service's act/extract/observe, run on a given page (the older generation's page methods, docs/wire-formats.md "Library operations"). */
export interface PageOperations {
  act(page: Page, input: unknown, options: unknown): Promise<unknown>;
  observe(page: Page, instruction: unknown, options: unknown): Promise<unknown>;
  extract(page: Page, args: unknown[]): Promise<unknown>;
}

export type NavigateHandler = (page: Page, url: string, options: GotoOptions) => Promise<{ url: string; status: number | null }>;

export interface NavigationInfo {
  requestedUrl: string;
  url: string;
  status: number | null;
}

export interface GotoOptions {
  waitUntil?: WaitUntil;
  timeout?: number;
  referer?: string;
}

const NAV_TIMEOUT = 30_000;
/** How often one goto starts its navigation again because a dialog of the page being left blocked it. */
const MAX_NAVIGATION_RESTARTS = 3;
/** How a page enables the Network domain on its sessions (an emulation on them re-enables it the same way). */
export const PAGE_NETWORK_ENABLE = { maxPostDataSize: 0 };

export class Page {
  readonly frames = new FrameTree();
  readonly network = new NetworkTracker();
  readonly input: Input;
  /** The tools the page registers through WebMCP (webmcp.ts). */
  readonly webmcp = new PageWebMcp(this.frames);
  private readonly attaching = new Set<Promise<void>>();
  private closedFlag = false;
  /** The fingerprint of this tab's last screenshot (screenshot.ts), for capture({ ifChanged }). */
  private lastScreenshot: string | undefined;
  private readonly navigationListeners = new Set<(info: NavigationInfo) => void>();
  private readonly passwordListeners = new Set<(text: string) => void>();
  /** One operation at a time on this page: goto and the Service's act/extract/observe take turns. */
  readonly operations = new SerialLock();

  /** @internal created by BrowserContext */
  constructor(
    readonly mainSession: CdpSession,
    readonly targetId: string,
    private readonly options: PageOptions,
  ) {
    this.input = new Input(mainSession, (text) => this.notePasswordText(text));
    mainSession.on("svc.detached" as never, () => (this.closedFlag = true));
  }

  get isClosed(): boolean {
    return this.closedFlag || this.mainSession.closed;
  }

  get domSettleTimeout(): number {
    return this.options.domSettleTimeout;
  }

  /** @internal enable domains on the main session (the target may be paused waiting for us). */
  async initialize(): Promise<void> {
    await this.attachSession(this.mainSession, true);
  }

  private async attachSession(session: CdpSession, isMain: boolean): Promise<void> {
    this.options.dialogs?.watch(session);
    this.frames.track(session, isMain);
    this.network.track(session);
    this.webmcp.track(session);
    session.on("Target.attachedToTarget", (e) => {
      const child = session.connection.session(e.sessionId);
      if (!child) return;
      if (e.targetInfo.type !== "iframe") {
        void child.send("Runtime.runIfWaitingForDebugger").catch(() => {});
        return;
      }
      this.frames.adopt(e.targetInfo.targetId, child);
      const p = this.attachSession(child, false).catch(() => {});
      this.attaching.add(p);
      void p.finally(() => this.attaching.delete(p));
    });
    const tree = session.send("Page.getFrameTree");
    const setup: Array<Promise<unknown>> = [
      session.send("Page.enable"),
      session.send("Page.setLifecycleEventsEnabled", { enabled: true }),
      session.send("Runtime.enable"),
      session.send("Network.enable", PAGE_NETWORK_ENABLE),
      session.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }),
    ];
    if (this.options.ignoreHTTPSErrors) setup.push(session.send("Security.setIgnoreCertificateErrors", { ignore: true }));
    if (isMain && this.options.viewport) {
      setup.push(session.send("Emulation.setDeviceMetricsOverride", { ...this.options.viewport, deviceScaleFactor: 1, mobile: false }));
    }
    if (this.options.proxyCredentials) setup.push(this.enableProxyAuth(session, this.options.proxyCredentials));
    // A tab opened with noopener (target=_blank) is paused before it has a renderer, and renderer-side
    // commands (getFrameTree, Page.enable…) answer only once it runs: resume without awaiting them.
    const ready = Promise.all([...setup, session.send("Runtime.runIfWaitingForDebugger")]);
    ready.catch(() => {}); // observed below; not unhandled if getFrameTree fails first
    const { frameTree } = await tree;
    this.frames.seed(session, frameTree, isMain);
    await ready;
  }

  private async enableProxyAuth(session: CdpSession, creds: { username: string; password: string }): Promise<void> {
    session.on("Fetch.requestPaused", (e) => void session.send("Fetch.continueRequest", { requestId: e.requestId }).catch(() => {}));
    session.on("Fetch.authRequired", (e) => {
      const response = e.authChallenge.source === "Proxy" ? "ProvideCredentials" : "Default";
      void session.send("Fetch.continueWithAuth", { requestId: e.requestId, authChallengeResponse: { response, ...creds } }).catch(() => {});
    });
    await session.send("Fetch.enable", { handleAuthRequests: true });
  }

  // ——— navigation ———

  /** Navigations and svc's operations on this page run one at a time (see SerialLock); page.evaluate does not queue. */
  async goto(rawUrl: string, options: GotoOptions = {}): Promise<{ url: string; status: number | null }> {
    return this.operations.run(() => this.navigate(rawUrl, options));
  }

  private async navigate(rawUrl: string, options: GotoOptions): Promise<{ url: string; status: number | null }> {
    const url = normalizeUrl(rawUrl, this.options.urlPolicy);
    const routed = this.options.navigate;
    if (routed) {
      const result = await routed(this, url, options);
      const info = { requestedUrl: url, url: result.url, status: result.status };
      for (const l of this.navigationListeners) l(info);
      return result;
    }
    const main = this.frames.main;
    const timeout = options.timeout ?? NAV_TIMEOUT;
    const deadline = Date.now() + timeout;
    let status: number | null = null;
    const offResponse = this.mainSession.on("Network.responseReceived", (e) => {
      if (e.type === "Document" && e.frameId === main.id) status = e.response.status;
    });
    const params = { url, ...(options.referer ? { referrer: options.referer } : {}) };
    // The page being left may ask (confirm in a loop) after this navigation started: Chrome then answers
    // neither the dialog nor the page's commands, and only a new navigation closes it (dialogs.ts onStuck).
    let restarts = 0;
    const offStuck = this.options.dialogs?.onStuck((session) => {
      if (session === this.mainSession && restarts++ < MAX_NAVIGATION_RESTARTS) void this.mainSession.send("Page.navigate", params).catch(() => {});
    });
    const waiter = lifecycleWaiter(this.mainSession, () => this.frames.main.id, options.waitUntil ?? "load", timeout, url);
    const work = async () => {
      const res = await this.mainSession.send("Page.navigate", params);
      if (res.errorText) {
        waiter.cancel();
        throw new ServiceNavigationError(`cannot open ${url}: ${res.errorText}`, { hint: "check the address and that the site is reachable" });
      }
      if (res.loaderId) await waiter.promise;
      else waiter.cancel(); // same-document navigation (hash change): no load event follows
      loaded = true;
      await this.settleWithin(deadline);
    };
    let loaded = false;
    try {
      // At the timeout, before the tab is left: no restart may send it back to `url`.
      await this.navigationBound(work(), deadline, () => `navigation to ${url} did not finish within ${timeout} ms`, { timedOut: () => offStuck?.(), loaded: () => loaded });
      const info = { requestedUrl: url, url: this.url(), status };
      for (const l of this.navigationListeners) l(info);
      return { url: info.url, status };
    } finally {
      waiter.cancel();
      offResponse();
      offStuck?.();
    }
  }

  async reload(options: GotoOptions = {}): Promise<void> {
    const timeout = options.timeout ?? NAV_TIMEOUT;
    const deadline = Date.now() + timeout;
    const url = this.url();
    const waiter = lifecycleWaiter(this.mainSession, () => this.frames.main.id, options.waitUntil ?? "load", timeout, url);
    let loaded = false;
    const work = async () => {
      await this.mainSession.send("Page.reload");
      await waiter.promise;
      loaded = true;
      await this.settleWithin(deadline);
    };
    await this.navigationBound(work(), deadline, () => `reloading ${url} did not finish within ${timeout} ms`, { loaded: () => loaded }).finally(() => waiter.cancel());
  }

  async goBack(options: GotoOptions = {}): Promise<boolean> {
    return this.history(-1, options);
  }

  async goForward(options: GotoOptions = {}): Promise<boolean> {
    return this.history(1, options);
  }

  private async history(delta: number, options: GotoOptions): Promise<boolean> {
    const { currentIndex, entries } = await this.mainSession.send("Page.getNavigationHistory");
    const entry = entries[currentIndex + delta];
    if (!entry) return false;
    const timeout = options.timeout ?? NAV_TIMEOUT;
    const deadline = Date.now() + timeout;
    const waiter = lifecycleWaiter(this.mainSession, () => this.frames.main.id, options.waitUntil ?? "load", timeout, entry.url);
    const work = async () => {
      await this.mainSession.send("Page.navigateToHistoryEntry", { entryId: entry.id });
      // Back/forward may be served from the bfcache or be same-document: no load event then.
      await Promise.race([waiter.promise, new Promise((r) => setTimeout(r, 1000))]);
      waiter.cancel();
      loaded = true;
      await this.settleWithin(deadline);
    };
    let loaded = false;
    await this.navigationBound(work(), deadline, () => `going to ${entry.url} did not finish within ${timeout} ms`, { loaded: () => loaded }).finally(() => waiter.cancel());
    return true;
  }

  /**
   * A navigation's work within its deadline; at its TIMEOUT (`timedOut` told first), a page that no longer
   * answers is left (leaveIfUnanswering). One that had loaded and still answers only had its settle cut (a page
   * that is never quiet), which is best effort: that navigation succeeded.
   */
  private async navigationBound(work: Promise<void>, deadline: number, describe: () => string, on: { timedOut?: () => void; loaded?: () => boolean } = {}): Promise<void> {
    try {
      await navigationWithin(work, deadline, describe);
    } catch (e) {
      if (!(e instanceof ServiceTimeoutError)) throw e;
      on.timedOut?.();
      const left = await this.leaveIfUnanswering();
      if (left) throw new ServiceTimeoutError(`${e.message}: ${left}`);
      if (!on.loaded?.()) throw e;
    }
  }

  /**
   * For a caller whose read of this page ran out of time (svc goto's title): a page that does not answer a
   * trivial script within a second (a dialog loop) has its tab moved to a blank page, so the session's next
   * command finds a page that answers. Resolves with what happened (for the caller's TIMEOUT message), or
   * undefined when the page answered and was left as it is.
   */
  async leaveIfUnanswering(): Promise<string | undefined> {
    return leaveUnanswering(this.mainSession);
  }

  /**
   * A navigation's settling: best effort, and within the navigation's own timeout (a page that is never
   * quiet, polling or navigating itself, would otherwise hold the call for the whole `domSettleTimeout`).
   */
  private settleWithin(deadline: number): Promise<void> {
    return this.settle(Math.max(0, Math.min(this.options.domSettleTimeout, deadline - Date.now())));
  }

  /** Waits until the page is quiet (no requests in flight), at most `domSettleTimeout`. */
  async settle(timeoutMs = this.options.domSettleTimeout, signal?: AbortSignal): Promise<void> {
    // The reply to Input.dispatch* can overtake the Network.requestWillBeSent of a fetch() the event handler
    // started: one round trip to the renderer flushes its pending events before we look for quiet (unless an
    // action's own read-back after its input already made one).
    if (!this.mainSession.inputFlushed) await this.mainSession.send("Runtime.evaluate", { expression: "0" }).catch(() => {});
    await this.network.waitForQuiet(timeoutMs, signal);
    // Out-of-process iframes attached meanwhile must be fully set up before anyone reads the page.
    while (this.attaching.size) await Promise.all([...this.attaching]);
  }

  /**
   * Called with text about to be typed or inserted into a password field (password-input.ts), whoever
   * types it; the Service remembers it as a secret of the session.
   */
  onPasswordText(listener: (text: string) => void): () => void {
    this.passwordListeners.add(listener);
    return () => this.passwordListeners.delete(listener);
  }

  private async notePasswordText(text: string): Promise<void> {
    if (!text || this.passwordListeners.size === 0 || !(await focusedIsPassword(this.frames))) return;
    for (const listener of [...this.passwordListeners]) listener(text);
  }

  /** Called after every successful goto(). */
  onNavigated(listener: (info: NavigationInfo) => void): () => void {
    this.navigationListeners.add(listener);
    return () => this.navigationListeners.delete(listener);
  }

  // ——— inspection ———

  url(): string {
    return this.frames.main.url;
  }

  /**
   * The main frame's URL once a document other than the initial empty one committed: a tab window.open()
   * made has none for a moment. Waits for that commit up to timeoutMs, then gives what there is.
   */
  async committedUrl(timeoutMs: number): Promise<string> {
    const current = (): string => {
      try {
        return this.url();
      } catch {
        return "";
      }
    };
    return this.isClosed ? current() : committedMainUrl(this.mainSession, current, timeoutMs);
  }

  /**
   * Resolves once the page's main thread runs a trivial script; TIMEOUT after timeoutMs. A page whose script
   * never yields (a loop of alert()/confirm() answered as fast as it asks, a busy loop) answers no call at
   * all, and every later call would wait for Chrome's protocol timeout instead.
   */
  async answers(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    // Any reply is an answer: an error (the document is between contexts, the tab closed) is for the operation to meet.
    const answered = this.mainSession.send("Runtime.evaluate", { expression: "0", returnByValue: true }).then(
      () => {},
      () => {},
    );
    await within(
      answered,
      timeoutMs,
      () => new ServiceTimeoutError(`the page does not answer: a trivial script did not run within ${timeoutMs} ms (a script that never yields, such as a dialog loop)`, { hint: "reload or close the tab" }),
      signal,
    );
  }

  /**
   * The document's title. A page that replaces its document under the read (a script navigating itself) is
   * asked again on its new document; one that never holds still is answered by Chrome's target info.
   */
  async title(): Promise<string> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        return String(await this.evaluate("document.title"));
      } catch (e) {
        if (!isDocumentGone(e)) throw e;
        await this.frames.waitForContext(this.frames.main.id, 1000);
      }
    }
    return this.targetTitle();
  }

  /** The tab's title as Chrome's browser process knows it: answered even while the page's script never yields. */
  async targetTitle(): Promise<string> {
    const { targetInfo } = await this.mainSession.send("Target.getTargetInfo", {});
    // Chrome gives the URL (with or without its scheme) as the title of a page that has none yet.
    const { title, url } = targetInfo;
    return title === url || title === url.replace(/^[a-z][\w+.-]*:\/\//i, "") ? "" : title;
  }

  async evaluate<R = unknown>(fnOrExpression: string | ((arg: any) => R | Promise<R>), arg?: unknown): Promise<R> {
    const contextId = this.frames.main.contextId;
    const ctx = contextId !== undefined ? { contextId } : {};
    const res =
      typeof fnOrExpression === "string"
        ? await this.mainSession.send("Runtime.evaluate", { expression: fnOrExpression, returnByValue: true, awaitPromise: true, ...ctx })
        : await this.mainSession.send("Runtime.evaluate", {
            expression: `(${pageFunction(fnOrExpression)})(${JSON.stringify(arg ?? null)})`,
            returnByValue: true,
            awaitPromise: true,
            ...ctx,
          });
    if (res.exceptionDetails) {
      const msg = res.exceptionDetails.exception?.description?.split("\n")[0] ?? res.exceptionDetails.text;
      throw new ServiceEvalError(`evaluate failed: ${msg}`);
    }
    return res.result.value as R;
  }

  /** The picture alone, full size unless `maxSize` is given (screenshot.ts). */
  async screenshot(options: ScreenshotOptions = {}): Promise<Buffer> {
    return (await this.picture({ maxSize: 0, ...options })).data;
  }

  /** capture() without ifChanged: always a picture (long side at most 2000 px by default) with its scale. */
  async picture(options: ScreenshotOptions = {}): Promise<Picture> {
    return (await this.capture({ ...options, ifChanged: false })) as Picture;
  }

  /**
   * A screenshot for a model: its long side at most `maxSize` px (default 2000; 0: full size) and its `scale`
   * (image px per CSS px), or `{ unchanged: true }` with `ifChanged` when it would show what this tab's last one showed.
   */
  async capture(options: CaptureOptions = {}): Promise<Capture> {
    const { capture, fingerprint } = await takeScreenshot(this, options, this.lastScreenshot);
    this.lastScreenshot = fingerprint;
    return capture;
  }

  // ——— input ———

  async click(x: number, y: number, options: { button?: "left" | "right" | "middle"; clickCount?: number } = {}): Promise<void> {
    await this.input.click({ x, y }, options);
    await this.settle();
  }

  async type(text: string): Promise<void> {
    await this.input.type(text);
  }

  async keyPress(key: string): Promise<void> {
    await this.input.press(key);
    await this.settle();
  }

  /** An element in the main document; XPath steps may still cross iframes (see selector.ts). */
  locator(selector: string): Locator {
    return new Locator(this, selector, false);
  }

  /** An element anywhere: iframes (`>>` hops, or searched) and shadow roots, open or closed. */
  deepLocator(selector: string): Locator {
    return new Locator(this, selector, true);
  }

  /** The older generation's `page.act(…)` (docs/wire-formats.md "Library operations"): the Service's `act(…, { page: this })`. */
  act(input: string | object, options?: object): Promise<unknown> {
    return this.ops("act").act(this, input, options);
  }

  /** The older generation's `page.observe(…)`: the Service's `observe(…, { page: this })`. */
  observe(instruction?: string, options?: object): Promise<unknown> {
    return this.ops("observe").observe(this, instruction, options);
  }

  /** The older generation's `page.extract(…)`, every form of the Service's `extract`, on this page. */
  extract(...args: unknown[]): Promise<unknown> {
    return this.ops("extract").extract(this, args);
  }

  private ops(name: string): PageOperations {
    const ops = this.options.serviceOps;
    if (!ops) throw new ServiceNotInitializedError(`page.${name}() needs the Service that opened this page`, { hint: "use service.page, or service.context.pages()" });
    return ops;
  }

  /** @internal */
  markClosed(): void {
    this.closedFlag = true;
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    await this.mainSession.connection.root.send("Target.closeTarget", { targetId: this.targetId }).catch(() => {});
    this.closedFlag = true;
  }
}
