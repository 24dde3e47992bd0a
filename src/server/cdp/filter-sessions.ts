/**
 * Which target each CDP session of one tenant connection is attached to, so the tenant filter (cdp/filter.ts) checks
 * a message against the target it addresses. Learnt from what passes the proxy, whatever the client subscribed to:
 * the answers to its attachToTarget and attachToBrowserTarget, and Chrome's attachedToTarget events. A session svc
 * never saw attached gets nothing forwarded.
 */

type Params = Record<string, unknown>;

/** A session's target id; null: a browser-level session (Target.attachToBrowserTarget, or the browser's own target). */
export type Attachment = string | null;

/** Attach requests awaiting their answer, at most (a client that never reads them cannot grow the map). */
const MAX_PENDING = 64;
/** Sessions remembered at most (Chrome detaches what closes; past this the oldest are forgotten, then refused). */
const MAX_SESSIONS = 100_000;

export class SessionTargets {
  private readonly sessions = new Map<string, Attachment>();
  /** `<sessionId>#<request id>` of attach requests in flight, and what they attach to. */
  private readonly pending = new Map<string, Attachment>();

  /** The target session `sessionId` is attached to, null for a browser-level one; undefined: never seen. */
  of(sessionId: string): Attachment | undefined {
    return this.sessions.get(sessionId);
  }

  /** Whether answers from the browser must be read (an attach request awaits its answer). */
  get awaiting(): boolean {
    return this.pending.size > 0;
  }

  /** A client command on its way to Chrome: remembers attach requests. A refusal when too many are in flight. */
  command(id: number, sessionId: string | undefined, method: string, params: Params): string | undefined {
    let attaches: Attachment | undefined;
    if (method === "Target.attachToTarget" && typeof params.targetId === "string") attaches = params.targetId;
    else if (method === "Target.attachToBrowserTarget") attaches = null;
    if (attaches === undefined) return undefined;
    if (this.pending.size >= MAX_PENDING) return `more than ${MAX_PENDING} attach requests await their answer`;
    this.pending.set(requestKey(sessionId, id), attaches);
    return undefined;
  }

  /** A message from Chrome (already parsed): learns attachments from answers and events. */
  fromBrowser(m: { id?: unknown; method?: unknown; params?: unknown; result?: unknown; sessionId?: unknown }): void {
    const outer = typeof m.sessionId === "string" ? m.sessionId : undefined;
    if (typeof m.id === "number" && m.method === undefined) {
      const key = requestKey(outer, m.id);
      const attaches = this.pending.get(key);
      if (attaches === undefined) return;
      this.pending.delete(key);
      const sessionId = (m.result as Params | undefined)?.sessionId;
      if (typeof sessionId === "string") this.learn(sessionId, attaches);
      return;
    }
    const p = (m.params ?? {}) as Params;
    if (m.method === "Target.attachedToTarget") {
      const info = (p.targetInfo ?? {}) as Params;
      if (typeof p.sessionId === "string" && typeof info.targetId === "string") this.learn(p.sessionId, info.type === "browser" ? null : info.targetId);
    } else if (m.method === "Target.detachedFromTarget" && typeof p.sessionId === "string") {
      this.sessions.delete(p.sessionId);
    }
  }

  private learn(sessionId: string, attachment: Attachment): void {
    if (this.sessions.size >= MAX_SESSIONS && !this.sessions.has(sessionId)) this.sessions.delete(this.sessions.keys().next().value!);
    this.sessions.set(sessionId, attachment);
  }
}

function requestKey(sessionId: string | undefined, id: number): string {
  return `${sessionId ?? ""}#${id}`;
}
