/**
 * A session's emulation (device, viewport, geolocation, colour scheme, offline, headers, user agent, time zone,
 * locale) applied to every page it is given, over DevTools sessions that live as long as the emulation should: the
 * overrides end with the session that set them. `set` brings every tracked page to the new state, clearing what was
 * taken away. Out-of-process iframes keep the browser's settings.
 */
import type { SessionEmulation } from "../store/emulation.js";
import type { CdpSession } from "./cdp/connection.js";

/** What a `set` did: how many pages have the new state, and the first failure (a page closing meanwhile is none). */
export interface EmulationApplied {
  pages: number;
  failed: number;
  error?: string;
}

export class PageEmulation {
  private readonly pages = new Map<string, CdpSession>();
  /** What each page got, so a setting taken away is cleared there. */
  private readonly applied = new WeakMap<CdpSession, SessionEmulation>();
  private permissionsGranted = false;

  constructor(
    /**
     * `networkEnable`: the Network.enable parameters the session's owner uses (its network log, its page), sent again
     * the same when a network setting needs the domain, so a re-enable changes nothing of the owner's.
     * `viewport`: the size a page has when no viewport or device is set (connect.ts pageViewport); none: Chrome's own.
     */
    private readonly config: { root: CdpSession; browserUserAgent: string; networkEnable: Record<string, unknown>; viewport?: { width: number; height: number } | undefined; browserContextId?: string | undefined },
    private state: SessionEmulation = {},
  ) {}

  get current(): SessionEmulation {
    return this.state;
  }

  /** A page attached: the current settings, applied now. */
  track(session: CdpSession): Promise<void> {
    const id = session.sessionId ?? "";
    this.pages.set(id, session);
    session.on("svc.detached" as never, () => this.forget(id));
    return this.apply(session, this.state);
  }

  forget(sessionId: string): void {
    this.pages.delete(sessionId);
  }

  /** Brings every tracked page to `next`. */
  async set(next: SessionEmulation): Promise<EmulationApplied> {
    this.state = next;
    const results = await Promise.allSettled([...this.pages.values()].map((s) => this.apply(s, next)));
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    const first = failures[0]?.reason as Error | undefined;
    return { pages: results.length - failures.length, failed: failures.length, ...(first ? { error: first.message } : {}) };
  }

  private async apply(session: CdpSession, e: SessionEmulation): Promise<void> {
    const before = this.applied.get(session) ?? {};
    this.applied.set(session, e);
    const calls: Promise<unknown>[] = [];
    const send = (method: string, params: object) => calls.push((session.send as (m: string, p: object) => Promise<unknown>)(method, params));
    const size = e.viewport ?? e.device ?? this.config.viewport;
    const screen = e.device?.screen ? { screenWidth: e.device.screen.width, screenHeight: e.device.screen.height } : {};
    if (size) send("Emulation.setDeviceMetricsOverride", { width: size.width, height: size.height, deviceScaleFactor: e.device?.deviceScaleFactor ?? 1, mobile: e.device?.mobile ?? false, ...screen });
    else if (before.viewport ?? before.device) send("Emulation.clearDeviceMetricsOverride", {});
    if (e.device?.touch) send("Emulation.setTouchEmulationEnabled", { enabled: true, maxTouchPoints: 5 });
    else if (before.device?.touch) send("Emulation.setTouchEmulationEnabled", { enabled: false });
    const userAgent = e.userAgent ?? e.device?.userAgent;
    // navigator.language(s) and Accept-Language follow the user-agent override's language.
    if (userAgent !== undefined || e.locale !== undefined) send("Network.setUserAgentOverride", { userAgent: userAgent ?? this.config.browserUserAgent, ...(e.locale ? { acceptLanguage: e.locale } : {}) });
    else if (before.userAgent ?? before.device ?? before.locale) send("Network.setUserAgentOverride", { userAgent: "" });
    if (e.locale !== undefined) send("Emulation.setLocaleOverride", { locale: e.locale });
    else if (before.locale !== undefined) send("Emulation.setLocaleOverride", {});
    if (e.timezone !== undefined) send("Emulation.setTimezoneOverride", { timezoneId: e.timezone });
    else if (before.timezone !== undefined) send("Emulation.setTimezoneOverride", { timezoneId: "" });
    if (e.geo) {
      await this.grantGeolocation();
      send("Emulation.setGeolocationOverride", e.geo);
    } else if (before.geo) send("Emulation.clearGeolocationOverride", {});
    if (e.media) send("Emulation.setEmulatedMedia", { features: [{ name: "prefers-color-scheme", value: e.media }] });
    else if (before.media) send("Emulation.setEmulatedMedia", { features: [] });
    // The network settings need the Network domain enabled on this session. Never disabled again here: the
    // session's other users (the host's network log, the library page's own request tracking) rely on it.
    if (e.offline || e.headers) await (session.send as (m: string, p: object) => Promise<unknown>)("Network.enable", this.config.networkEnable);
    if (e.offline || before.offline) send("Network.emulateNetworkConditions", { offline: !!e.offline, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    if (e.headers || before.headers) send("Network.setExtraHTTPHeaders", { headers: e.headers ?? {} });
    await Promise.all(calls);
  }

  /** Geolocation needs the permission too (browser-wide, for every origin), granted once. */
  private async grantGeolocation(): Promise<void> {
    if (this.permissionsGranted) return;
    await this.config.root.send("Browser.grantPermissions", { permissions: ["geolocation"], ...(this.config.browserContextId ? { browserContextId: this.config.browserContextId } : {}) });
    this.permissionsGranted = true;
  }
}
