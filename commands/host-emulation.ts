/**
 * The session host's emulation (commands/host-keeper.ts): what `svc set` stored for the session
 * (src/store/emulation.ts) applied to every page over the keeper's own DevTools sessions, which live as long
 * as the session — Emulation.* and Network.* overrides last as long as the DevTools session that set them. A
 * page opened later gets them before its first script runs (the keeper attaches with the page paused). A
 * `svc set` asks the host to read the file again (`reload`), and every page is brought to the new state,
 * settings taken away cleared. Pages inside out-of-process iframes keep the browser's own settings.
 * (Proxy authentication is host-fetch.ts's, the one owner of each page's Fetch domain.)
 */
import type { CdpSession } from "../src/internal.js";
import { type SessionEmulation, sessionEmulationStore } from "../src/base.js";

/** What a reload did: how many pages have the new state, and the first failure (a page closing meanwhile is none). */
export interface EmulationApplied {
  pages: number;
  failed: number;
  error?: string;
}

export class HostEmulation {
  private readonly pages = new Map<string, CdpSession>();
  /** What each page got, so a setting taken away is cleared there. */
  private readonly applied = new WeakMap<CdpSession, SessionEmulation>();
  private current: SessionEmulation;
  private permissionsGranted = false;

  constructor(
    private readonly config: { root: CdpSession; browserUserAgent: string; sessionId: string; stateRoot: string },
  ) {
    this.current = this.read();
  }

  private read(): SessionEmulation {
    return sessionEmulationStore(this.config.sessionId, this.config.stateRoot).load();
  }

  /** A page attached: the session's settings before it runs. */
  async track(session: CdpSession): Promise<void> {
    this.pages.set(session.sessionId ?? "", session);
    await this.apply(session, this.current);
  }

  forget(sessionId: string): void {
    this.pages.delete(sessionId);
  }

  /** Reads the session's file again and brings every page to it. */
  async reload(): Promise<EmulationApplied> {
    this.current = this.read();
    const results = await Promise.allSettled([...this.pages.values()].map((s) => this.apply(s, this.current)));
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    const first = failures[0]?.reason as Error | undefined;
    return { pages: results.length - failures.length, failed: failures.length, ...(first ? { error: first.message } : {}) };
  }

  private async apply(session: CdpSession, e: SessionEmulation): Promise<void> {
    const before = this.applied.get(session) ?? {};
    this.applied.set(session, e);
    const calls: Promise<unknown>[] = [];
    const send = (method: string, params: object) => calls.push((session.send as (m: string, p: object) => Promise<unknown>)(method, params));
    const size = e.viewport ?? e.device;
    if (size) send("Emulation.setDeviceMetricsOverride", { width: size.width, height: size.height, deviceScaleFactor: e.device?.deviceScaleFactor ?? 1, mobile: e.device?.mobile ?? false });
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
    // The Network domain only while a network setting needs it: enabled, every request's events reach the host.
    const network = e.offline || e.headers;
    if (network && !(before.offline || before.headers)) await session.send("Network.enable", { maxTotalBufferSize: 0, maxResourceBufferSize: 0 });
    if (e.offline || before.offline) send("Network.emulateNetworkConditions", { offline: !!e.offline, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    if (e.headers || before.headers) send("Network.setExtraHTTPHeaders", { headers: e.headers ?? {} });
    await Promise.all(calls);
    if (!network && (before.offline || before.headers)) await session.send("Network.disable");
  }

  /** Geolocation needs the permission too (browser-wide, for every origin), granted once. */
  private async grantGeolocation(): Promise<void> {
    if (this.permissionsGranted) return;
    await this.config.root.send("Browser.grantPermissions", { permissions: ["geolocation"] });
    this.permissionsGranted = true;
  }
}
