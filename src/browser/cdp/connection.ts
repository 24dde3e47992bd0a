/**
 * The only module that speaks to chrome-remote-interface. One WebSocket to the browser target; every page,
 * iframe (OOPIF) and worker is a flattened session multiplexed on it. To an endpoint this process serves
 * itself (a Chrome pipe it holds), no WebSocket: the client joins the pipe in process (local-endpoints.ts).
 */
import CDP from "chrome-remote-interface";
import type { ProtocolMapping } from "devtools-protocol/types/protocol-mapping.js";
import { ServiceBrowserClosedError, ServiceError, ServiceTargetCrashedError, ServiceTimeoutError } from "../../errors.js";
import { parseUnixWsEndpoint } from "../../util/devtools-socket.js";
import { InProcessClient, inProcessEndpoint } from "./local-endpoints.js";

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

/**
 * Whether `e` says the document a call addressed is gone: the page navigated (or reloaded) under it, so its
 * execution context and nodes went with the old document. Looking again on the new document may work.
 */
export function isDocumentGone(e: unknown): boolean {
  return e instanceof ProtocolError && /Cannot find context with specified id|Execution context was destroyed|Inspected target navigated or closed|Cannot find default execution context/i.test(e.message);
}

type Listener = (params: any) => void;

/** Puppeteer's default: generous, so only a call the browser will never answer reaches it. */
const DEFAULT_PROTOCOL_TIMEOUT_MS = 180_000;

/** Why a session ended: its target crashed, detached (page closed, OOPIF gone) or the connection closed. */
type Ended = "crashed" | "detached" | "disconnected";

interface Pending {
  method: string;
  /** Created at send(): its stack is the caller's, and every rejection of this call carries it. */
  site: ProtocolError;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout | undefined;
}

interface CriClient {
  send(method: string, params: object | undefined, sessionId: string | undefined): Promise<any>;
  on(event: "event", cb: (m: { method: string; params: any; sessionId?: string }) => void): void;
  on(event: "disconnect", cb: () => void): void;
  close(): Promise<void>;
}

/** `error` with the stack of the send() site (the message line stays its own). */
function atSite<E extends Error>(error: E, site: Error): E {
  const frames = site.stack?.split("\n").slice(1).join("\n");
  if (frames) error.stack = `${error.name}: ${error.message}\n${frames}`;
  return error;
}

/**
 * One target's commands and events. The session owns its calls in flight: when the target crashes,
 * detaches (its page closed) or the connection ends, every pending call rejects at once with the typed
 * error — the browser never answers those — and every call has a protocol timeout.
 */
export class CdpSession {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly pending = new Set<Pending>();
  private ended: Ended | null = null;
  /** Input.* calls sent, and those answered: see `inputFlushed`. */
  private inputsSent = 0;
  private inputsAnswered = 0;
  /** `inputsAnswered` when the latest answered Runtime.* call was sent (-1: none since the last input). */
  private runtimeAfter = -1;

  constructor(
    readonly connection: CdpConnection,
    readonly sessionId: string | undefined,
    readonly targetId: string | undefined,
    readonly targetType: string,
  ) {}

  get closed(): boolean {
    return this.ended !== null || this.connection.closed;
  }

  /**
   * Whether the renderer has answered a Runtime call sent after every input event of this session was
   * answered. Chrome acknowledges an input event before the renderer's events about what its handlers
   * started (a fetch's Network.requestWillBeSent) reach us; such a round trip delivers them first.
   */
  get inputFlushed(): boolean {
    return this.inputsAnswered > 0 && this.inputsSent === this.inputsAnswered && this.runtimeAfter === this.inputsAnswered;
  }

  /** Calls waiting for an answer (for tests and diagnostics). */
  get pendingCount(): number {
    return this.pending.size;
  }

