/**
 * svc's own knowledge of where every target of an isolated session's Chrome is, on a connection of svc's own, so
 * nothing a tenant subscribes to changes what the filter decides. Tabs are followed from each navigation's start; one
 * headed for a non-tenant URL is refused, stopped and closed (Chromium cannot keep extensions off chrome://), and one
 * found already there ends the Chrome (onLate).
 */
import { CdpConnection } from "../../internal.js";
import { tenantNavigation, tenantTarget } from "../isolation/tenant-targets.js";

/** What the CDP filter asks about a target. */
export interface TargetPlaces {
  /** Why the tenant may not drive target `targetId` now; undefined when it may. */
  refusal(targetId: string): string | undefined;
  /** Whether svc has heard of target `targetId` (created, not yet destroyed). */
  known(targetId: string): boolean;
  /** Resolves once target `targetId` is known, or after `ms` (check known() again). */
  whenKnown(targetId: string, ms: number): Promise<void>;
  /** Whether target `targetId` is a tab (its documents come and go: code sent for one may reach the next). */
  isTab(targetId: string): boolean;
  /** A tenant message addressed target `targetId` (or attached to it): the tenant may have commands in flight there. */
  addressed(targetId: string): void;
  /**
   * For a tab: resolves once svc has read every event Chrome sent about it before now (a navigation that
   * started before a tenant message reached svc is then known, however late svc's own reading runs);
   * undefined for other targets.
   */
  caughtUp(targetId: string): Promise<void> | undefined;
}

export interface TargetWatchOptions {
  /** The platform session's id (named in log lines). */
  sessionId: string;
  /**
   * A tenant tab committed a page tenants may not reach before svc could stop it (svc read the navigation's
   * start too late): the caller ends the session's Chrome at once.
   */
  onLate: (why: string) => void;
  /** The ids Chrome gave the session's uploaded extensions. */
  ownExtensions: () => readonly string[];
  log: (line: string) => void;
}

interface Place {
  type: string;
  url: string;
  /** Chrome's own UI (it was a browser_ui target): refused, never closed. */
  ui?: boolean;
  /** Closed: kept a while so messages to it are refused at once rather than held as unknown. */
  gone?: boolean;
  /** svc found it committed at a forbidden URL (it was too late to stop it). */
  late?: boolean;
  /** A tenant message addressed it (through a session, a page socket, or an attach request). */
  addressed?: boolean;
  /** When svc last asked Chrome to close it (forbidden tabs). */
  closedAt?: number | undefined;
  /** Set once the target went where tenants may not be: the filter refuses it for good. */
  forbidden?: string;
}

/** Targets (open or closed) remembered per session, at most: past it closed ones are forgotten first, then the oldest (refused as unknown). */
const MAX_TARGETS = 10_000;
const URL_SHOWN = 100;
/** Least time between two closes of one forbidden tab that Chrome still reports. */
const CLOSE_RETRY_MS = 100;

export class TargetWatch implements TargetPlaces {
  private readonly places = new Map<string, Place>();
  /** svc's own session in each tab (for Page.stopLoading). */
  private readonly tabSessions = new Map<string, string>();
  private readonly waiters = new Map<string, Set<() => void>>();

  private constructor(
    private readonly connection: CdpConnection,
    private readonly options: TargetWatchOptions,
  ) {}

  /** Connects to the session's Chrome and learns every target before it resolves. */
  static async start(wsEndpoint: string, options: TargetWatchOptions): Promise<TargetWatch> {
    const connection = await CdpConnection.connect(wsEndpoint, { protocolTimeout: 30_000 });
    const watch = new TargetWatch(connection, options);
    try {
      await watch.listen();
    } catch (e) {
      await connection.close();
      throw e;
    }
    return watch;
  }

  refusal(targetId: string): string | undefined {
    if (this.connection.closed) return "svc's watch on this browser ended";
    const place = this.places.get(targetId);
    if (!place) return "svc has not seen this target";
    if (place.forbidden) return place.forbidden;
    if (place.gone) return "this target is closed";
    if (place.type === "browser" || tenantTarget(place, this.options.ownExtensions())) return undefined;
    return "this target is browser-internal (chrome:, devtools: …) or another extension's, which tenants do not drive";
  }

  isTab(targetId: string): boolean {
    return this.places.get(targetId)?.type === "page";
  }

  addressed(targetId: string): void {
    const place = this.places.get(targetId);
    if (place) place.addressed = true;
  }

  caughtUp(targetId: string): Promise<void> | undefined {
    const place = this.places.get(targetId);
    if (!place || place.type !== "page" || place.forbidden || place.gone || this.connection.closed) return undefined;
    // Chrome answers on the one socket its events about the tab came on (sessions are flattened), in order:
    // a browser-side command's answer comes after every event the browser sent before handling it.
    return this.connection.root.send("Target.getTargetInfo", { targetId }).then(
      () => {},
      () => {},
    );
  }

  known(targetId: string): boolean {
    return this.places.has(targetId);
  }

  whenKnown(targetId: string, ms: number): Promise<void> {
    if (this.known(targetId) || this.connection.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const set = this.waiters.get(targetId) ?? new Set();
      this.waiters.set(targetId, set);
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(targetId) === set) this.waiters.delete(targetId);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }

  close(): Promise<void> {
    for (const set of this.waiters.values()) for (const done of [...set]) done();
    return this.connection.close();
  }

