/**
 * The session host's emulation: what `svc set` stored (store/emulation.ts) applied to every page over the keeper's
 * own DevTools sessions, which live as long as the session, since an override ends with the session that set it. A
 * later page gets it before its first script (attached paused). `reload` brings every page to the new state. The
 * session's viewport is held here for the same reason.
 */
import { type CdpSession, type EmulationApplied, NETWORK_ENABLE_PARAMS, PageEmulation } from "../../src/internal.js";
import { type SessionEmulation, sessionEmulationStore } from "../../src/base.js";

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
