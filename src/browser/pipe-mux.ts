/**
 * Many DevTools clients over Chrome's one pipe. Each gets a root session of its own, as Chrome's own WebSocket would
 * give; ids are renumbered, a session a client does not own is refused, a leaving client's root session is detached.
 * A tab made by `Target.createTarget` with a URL runs before auto-attached clients see it, so the mux navigates it
 * itself (openTarget).
 */

import { MAX_CDP_MESSAGE } from "../util/cdp-limits.js";

export { MAX_CDP_MESSAGE };

export interface MuxClientSink {
  send(text: string): void;
  /** The client's root session ended (its target closed, or Chrome went away). */
  close(reason: string): void;
}

interface Message {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  sessionId?: string;
  result?: Record<string, unknown>;
  error?: unknown;
}

/** A top-level sessionId, last in the object as Chrome writes it. */
const SESSION_TAIL = /,"sessionId":"([0-9A-Za-z]{1,64})"\}$/;
const REPLY_HEAD = /^\{"id":(\d{1,15}),/;
const EVENT_HEAD = /^\{"method":"([A-Za-z0-9_.]{1,128})",/;

type Pending =
  | { kind: "client"; client: MuxClient; id: unknown; method: string }
  | { kind: "own"; resolve: (m: Message) => void };

/**
 * A URL a new tab would load: not "" nor an about: URL (about:blank, about:blank#x, about:srcdoc load nothing
 * and run no script, and a client may check the URL it asked for as soon as the tab exists).
 */
function navigatesAway(url: unknown): url is string {
  return typeof url === "string" && url !== "" && !/^about:/i.test(url) && URL.canParse(url);
}

/** Chrome's error reply to one of the mux's own calls; `error` as Chrome gave it. */
class ProtocolReplyError extends Error {
  constructor(method: string, readonly error: { code?: number; message?: string }) {
    super(`${method}: ${error.message ?? "failed"}`);
  }
}

export class PipeMux {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** sessionId → the client that owns it (its root or a child it attached). */
  private readonly owners = new Map<string, MuxClient>();
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private skipping = false;
  private ended = false;
  readonly clients = new Set<MuxClient>();

  constructor(private readonly writePipe: (text: string) => void, private readonly log: (line: string) => void = () => {}) {}

  /** Bytes read from Chrome's end of the pipe. */
  feed(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nul = chunk.indexOf(0, start);
      const part = chunk.subarray(start, nul === -1 ? chunk.length : nul);
      if (!this.skipping) {
        this.bufferedBytes += part.length;
        if (this.bufferedBytes > MAX_CDP_MESSAGE) {
          this.log(`a message from Chrome exceeds ${MAX_CDP_MESSAGE} bytes: dropped`);
          this.skipping = true;
          this.buffered = [];
          this.bufferedBytes = 0;
        } else if (part.length) this.buffered.push(Buffer.from(part));
      }
      if (nul === -1) return;
      if (!this.skipping) {
        const text = Buffer.concat(this.buffered).toString("utf8");
        this.buffered = [];
        this.bufferedBytes = 0;
        this.onPipeMessage(text);
      }
      this.skipping = false;
      start = nul + 1;
    }
  }

  /** Chrome's pipe closed: every client ends, every pending call fails. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const p of this.pending.values()) if (p.kind === "own") p.resolve({ error: { message: "the browser closed" } });
    this.pending.clear();
    for (const c of [...this.clients]) c.drop("the browser closed");
  }

  /** A command of the mux itself, sessionless (the browser target). Rejects with the protocol's message. */
  call(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> {
    if (this.ended) return Promise.reject(new Error("the browser closed"));
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, {
        kind: "own",
        resolve: (m) => (m.error ? reject(new ProtocolReplyError(method, m.error as { message?: string })) : resolve(m.result ?? {})),
      });
      this.writePipe(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  }

  /** A new client: rooted on the browser target, or on one page target (`targetId`). */
  async attach(sink: MuxClientSink, targetId?: string): Promise<MuxClient> {
    const reply = targetId ? await this.call("Target.attachToTarget", { targetId, flatten: true }) : await this.call("Target.attachToBrowserTarget");
    const root = reply.sessionId;
    if (typeof root !== "string") throw new Error("Chrome gave no session for the new client");
    const client = new MuxClient(this, sink, root);
    this.owners.set(root, client);
    this.clients.add(client);
    return client;
  }

  /**
   * `Target.createTarget`, for a client or /json/new. A tab asked for with a URL is made at about:blank and sent to
   * the URL before the reply, so its navigation waits for the clients that auto-attach paused (top of this file). A
   * message the caller sends before this reply may reach Chrome before the tab exists.
   */
  async openTarget(params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const url = params.url;
    if (!navigatesAway(url)) return this.call("Target.createTarget", params);
    const made = await this.call("Target.createTarget", { ...params, url: "about:blank" });
    const targetId = made.targetId as string;
    try {
      const { sessionId } = (await this.call("Target.attachToTarget", { targetId, flatten: true })) as { sessionId: string };
      // Not awaited: it answers once the navigation commits, after the paused clients resumed the tab.
      void this.call("Page.navigate", { url }, sessionId)
        .catch(() => {})
        .then(() => this.call("Target.detachFromTarget", { sessionId }))
        .catch(() => {});
    } catch {
      // closed meanwhile: as if it closed right after Chrome made it
    }
    return made;
  }

  /** @internal a client's message, already parsed and checked. */
  forward(client: MuxClient, m: Message, sessionId: string): void {
    if (m.method === "Target.createTarget" && navigatesAway(m.params?.url)) return this.openFor(client, m, sessionId);
    const id = this.nextId++;
    this.pending.set(id, { kind: "client", client, id: m.id, method: String(m.method) });
    this.writePipe(JSON.stringify({ ...m, id, sessionId }));
  }

  private openFor(client: MuxClient, m: Message, sessionId: string): void {
    const reply = (body: { result: Record<string, unknown> } | { error: unknown }) => {
      if (this.clients.has(client)) client.deliver({ id: m.id as number, ...body, sessionId });
    };
    this.openTarget(m.params ?? {}).then(
      (result) => reply({ result }),
      (e: unknown) => reply({ error: e instanceof ProtocolReplyError ? e.error : { code: -32000, message: e instanceof Error ? e.message : String(e) } }),
    );
  }

  /** @internal */
  owns(client: MuxClient, sessionId: string): boolean {
    return this.owners.get(sessionId) === client;
  }

  /** @internal forgets a client and detaches its sessions (children first, then its root). */
  release(client: MuxClient): void {
    if (!this.clients.delete(client)) return;
    for (const [s, c] of this.owners) if (c === client) this.owners.delete(s);
    for (const [id, p] of this.pending) if (p.kind === "client" && p.client === client) this.pending.delete(id);
    if (this.ended) return;
    this.call("Target.detachFromTarget", { sessionId: client.root }).catch(() => {
      // the target is gone already
    });
  }

  /**
   * Routes a message without parsing it where its shape allows: Chrome writes a reply as `{"id":N,…}` and an
   * event as `{"method":"…",…}`, with the sessionId last. Large answers (screenshots, DOM and AX trees) then
   * cost no JSON parse and stringify here. Target events and replies to attach calls are parsed (they change
   * who owns what), as is anything of another shape.
   */
  private fastRoute(text: string): boolean {
    const tail = SESSION_TAIL.exec(text.slice(-120));
    if (!tail) return false;
    const sessionId = tail[1]!;
    const withoutSession = () => `${text.slice(0, text.length - tail[0].length)}}`;
    const reply = REPLY_HEAD.exec(text);
    if (reply) {
      const p = this.pending.get(Number(reply[1]));
      if (!p || p.kind !== "client" || p.method.startsWith("Target.")) return false;
      const body = sessionId === p.client.root ? withoutSession() : text;
      if (body.length <= reply[0].length + 1) return false;
      this.pending.delete(Number(reply[1]));
      if (!this.clients.has(p.client)) return true;
      p.client.deliverText(`{"id":${JSON.stringify(p.id)},${body.slice(reply[0].length)}`);
      return true;
    }
    const event = EVENT_HEAD.exec(text);
    if (!event || event[1]!.startsWith("Target.")) return false;
    const owner = this.owners.get(sessionId);
    if (owner) owner.deliverText(sessionId === owner.root ? withoutSession() : text);
    return true;
  }

  private onPipeMessage(text: string): void {
    if (this.fastRoute(text)) return;
    let m: Message;
    try {
      m = JSON.parse(text) as Message;
    } catch {
      this.log("Chrome sent a message that is not JSON: dropped");
      return;
    }
    if (typeof m.id === "number") return this.onReply(m.id, m);
    if (typeof m.method !== "string") return;
    if (m.method === "Target.detachedFromTarget" && !m.sessionId) {
      // A root session of ours ended (its page closed): its client ends as Chrome's own socket would.
      const s = String(m.params?.sessionId ?? "");
      const c = this.owners.get(s);
      if (c?.root === s) c.drop("the target closed");
      return;
    }
    const owner = m.sessionId ? this.owners.get(m.sessionId) : undefined;
    if (!owner) return;
    const child = typeof m.params?.sessionId === "string" ? m.params.sessionId : undefined;
    if (m.method === "Target.attachedToTarget" && child) this.owners.set(child, owner);
    if (m.method === "Target.detachedFromTarget" && child && this.owners.get(child) === owner) this.owners.delete(child);
    owner.deliver(m);
  }

  private onReply(id: number, m: Message): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    if (p.kind === "own") return p.resolve(m);
    if (!this.clients.has(p.client)) return;
    const child = m.result?.sessionId;
    if ((p.method === "Target.attachToTarget" || p.method === "Target.attachToBrowserTarget") && typeof child === "string") this.owners.set(child, p.client);
    p.client.deliver({ ...m, id: p.id as number });
  }
}

export class MuxClient {
  private closed = false;

  constructor(private readonly mux: PipeMux, private readonly sink: MuxClientSink, readonly root: string) {}

  /** A message the client sent (text of one WebSocket frame). */
  receive(text: string): void {
    if (this.closed) return;
    let m: Message;
    try {
      m = JSON.parse(text) as Message;
    } catch {
      return this.sink.send(JSON.stringify({ error: { code: -32700, message: "Message must be a valid JSON" } }));
    }
    if (!m || typeof m !== "object" || typeof m.id !== "number" || typeof m.method !== "string") {
      return this.sink.send(JSON.stringify({ id: (m as Message | null)?.id ?? null, error: { code: -32600, message: "Message must have integer 'id' and string 'method' properties" } }));
    }
    if (m.sessionId !== undefined && (typeof m.sessionId !== "string" || !this.mux.owns(this, m.sessionId))) {
      return this.sink.send(JSON.stringify({ id: m.id, error: { code: -32001, message: `Session with given id not found.` } }));
    }
    this.mux.forward(this, m, m.sessionId ?? this.root);
  }

  /** @internal a message from Chrome for this client, already in its final form. */
  deliverText(text: string): void {
    if (!this.closed) this.sink.send(text);
  }

  /** @internal a message from Chrome for this client: its root session's id is taken out. */
  deliver(m: Message): void {
    if (this.closed) return;
    if (m.sessionId === this.root) {
      const { sessionId: _drop, ...rest } = m;
      this.sink.send(JSON.stringify(rest));
    } else this.sink.send(JSON.stringify(m));
  }

  /** The client left: its sessions are detached. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.mux.release(this);
  }

  /** @internal Chrome ended the client's root session. */
  drop(reason: string): void {
    if (this.closed) return;
    this.close();
    this.sink.close(reason);
  }
}