  send<M extends CommandName>(method: M, ...params: Params<M> extends undefined ? [] : [Params<M>?]): Promise<Result<M>> {
    // Created now so its stack points at the caller, not at the WebSocket message handler.
    const site = new ProtocolError(method);
    if (this.closed) return Promise.reject(this.endError(method, site));
    return new Promise<Result<M>>((resolve, reject) => {
      const call: Pending = { method, site, reject, timer: undefined };
      const timeout = this.connection.protocolTimeout;
      if (timeout > 0 && Number.isFinite(timeout)) {
        call.timer = setTimeout(() => {
          this.pending.delete(call);
          reject(atSite(new ServiceTimeoutError(`${method}: the browser did not answer within ${timeout} ms (protocol timeout)`, { hint: "the page may be hung; raise localBrowserLaunchOptions.protocolTimeout for calls that take longer" }), site));
        }, timeout);
        call.timer.unref?.();
      }
      this.pending.add(call);
      const input = method.startsWith("Input.");
      const runtime = method.startsWith("Runtime.");
      if (input) {
        this.inputsSent++;
        this.runtimeAfter = -1;
      }
      // A Runtime call counts as a flush only when every input was answered before it was sent.
      const after = runtime && this.inputsSent === this.inputsAnswered ? this.inputsAnswered : -1;
      const settled = () => {
        this.pending.delete(call);
        if (call.timer) clearTimeout(call.timer);
        if (input) this.inputsAnswered++;
        else if (after >= 0 && after === this.inputsAnswered && this.inputsSent === this.inputsAnswered) this.runtimeAfter = after;
      };
      this.connection.raw(method, params[0] as object | undefined, this.sessionId).then(
        (result: Result<M>) => {
          settled();
          resolve(result);
        },
        (e: unknown) => {
          settled();
          if (this.closed) return reject(this.endError(method, site));
          site.message = `${method}: ${e instanceof Error ? e.message : String(e)}`;
          (site as { cause?: unknown }).cause = e;
          reject(site);
        },
      );
    });
  }

  private endError(method: string, site: Error): ServiceError {
    const ended = this.ended ?? "disconnected";
    const error =
      ended === "crashed"
        ? new ServiceTargetCrashedError(`${method}: the page crashed`, { hint: "reload or open a new page" })
        : ended === "detached"
          ? new ServiceBrowserClosedError(`${method}: the ${this.targetType} is closed`)
          : new ServiceBrowserClosedError(`${method}: the browser connection is closed`);
    return atSite(error, site);
  }

  /** The session is over: every call in flight rejects now with the reason. */
  private end(reason: Ended): void {
    if (this.ended) return;
    this.ended = reason;
    const calls = [...this.pending];
    this.pending.clear();
    for (const call of calls) {
      if (call.timer) clearTimeout(call.timer);
      call.reject(this.endError(call.method, call.site));
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
    if (method === "Inspector.targetCrashed") this.end("crashed");
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
  markDetached(reason: "detached" | "disconnected" = "detached"): void {
    this.end(reason);
    this.dispatch("svc.detached", {});
  }
}

export class CdpConnection {
  readonly root: CdpSession;
  private readonly sessions = new Map<string, CdpSession>();
  private isClosed = false;
  private readonly closeListeners = new Set<() => void>();
  /** Milliseconds any call may wait for its answer before it rejects with ServiceTimeoutError (0: never). */
  protocolTimeout = DEFAULT_PROTOCOL_TIMEOUT_MS;

  private constructor(private readonly client: CriClient) {
    this.root = new CdpSession(this, undefined, undefined, "browser");
    client.on("event", (m) => this.onMessage(m.method, m.params, m.sessionId));
    client.on("disconnect", () => this.onDisconnect());
  }

  static async connect(wsEndpoint: string, options: { protocolTimeout?: number | undefined } = {}): Promise<CdpConnection> {
    // chrome-remote-interface takes only ws:/wss: strings as URLs; a `ws+unix:` one (svc's own Chromes,
    // devtools-socket.ts) goes in as a target object, which it uses as given.
    const unix = parseUnixWsEndpoint(wsEndpoint);
    const inProcess = unix && inProcessEndpoint(unix.socketPath);
    // An endpoint this process serves itself (a pipe it holds) is joined in process, without a WebSocket.
    const client = inProcess
      ? await InProcessClient.open(inProcess, unix.path)
      : ((await CDP({ target: (unix ? { webSocketDebuggerUrl: wsEndpoint } : wsEndpoint) as string, local: true })) as unknown as CriClient);
    const connection = new CdpConnection(client);
    if (options.protocolTimeout !== undefined) connection.protocolTimeout = options.protocolTimeout;
    return connection;
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
    this.endSessions();
    for (const cb of this.closeListeners) cb();
  }

  /** The browser exited or the socket closed: no session will hear an answer again. */
  private endSessions(): void {
    for (const s of this.sessions.values()) s.markDetached("disconnected");
    this.root.markDetached("disconnected");
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    this.endSessions();
    await this.client.close().catch(() => {});
    for (const cb of this.closeListeners) cb();
  }
}