  private async listen(): Promise<void> {
    const root = this.connection.root;
    root.on("Target.targetCreated", ({ targetInfo }) => this.note(targetInfo.targetId, targetInfo.type, targetInfo.url));
    root.on("Target.targetInfoChanged", ({ targetInfo }) => this.note(targetInfo.targetId, targetInfo.type, targetInfo.url));
    root.on("Target.targetDestroyed", ({ targetId }) => {
      const place = this.places.get(targetId);
      if (place) place.gone = true;
      this.tabSessions.delete(targetId);
    });
    root.on("Target.attachedToTarget", (p) => this.attached(p.sessionId, p.targetInfo.targetId, p.waitingForDebugger));
    root.on("Target.detachedFromTarget", (p) => {
      for (const [target, session] of this.tabSessions) if (session === p.sessionId) this.tabSessions.delete(target);
    });
    // Every type (tabs and the browser too): the filter must know whatever a tenant may address.
    await root.send("Target.setDiscoverTargets", { discover: true, filter: [{}] });
    await root.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true, filter: [{ type: "page" }] });
    // Pages found at such URLs before this point were opened before any tenant could connect: closed, not late.
    this.started = true;
  }

  /** Set once the watch knows every target: from then on a forbidden page found committed is late. */
  private started = false;

  private note(targetId: string, type: string, url: string): void {
    const place = this.places.get(targetId);
    if (place) {
      place.type = type;
      place.url = url;
      if (type === "browser_ui") place.ui = true;
    } else {
      if (this.places.size >= MAX_TARGETS) this.forgetOne();
      this.places.set(targetId, { type, url, ...(type === "browser_ui" ? { ui: true } : {}) });
      const waiting = this.waiters.get(targetId);
      if (waiting) for (const done of [...waiting]) done();
    }
    if (type === "page" && !this.places.get(targetId)?.ui && !tenantNavigation(url, this.options.ownExtensions())) this.forbid(targetId, url, "is at", true);
    else if (this.places.get(targetId)?.forbidden) this.closeAgain(targetId);
  }

  /**
   * A forbidden tab Chrome still reports: close it again. A close sent while the new tab was still being
   * created (or paused for svc's own attach) can leave it open; every later event about it retries, at most
   * once per CLOSE_RETRY_MS.
   */
  private closeAgain(targetId: string): void {
    const place = this.places.get(targetId);
    if (!place?.forbidden || place.gone) return;
    const now = Date.now();
    if (place.closedAt !== undefined && now - place.closedAt < CLOSE_RETRY_MS) return;
    place.closedAt = now;
    void this.connection.root.send("Target.closeTarget", { targetId }).catch(() => {});
  }

  /** The oldest closed target (else the oldest of all): a session past MAX_TARGETS targets. */
  private forgetOne(): void {
    for (const [id, place] of this.places) if (place.gone) return void this.places.delete(id);
    this.places.delete(this.places.keys().next().value!);
  }

  /** svc's own session in a tab: follows its main frame's navigations from their start. */
  private attached(sessionId: string, targetId: string, waiting: boolean): void {
    const session = this.connection.session(sessionId);
    if (!session) return;
    this.tabSessions.set(targetId, sessionId);
    const check = (frameId: string, url: string, how: string) => {
      if (frameId === targetId && !tenantNavigation(url, this.options.ownExtensions())) this.forbid(targetId, url, how);
    };
    session.on("Page.frameStartedNavigating", (e) => check(e.frameId, e.url, "started navigating to"));
    session.on("Page.frameNavigated", ({ frame }) => {
      if (frame.id === targetId && !tenantNavigation(frame.url, this.options.ownExtensions())) this.forbid(targetId, frame.url, "navigated to", true);
    });
    const enabled = session.send("Page.enable");
    // Whatever failed (the tab closing meanwhile), it must not stay paused.
    void enabled.catch(() => {}).finally(() => {
      const resumed = waiting ? session.send("Runtime.runIfWaitingForDebugger").catch(() => {}) : Promise.resolve();
      // A tab forbidden before svc was attached to it (created at such a URL) is closed again once it runs.
      void resumed.then(() => {
        const place = this.places.get(targetId);
        if (place?.forbidden && !place.gone) {
          place.closedAt = undefined;
          this.closeAgain(targetId);
        }
      });
    });
  }

  /**
   * The tab went (or is going) where tenants may not be: refused from now on, stopped and closed. Found
   * there (`committed`) once svc watches, it got there before svc could stop it; if a tenant ever addressed
   * it (a command of the tenant's forwarded before svc knew may run in the new page) the session's Chrome ends.
   */
  private forbid(targetId: string, url: string, how: string, committed = false): void {
    const place = this.places.get(targetId) ?? { type: "page", url };
    if (place.gone || place.ui) return;
    const shown = url.length > URL_SHOWN ? `${url.slice(0, URL_SHOWN)}…` : url;
    if (committed && this.started && place.addressed && !place.late) {
      place.late = true;
      this.options.log(`session ${this.options.sessionId}: tab ${targetId} ${how} ${shown} before svc could stop it: ending the session's browser`);
      this.options.onLate(`a tab ${how} ${shown}`);
    }
    if (place.forbidden) return;
    place.forbidden = `this tab ${how} ${shown}, a page tenants may not reach: svc closed it`;
    this.places.set(targetId, place);
    const session = this.tabSessions.get(targetId);
    const tab = session ? this.connection.session(session) : undefined;
    // Sent at once, in this order: Chrome stops the navigation before it commits, then closes the tab.
    void tab?.send("Page.stopLoading").catch(() => {});
    place.closedAt = Date.now();
    void this.connection.root.send("Target.closeTarget", { targetId }).catch(() => {});
    this.options.log(`session ${this.options.sessionId}: closed tab ${targetId}: it ${how} ${shown} (Chrome's own pages are out of tenants' reach)`);
  }
}
