/**
 * A request for another replica's session is forwarded there with undici (bodies streamed, so SSE arrives as sent),
 * the client's headers plus the cluster secret; it is never forwarded twice. A lapsed lease is a 410 at once; an
 * owner not connecting within the connect timeout is looked up again: 410 if lapsed by then, else 502. Nothing waits
 * longer on a dead owner.
 */
import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import type { Context, MiddlewareHandler } from "hono";
import { Agent, request } from "undici";
import type { Env } from "../app.js";
import { HttpError } from "../http/errors.js";
import { namedEvents } from "../http/sse.js";
import { ClientGoneError } from "../failures.js";
import { type Cluster, PEER_HEADER } from "./cluster.js";
import type { SessionKind } from "./store.js";

/** `GET /v1/sessions/{id}/<action>` routes of platform sessions (the others are the session API's). */
const PLATFORM_ACTIONS = new Set(["debug", "logs", "recording", "downloads"]);

/** Which session a path addresses, and of which kind; undefined for paths that address none. */
export function sessionOfPath(method: string, path: string): { kind: SessionKind; id: string } | undefined {
  const connect = /^\/v1\/(?:connect|live)\/([^/]+)\//.exec(path);
  if (connect) return { kind: "platform", id: safeDecode(connect[1]!) };
  const m = /^\/v1\/sessions\/([^/]+)(?:\/([^/]+))?\/?$/.exec(path);
  if (!m) return undefined;
  const id = safeDecode(m[1]!);
  const action = m[2];
  if (id === "start" && !action && method === "POST") return undefined;
  if (!action || PLATFORM_ACTIONS.has(action)) return { kind: "platform", id };
  return { kind: "api", id };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Headers that belong to one connection, not to the message (RFC 9110 §7.6.1), plus Host. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "host", "proxy-authorization", "proxy-authenticate"]);
const NULL_BODY = new Set([101, 204, 205, 304]);

export class Forwarder {
  private readonly agent: Agent;

  constructor(private readonly cluster: Cluster) {
    // No headers/body timeouts: an agent run answers when it is done, and an SSE stream may be quiet for long.
    this.agent = new Agent({ connect: { timeout: cluster.connectTimeoutMs }, headersTimeout: 0, bodyTimeout: 0, keepAliveTimeout: 30_000 });
  }

  /**
   * `POST /v1/sessions/start` attaching to a platform session (`browserbaseSessionID`) another replica
   * holds: the start runs there (the Service must sit next to its browser). Undefined: start it here.
   */
  async startElsewhere(c: Context<Env>, platformId: string): Promise<Response | undefined> {
    if (c.req.header(PEER_HEADER) !== undefined) return undefined;
    const where = await this.cluster.locate("platform", platformId);
    if ((where.at !== "peer" && where.at !== "gone") || where.stored.record.keyFingerprint !== c.get("owner")) return undefined;
    if (where.at === "gone") throw where.error;
    return this.forward(c, where.url, "platform", platformId, await c.req.text());
  }

  /** The middleware that forwards requests for other replicas' sessions (after auth: the caller's key is known). */
  middleware(): MiddlewareHandler<Env> {
    return async (c, next) => {
      const peer = this.cluster.isPeer(c.req.header(PEER_HEADER));
      if (peer === false) throw new HttpError(401, "invalid cluster credentials");
      const target = sessionOfPath(c.req.method, c.req.path);
      if (!target) return next();
      if (peer) {
        await this.cluster.ensureHeld(target.kind, target.id);
        this.cluster.touched(target.kind, target.id);
        return next();
      }
      const where = await this.cluster.locate(target.kind, target.id);
      if (where.at === "here") {
        await this.cluster.ensureHeld(target.kind, target.id);
        this.cluster.touched(target.kind, target.id);
        return next();
      }
      if (where.at === "unknown") return next();
      // Another key's session does not exist for this one (the CDP proxy's paths carry a token instead).
      const owner = c.get("owner") as string | undefined;
      if (owner !== undefined && where.stored.record.keyFingerprint !== owner) return next();
      if (where.at === "gone") throw where.error;
      return this.forward(c, where.url, target.kind, target.id);
    };
  }

  /**
   * Sends the request to `base` (another replica) and streams its answer back. `bodyText`: the body a
   * route already read (the request's own stream is then spent).
   */
  async forward(c: Context<Env>, base: string, kind: SessionKind, id: string, bodyText?: string): Promise<Response> {
    const url = new URL(c.req.url);
    const headers: Record<string, string> = {};
    c.req.raw.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name) && !(bodyText !== undefined && name === "content-length")) headers[name] = value;
    });
    headers[PEER_HEADER] = this.cluster.secret;
    const method = c.req.method;
    const body = bodyText ?? (method === "GET" || method === "HEAD" || !c.req.raw.body ? null : Readable.fromWeb(c.req.raw.body as import("node:stream/web").ReadableStream<Uint8Array>));
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(`${base}${url.pathname}${url.search}`, { method: method as "GET", headers, body, dispatcher: this.agent, signal: c.req.raw.signal });
    } catch (e) {
      if (c.req.raw.signal.aborted) throw new ClientGoneError("the client disconnected");
      const gone = await this.cluster.goneNow(kind, id);
      if (gone) throw gone;
      throw new HttpError(502, `the replica that owns session ${id} (${base}) did not answer: ${(e as { code?: string }).code ?? (e as Error).name}`);
    }
    const out = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      if (HOP_BY_HOP.has(name) || value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
    }
    if (NULL_BODY.has(res.statusCode) || method === "HEAD") {
      res.body.resume();
      return new Response(null, { status: res.statusCode, headers: out });
    }
    // The client leaving ends the upstream request too (the owner then sees its client disconnect).
    const sse = /^text\/event-stream/i.test(out.get("content-type") ?? "");
    const stream = sse ? withTerminalEvent(res.body, namedEvents(c), `the replica running session ${id} (${base}) went away mid-stream`) : (Readable.toWeb(res.body) as ReadableStream<Uint8Array>);
    return new Response(stream, { status: res.statusCode, headers: out });
  }

  async close(): Promise<void> {
    await this.agent.close().catch(() => {});
  }
}

/**
 * An SSE body passed on chunk by chunk; when the owner's connection breaks before the stream ended, the
 * client still gets the stream's terminal `error` event (http/sse.ts's shape, code REPLICA_GONE) instead of
 * a stream that just stops.
 */
function withTerminalEvent(body: Readable, named: boolean, message: string): ReadableStream<Uint8Array> {
  const it = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let tail = "";
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await it.next();
        if (done) return controller.close();
        tail = (tail + value.toString("latin1")).slice(-2);
        controller.enqueue(value);
      } catch {
        const data = JSON.stringify({ id: randomUUID(), type: "system", data: { status: "error", error: message, code: "REPLICA_GONE" } });
        controller.enqueue(new TextEncoder().encode(`${tail === "\n\n" ? "" : "\n\n"}${named ? "event: error\n" : ""}data: ${data}\n\n`));
        controller.close();
      }
    },
    cancel(reason) {
      body.destroy(reason instanceof Error ? reason : undefined);
    },
  });
}
