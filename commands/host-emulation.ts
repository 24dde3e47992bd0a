/**
 * The session host's emulation (commands/host-keeper.ts): what `svc set` stored for the session
 * (src/store/emulation.ts) applied to every page over the keeper's own DevTools sessions, which live as long
 * as the session (the library's PageEmulation does the applying). A page opened later gets them before its
 * first script runs (the keeper attaches with the page paused). A `svc set` asks the host to read the file
 * again (`reload`), and every page is brought to the new state, settings taken away cleared. The session's
 * size (its --viewport, else the one-shot browser's default) is held here too, for every page and the whole
 * session: an override lasts only as long as the DevTools session that set it, so a command's would end with it.
 * (Proxy authentication is host-fetch.ts's, the one owner of each page's Fetch domain.)
 */
import { type CdpSession, type EmulationApplied, NETWORK_ENABLE_PARAMS, PageEmulation } from "../src/internal.js";
import { type SessionEmulation, sessionEmulationStore } from "../src/base.js";

export class HostEmulation {
  private readonly pages: PageEmulation;

  /** `viewport`: the session's pages' size when `svc set` names none (the launch's, connect.ts pageViewport). */
  constructor(private readonly config: { root: CdpSession; browserUserAgent: string; sessionId: string; stateRoot: string; viewport: { width: number; height: number } | undefined; browserContextId?: string | undefined }) {
    this.pages = new PageEmulation({ root: config.root, browserUserAgent: config.browserUserAgent, networkEnable: NETWORK_ENABLE_PARAMS, viewport: config.viewport, browserContextId: config.browserContextId }, this.read());
  }

  private read(): SessionEmulation {
    return sessionEmulationStore(this.config.sessionId, this.config.stateRoot).load();
  }

  /** A page attached: the session's settings before it runs. */
  track(session: CdpSession): Promise<void> {
    return this.pages.track(session);
  }

  forget(sessionId: string): void {
    this.pages.forget(sessionId);
  }

  /** Reads the session's file again and brings every page to it. */
  reload(): Promise<EmulationApplied> {
    return this.pages.set(this.read());
  }
}
