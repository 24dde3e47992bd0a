/**
 * The only module that speaks to chrome-remote-interface. One WebSocket to the browser target; every page,
 * iframe (OOPIF) and worker is a flattened session multiplexed on it.
 */
import CDP from "chrome-remote-interface";
import type { ProtocolMapping } from "devtools-protocol/types/protocol-mapping.js";
import { ServiceBrowserClosedError, ServiceError, ServiceTargetCrashedError } from "../../errors.js";

export type Commands = ProtocolMapping.Commands;
export type Events = ProtocolMapping.Events;
export type CommandName = keyof Commands;
export type EventName = keyof Events;
export type Params<M extends CommandName> = Commands[M]["paramsType"][0];
export type Result<M extends CommandName> = Commands[M]["returnType"];
export type EventParams<E extends EventName> = Events[E] extends [infer P] ? P : undefined;

/** A CDP protocol error ("No node with given id found", …), raised at the caller's send() site. */
export class ProtocolError extends ServiceError {
  override readonly code = "CDP_PROTOCOL_ERROR";
  readonly method: string;
  constructor(method: string) {
    super(`${method} failed`);
    this.method = method;
  }
}

type Listener = (params: any) => void;

interface CriClient {
  send(method: string, params: object | undefined, sessionId: string | undefined): Promise<any>;
  on(event: "event", cb: (m: { method: string; params: any; sessionId?: string }) => void): void;
  on(event: "disconnect", cb: () => void): void;
  close(): Promise<void>;
}

export class CdpSession {
  private readonly listeners = new Map<string, Set<Listener>>();
  private ended: "detached" | "crashed" | null = null;

  constructor(
    readonly connection: CdpConnection,
    readonly sessionId: string | undefined,
    readonly targetId: string | undefined,
    readonly targetType: string,
  ) {}

  get closed(): boolean {
    return this.ended !== null || this.connection.closed;
  }

  async send<M extends CommandName>(method: M, ...params: Params<M> extends undefined ? [] : [Params<M>?]): Promise<Result<M>> {
    // Created now so its stack points at the caller, not at the WebSocket message handler.
    const error = new ProtocolError(method);
    if (this.ended === "crashed") throw new ServiceTargetCrashedError(`${method}: the page crashed`, { hint: "reload or open a new page" });
    if (this.closed) throw new ServiceBrowserClosedError(`${method}: the ${this.targetType} is closed`);
    try {
      return await this.connection.raw(method, params[0] as object | undefined, this.sessionId);
    } catch (e) {
      if ((this.ended as string | null) === "crashed") throw new ServiceTargetCrashedError(`${method}: the page crashed`);
      if (this.closed) throw new ServiceBrowserClosedError(`${method}: the ${this.targetType} is closed`);
      const msg = e instanceof Error ? e.message : String(e);
      error.message = `${method}: ${msg}`;
      (error as { cause?: unknown }).cause = e;
      throw error;
    }
  }

  on<E extends EventName>(event: E, listener: (params: EventParams<E>) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener as Listener);
    return () => set!.delete(listener as Listener);
  }

  once<E extends EventName>(event: E, predicate: (p: EventParams<E>) => boolean = () => true): Promise<EventParams<E>> {
    return new Promise((resolve) => {
      const off = this.on(event, (p) => {
        if (!predicate(p)) return;
        off();
        resolve(p);
      });
    });
  }

  /** @internal */
  dispatch(method: string, params: unknown): void {
    if (method === "Inspector.targetCrashed") this.ended = "crashed";
    const set = this.listeners.get(method);
    if (!set) return;
    for (const l of [...set]) {
      try {
        l(params);
      } catch {
        // A listener's bug must not break the message pump for every other session.
      }
    }
  }

  /** @internal */
  markDetached(): void {
    if (!this.ended) this.ended = "detached";
    this.dispatch("svc.detached", {});
  }
}

export class CdpConnection {
  readonly root: CdpSession;
  private readonly sessions = new Map<string, CdpSession>();
  private isClosed = false;
  private readonly closeListeners = new Set<() => void>();

  private constructor(private readonly client: CriClient) {
    this.root = new CdpSession(this, undefined, undefined, "browser");
    client.on("event", (m) => this.onMessage(m.method, m.params, m.sessionId));
    client.on("disconnect", () => this.onDisconnect());
  }

  static async connect(wsEndpoint: string): Promise<CdpConnection> {
    const client = (await CDP({ target: wsEndpoint, local: true })) as unknown as CriClient;
    return new CdpConnection(client);
  }

  get closed(): boolean {
    return this.isClosed;
  }

  session(sessionId: string): CdpSession | undefined {
    return this.sessions.get(sessionId);
  }

  onClose(cb: () => void): void {
    this.closeListeners.add(cb);
  }

  /** @internal */
  raw(method: string, params: object | undefined, sessionId: string | undefined): Promise<any> {
    return this.client.send(method, params ?? {}, sessionId);
  }

  private onMessage(method: string, params: any, sessionId: string | undefined): void {
    if (method === "Target.attachedToTarget") {
      const { sessionId: child, targetInfo } = params;
      if (!this.sessions.has(child)) this.sessions.set(child, new CdpSession(this, child, targetInfo.targetId, targetInfo.type));
    }
    const target = sessionId ? this.sessions.get(sessionId) : this.root;
    target?.dispatch(method, params);
    if (method === "Target.detachedFromTarget") {
      const s = this.sessions.get(params.sessionId);
      if (s) {
        this.sessions.delete(params.sessionId);
        s.markDetached();
      }
    }
  }

  private onDisconnect(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    for (const s of this.sessions.values()) s.markDetached();
    for (const cb of this.closeListeners) cb();
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    for (const s of this.sessions.values()) s.markDetached();
    await this.client.close().catch(() => {});
    for (const cb of this.closeListeners) cb();
  }
}
