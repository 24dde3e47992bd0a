/**
 * A CLI session's live view, served by its host on 127.0.0.1 with `svc serve`'s page and viewer. The token is random
 * per session, compared in constant time; a foreign Host header is a 403, so a site resolving its name to 127.0.0.1
 * reaches nothing. Viewers are bounded (429 LIVE_VIEWERS). `ask()` shows Continue in every interactive viewer until
 * one answers, it times out or is withdrawn.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { type IncomingMessage, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import { LIVE_LIMITS } from "./messages.js";
import { livePage, livePageHeaders } from "./page-html.js";
import type { LiveSource } from "./source.js";
import { LIVE_SOCKET_OPTIONS, LiveViewer } from "./viewer.js";

/** Questions waiting at once, at most (an agent asks one at a time). */
const MAX_ASKS = 8;

export interface LocalLiveViewOptions {
  sessionId: string;
  source: LiveSource;
  log?: (line: string) => void;
}

/** What a person answered (answered false: timed out or withdrawn). */
export interface LiveAnswer {
  answered: boolean;
  reply?: string;
}

export interface LocalLiveView {
  /** http://127.0.0.1:PORT/live/{session}/{token} */
  readonly url: string;
  /** Sockets open now. */
  viewers(): number;
  /** Shows `message` to every interactive viewer until one presses Continue, `timeoutMs` passes, or `signal` aborts. */
  ask(message: string, timeoutMs: number, signal?: AbortSignal): Promise<LiveAnswer>;
  close(): Promise<void>;
}

interface Ask {
  message: string;
  timeoutMs: number;
  settle(answer: LiveAnswer): void;
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/** Why a request is refused (status, code, message), or undefined. */
type Refusal = { status: number; code: string; message: string };

export async function startLocalLiveView(o: LocalLiveViewOptions): Promise<LocalLiveView> {
  const log = o.log ?? (() => {});
  const token = randomBytes(32).toString("base64url");
  const tokenDigest = digest(token);
  const viewers = new Set<LiveViewer>();
  const asks = new Map<string, Ask>();
  const wss = new WebSocketServer(LIVE_SOCKET_OPTIONS);
  let port = 0;
  const base = `/live/${encodeURIComponent(o.sessionId)}/`;

  /** The request's route (page or socket) and its query, or why it is refused. */
  const route = (req: IncomingMessage): { socket: boolean; query: URLSearchParams } | Refusal => {
    const host = req.headers.host ?? "";
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) return { status: 403, code: "LIVE_HOST", message: `the live view answers only on 127.0.0.1:${port}` };
    const url = new URL(req.url ?? "/", `http://127.0.0.1:${port}`);
    if (!url.pathname.startsWith(base)) return { status: 404, code: "NOT_FOUND", message: "not found" };
    const rest = url.pathname.slice(base.length).split("/");
    if (rest.length > 2 || (rest.length === 2 && rest[1] !== "socket")) return { status: 404, code: "NOT_FOUND", message: "not found" };
    let given: string;
    try {
      given = decodeURIComponent(rest[0] ?? "");
    } catch {
      return { status: 400, code: "INVALID_ARGUMENT", message: "malformed percent-escape in the live view URL" };
    }
    if (!timingSafeEqual(digest(given), tokenDigest)) return { status: 401, code: "LIVE_TOKEN", message: "wrong live view token (svc view prints the session's URL)" };
    const tab = url.searchParams.get("tab");
    if (tab !== null && tab.length > 128) return { status: 400, code: "INVALID_ARGUMENT", message: "query.tab: longer than 128 characters" };
    return { socket: rest.length === 2, query: url.searchParams };
  };

  const answerHttp = (req: IncomingMessage, res: ServerResponse) => {
    const r = route(req);
    const refuse = (f: Refusal) => res.writeHead(f.status, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify({ error: { code: f.code, message: f.message } }));
    if ("status" in r) return refuse(r);
    if (r.socket) return refuse({ status: 426, code: "UPGRADE_REQUIRED", message: "the live view's socket is a WebSocket" });
    if (req.method !== "GET") return refuse({ status: 405, code: "METHOD_NOT_ALLOWED", message: "the live view page is read with GET" });
    const nonce = randomBytes(16).toString("base64");
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", ...livePageHeaders(nonce) }).end(livePage(nonce));
  };

  const answerUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => {});
    const r = route(req);
    const refuse = (f: Refusal) => {
      const body = JSON.stringify({ error: { code: f.code, message: f.message } });
      socket.end(`HTTP/1.1 ${f.status} ${f.code}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
    };
    if ("status" in r) return refuse(r);
    if (!r.socket) return refuse({ status: 404, code: "NOT_FOUND", message: "not found" });
    if (viewers.size >= LIVE_LIMITS.maxViewersPerSession) return refuse({ status: 429, code: "LIVE_VIEWERS", message: `session ${o.sessionId} has ${viewers.size} live viewers already (at most ${LIVE_LIMITS.maxViewersPerSession})` });
    wss.handleUpgrade(req, socket, head, (ws) => {
      const interactive = r.query.get("interactive") !== "false";
      const viewer = new LiveViewer({
        socket: ws,
        source: o.source,
        interactive,
        tab: r.query.get("tab") ?? undefined,
        answer: (id, reply) => asks.get(id)?.settle({ answered: true, ...(reply?.trim() ? { reply: reply.trim() } : {}) }),
        log,
      });
      viewers.add(viewer);
      ws.once("close", () => viewers.delete(viewer));
      viewer.start().catch((e: unknown) => log(`live view: ${String(e instanceof Error ? e.message : e).slice(0, 200)}`));
      for (const [id, a] of asks) viewer.notify({ type: "ask", id, message: a.message, timeoutMs: a.timeoutMs });
    });
  };

  const server = createServer(answerHttp);
  server.on("upgrade", answerUpgrade);
  server.on("clientError", (_e, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}${base}${token}`;

  return {
    url,
    viewers: () => viewers.size,
    ask(message, timeoutMs, signal) {
      if (asks.size >= MAX_ASKS) return Promise.reject(new Error(`${MAX_ASKS} questions are waiting already`));
      const id = randomUUID();
      return new Promise<LiveAnswer>((resolve) => {
        const settle = (answer: LiveAnswer) => {
          if (!asks.delete(id)) return;
          clearTimeout(timer);
          signal?.removeEventListener("abort", withdraw);
          for (const v of viewers) v.notify({ type: "asked", id });
          resolve(answer);
        };
        const withdraw = () => settle({ answered: false });
        const timer = setTimeout(withdraw, timeoutMs);
        timer.unref();
        asks.set(id, { message, timeoutMs, settle });
        if (signal?.aborted) return withdraw();
        signal?.addEventListener("abort", withdraw, { once: true });
        for (const v of viewers) v.notify({ type: "ask", id, message, timeoutMs });
      });
    },
    async close() {
      for (const a of [...asks.values()]) a.settle({ answered: false });
      for (const v of viewers) v.close();
      for (const c of wss.clients) c.terminate();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
