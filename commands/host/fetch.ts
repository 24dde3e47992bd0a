/**
 * The session host's routes and proxy authentication (commands/host/keeper.ts): the library's PageFetch, the one
 * owner of each page's Fetch domain, fed from the session's routes file (src/store/routes.ts). A `svc network
 * route` writes the file and asks the host to read it again (`reload`).
 */
import { type FetchApplied, PageFetch, type ProxyCredentials } from "../../src/internal.js";
import { sessionRouteStore } from "../../src/base.js";

export type { ProxyCredentials };

export class HostFetch {
  private readonly fetch: PageFetch;

  constructor(private readonly config: { sessionId: string; stateRoot: string; proxyCredentials?: ProxyCredentials | undefined }) {
    this.fetch = new PageFetch({ proxyCredentials: config.proxyCredentials }, this.read());
  }

  private read() {
    return sessionRouteStore(this.config.sessionId, this.config.stateRoot).load();
  }

  track(session: Parameters<PageFetch["track"]>[0]): Promise<void> {
    return this.fetch.track(session);
  }

  forget(sessionId: string): void {
    this.fetch.forget(sessionId);
  }

  /** Reads the session's routes again and brings every page to them. */
  reload(): Promise<FetchApplied> {
    return this.fetch.setRoutes(this.read());
  }
}
