/**
 * The session host's emulation (commands/host-keeper.ts): what `svc set` stored for the session
 * (src/store/emulation.ts) applied to every page over the keeper's own DevTools sessions, which live as long
 * as the session (the library's PageEmulation does the applying). A page opened later gets them before its
 * first script runs (the keeper attaches with the page paused). A `svc set` asks the host to read the file
 * again (`reload`), and every page is brought to the new state, settings taken away cleared.
 *
 * It also answers proxy authentication (`svc sessions start --proxy user:pass@…`): Chrome takes no
 * credentials in --proxy-server, so every request of the session's pages passes the keeper's Fetch domain and a
 * proxy's challenge is answered with them (once per request: wrong credentials fail, never loop).
 */
import { type CdpSession, type EmulationApplied, PageEmulation } from "../src/internal.js";
import { type SessionEmulation, sessionEmulationStore } from "../src/base.js";

export interface ProxyCredentials {
  username: string;
  password: string;
}

export class HostEmulation {
  private readonly pages: PageEmulation;

  constructor(
    private readonly config: { root: CdpSession; browserUserAgent: string; sessionId: string; stateRoot: string; proxyCredentials?: ProxyCredentials | undefined },
  ) {
    this.pages = new PageEmulation({ root: config.root, browserUserAgent: config.browserUserAgent }, this.read());
  }

  private read(): SessionEmulation {
    return sessionEmulationStore(this.config.sessionId, this.config.stateRoot).load();
  }

  /** A page attached: the session's settings (and proxy credentials) before it runs. */
  async track(session: CdpSession): Promise<void> {
    const setup: Promise<unknown>[] = [this.pages.track(session)];
    if (this.config.proxyCredentials) setup.push(this.answerProxyAuth(session, this.config.proxyCredentials));
    await Promise.all(setup);
  }

  forget(sessionId: string): void {
    this.pages.forget(sessionId);
  }

  /** Reads the session's file again and brings every page to it. */
  reload(): Promise<EmulationApplied> {
    return this.pages.set(this.read());
  }

  private async answerProxyAuth(session: CdpSession, creds: ProxyCredentials): Promise<void> {
    const answered = new Set<string>();
    session.on("Fetch.requestPaused", (e) => void session.send("Fetch.continueRequest", { requestId: e.requestId }).catch(() => {}));
    session.on("Fetch.authRequired", (e) => {
      // Asked again for the same request: the credentials were refused; the page gets the proxy's 407.
      const again = answered.has(e.requestId);
      answered.add(e.requestId);
      if (answered.size > 1000) answered.clear();
      const response = e.authChallenge.source !== "Proxy" ? "Default" : again ? "CancelAuth" : "ProvideCredentials";
      void session.send("Fetch.continueWithAuth", { requestId: e.requestId, authChallengeResponse: { response, ...(response === "ProvideCredentials" ? creds : {}) } }).catch(() => {});
    });
    await session.send("Fetch.enable", { handleAuthRequests: true });
  }
}
