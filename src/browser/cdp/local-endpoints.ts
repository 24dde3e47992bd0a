/**
 * The DevTools endpoints this process serves itself (the Chrome pipes it holds, pipe-endpoint.ts), by their socket's
 * path. A connection to one joins the pipe's mux in process instead of a WebSocket to its own socket: a message is
 * parsed once, never framed and decoded again, which was most of the host's CPU on a large page's snapshot. Other
 * processes keep the WebSocket.
 */

/** Where an endpoint delivers what Chrome sends the client: one JSON message per call. */
export interface LocalSink {
  send(text: string): void;
  /** The client's root session ended (its target closed, or Chrome went away). */
  close(reason: string): void;
}

/** A client of the endpoint: what it sends (one JSON message per call), and its leaving. */
export interface LocalClient {
  receive(text: string): void;
  close(): void;
}

/** Attaches a client at a DevTools path (`/devtools/browser/<id>`, `/devtools/page/<targetId>`). */
export type LocalAttach = (path: string, sink: LocalSink) => Promise<LocalClient>;

const endpoints = new Map<string, LocalAttach>();

/** Serves the endpoint at `socketPath` in process too; the returned function stops that. */
export function serveInProcess(socketPath: string, attach: LocalAttach): () => void {
  endpoints.set(socketPath, attach);
  return () => {
    if (endpoints.get(socketPath) === attach) endpoints.delete(socketPath);
  };
}

/** The in-process way to the endpoint on `socketPath`, when this process serves it. */
export function inProcessEndpoint(socketPath: string): LocalAttach | undefined {
  return endpoints.get(socketPath);
}

type EventCallback = (m: { method: string; params: unknown; sessionId?: string }) => void;

/**
 * A CDP client on an in-process endpoint, with the shape connection.ts uses of chrome-remote-interface's:
 * `send` resolves with the result or rejects with the protocol's message, events and the end of the
 * connection are heard with `on`, and a `close()` of its own is not reported as a disconnect.
 */
export class InProcessClient {
  private nextId = 1;
  private readonly calls = new Map<number, { resolve: (result: unknown) => void; reject: (e: Error) => void }>();
  private readonly eventCallbacks = new Set<EventCallback>();
  private readonly disconnectCallbacks = new Set<() => void>();
  private ended = false;
  private client: LocalClient | undefined;

  static async open(attach: LocalAttach, path: string): Promise<InProcessClient> {
    const c = new InProcessClient();
    c.client = await attach(path, { send: (text) => c.onText(text), close: () => c.end(true) });
    if (c.ended) c.client.close();
    return c;
  }

  send(method: string, params: object | undefined, sessionId: string | undefined): Promise<unknown> {
    if (this.ended || !this.client) return Promise.reject(new Error("the connection is closed"));
    const id = this.nextId++;
    const client = this.client;
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject });
      client.receive(JSON.stringify({ id, method, params: params ?? {}, ...(sessionId ? { sessionId } : {}) }));
    });
  }

  on(event: "event", cb: EventCallback): void;
  on(event: "disconnect", cb: () => void): void;
  on(event: "event" | "disconnect", cb: EventCallback | (() => void)): void {
    if (event === "event") this.eventCallbacks.add(cb as EventCallback);
    else this.disconnectCallbacks.add(cb as () => void);
  }

  async close(): Promise<void> {
    if (this.ended) return;
    this.end(false);
    this.client?.close();
  }

  private onText(text: string): void {
    if (this.ended) return;
    let m: { id?: unknown; method?: unknown; params?: unknown; sessionId?: string; result?: unknown; error?: { message?: string; data?: string } };
    try {
      m = JSON.parse(text) as typeof m;
    } catch {
      return; // the mux sends only JSON; a WebSocket client would drop this too
    }
    if (typeof m.id === "number") {
      const call = this.calls.get(m.id);
      if (!call) return;
      this.calls.delete(m.id);
      if (m.error) call.reject(new Error(`${m.error.message ?? "failed"}${m.error.data ? ` (${m.error.data})` : ""}`));
      else call.resolve(m.result ?? {});
      return;
    }
    if (typeof m.method !== "string") return;
    const event = { method: m.method, params: m.params, ...(m.sessionId ? { sessionId: m.sessionId } : {}) };
    // A subscriber's failure must not reach the pipe's reader, which delivers to every client.
    for (const cb of this.eventCallbacks) {
      try {
        cb(event);
      } catch {
        // connection.ts's own dispatch already isolates listeners
      }
    }
  }

  /** No answer comes any more: every call in flight fails; `notify` when the endpoint ended it. */
  private end(notify: boolean): void {
    if (this.ended) return;
    this.ended = true;
    const calls = [...this.calls.values()];
    this.calls.clear();
    for (const call of calls) call.reject(new Error("the connection is closed"));
    if (notify) for (const cb of this.disconnectCallbacks) cb();
  }
}
