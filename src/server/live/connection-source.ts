/**
 * A live source over a DevTools connection svc holds itself (a CLI session's host): the tab list from
 * Target.getTargets, each viewer's tab a flattened session of its own (Target.attachToTarget), so its
 * screencast and input are its own and detaching it leaves the tab as it was. Nothing is filtered: the
 * person watching a local session is its owner.
 */
import type { CdpConnection, CdpSession } from "../../internal.js";
import { LIVE_LIMITS } from "./messages.js";
import { type CdpParams, type LiveSource, type LiveTabHandlers, type LiveTabLink, toLiveTabs } from "./source.js";

/** The tab events a viewer reads (live/viewer.ts). */
const EVENTS = ["Page.screencastFrame", "Page.frameNavigated", "Page.loadEventFired", "Page.navigatedWithinDocument"] as const;

type AnySession = { send(method: string, params?: object): Promise<unknown>; on(event: string, l: (p: unknown) => void): () => void };

class SessionLink implements LiveTabLink {
  private inFlight = 0;
  private answered: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly offs: (() => void)[] = [];

  constructor(
    private readonly root: CdpSession,
    private readonly session: CdpSession,
    readonly targetId: string,
    private readonly handlers: LiveTabHandlers,
  ) {
    const s = session as unknown as AnySession;
    for (const e of EVENTS) this.offs.push(s.on(e, (p) => handlers.onEvent(e, (p ?? {}) as CdpParams)));
    this.offs.push(s.on("svc.detached", () => this.end()));
  }

  send(method: string, params: CdpParams = {}): Promise<CdpParams> {
    if (this.closed) return Promise.reject(new Error("the tab's connection is closed"));
    this.inFlight++;
    const answer = (this.session as unknown as AnySession).send(method, params).then((r) => (r ?? {}) as CdpParams);
    this.answered = Promise.allSettled([this.answered, answer]);
    void answer.then(
      () => this.inFlight--,
      () => this.inFlight--,
    );
    return answer;
  }

  fire(method: string, params: CdpParams = {}): void {
    if (this.inFlight >= LIVE_LIMITS.maxPendingCommands) return;
    this.send(method, params).catch(() => {});
  }

  async settled(): Promise<void> {
    await this.answered;
  }

  close(): void {
    if (this.closed) return;
    const sessionId = this.session.sessionId;
    this.end();
    if (sessionId) this.root.send("Target.detachFromTarget", { sessionId }).catch(() => {});
  }

  private end(): void {
    if (this.closed) return;
    this.closed = true;
    for (const off of this.offs.splice(0)) off();
    this.handlers.onClose();
  }
}

export function connectionSource(connection: CdpConnection, preferred?: () => string | undefined): LiveSource {
  return {
    async tabs() {
      if (connection.closed) return undefined;
      try {
        const { targetInfos } = await connection.root.send("Target.getTargets");
        return toLiveTabs(targetInfos.map((t) => ({ id: t.targetId, type: t.type, title: t.title, url: t.url })));
      } catch {
        return undefined;
      }
    },
    async open(targetId, handlers) {
      const { sessionId } = await connection.root.send("Target.attachToTarget", { targetId, flatten: true }).catch(() => {
        throw new Error("no such tab");
      });
      const session = connection.session(sessionId);
      if (!session) throw new Error("the tab closed while the view attached to it");
      return new SessionLink(connection.root, session, targetId, handlers);
    },
    ...(preferred ? { preferred } : {}),
  };
}
