/**
 * The CDP proxy: `/v1/connect/{id}/{token}/…` reaches the session's Chrome. WebSockets are relayed message by message
 * to one opened with no Origin (Chrome accepts none), through the tenant filter when isolated; json/ GETs are fetched
 * with URLs rewritten. The token is the credential: CDP clients cannot send a key header. A failure is an HTTP
 * answer, logged without the path (it holds the token).
 */
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer } from "ws";
import { devtoolsJson, ENDPOINT_HOST, unixWsEndpoint } from "../../util/devtools-socket.js";
import { TenantCdpFilter } from "./filter.js";
import { MAX_CDP_MESSAGE, relay } from "../relay.js";
import { isolated, type ServerConfig } from "../config.js";
import { errorBody, errorResponse, HttpError, isDeliberate, statusCode } from "../http/errors.js";
import type { PlatformSessions } from "../platform/chrome-sessions.js";
import { downloadsOnly } from "./downloads.js";
import { sessionDownloadsDir } from "../features/recorder-downloads.js";
import type { TargetPlaces } from "../features/target-watch.js";

const CONNECT_PATH = /^\/v1\/connect\/([^/]+)\/([^/]+)(\/.*)?$/;
/** What may be reached through the proxy: the DevTools protocol and frontend, nothing else Chrome serves. */
const ALLOWED = /^\/(json(\/.*)?|devtools\/.*)$/;
/** The WebSocket endpoints of Chrome's DevTools (the only ones an isolated tenant may open). */
const CDP_SOCKET = /^\/devtools\/(browser|page)\/([^/]+)$/;
const STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 410: "Gone", 429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable" };

/** A cluster's hook: takes over an upgrade for a session another replica owns (true), else false. */
export type UpgradeForward = (req: IncomingMessage, socket: Duplex, head: Buffer, wss: WebSocketServer) => Promise<boolean>;

/** What the tenant filter of an isolated server learns from the session features. */
export interface TenantHooks {
  /** The ids Chrome gave the session's uploaded extensions. */
  ownExtensions(sessionId: string): readonly string[];
  /** svc's own watch on the session's targets (features/target-watch.ts); none: the tenant is not let in. */
  watchOf(sessionId: string): TargetPlaces | undefined;
}

/** What else shares the server's upgrade path. */
export interface ProxyParts {
  /** A cluster's hook for sessions other replicas own. */
  forward?: UpgradeForward | undefined;
  tenants?: TenantHooks | undefined;
  /** The live view's sockets (/v1/live/…): true when it took the upgrade. */
  live?: ((req: IncomingMessage, socket: Duplex, head: Buffer, url: URL) => Promise<boolean>) | undefined;
}

export function attachCdpProxy(server: Server, platform: PlatformSessions, config: ServerConfig, parts: ProxyParts = {}): void {
  const { forward, tenants, live } = parts;
  const log = (line: string) => {
    try {
      config.log?.(line);
    } catch {
      // a failing log sink must not fail a connection
    }
  };
  const filtered = isolated(config);
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: MAX_CDP_MESSAGE });
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    upgrade(req, socket, head).catch((e: unknown) => {
      const answer = isDeliberate(e) ? errorResponse(e) : undefined;
      const status = answer?.status ?? 500;
      log(`cdp proxy: upgrade refused with ${status}: ${errorText(e)}`);
      reject(socket, status, answer?.message ?? "internal error", answer?.code);
    });
  });

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    if (String(req.headers.upgrade).toLowerCase() !== "websocket") throw new HttpError(400, "only WebSocket upgrades are served here");
    if (forward && (await forward(req, socket, head, wss))) return;
    const url = parseTarget(req.url);
    if (live && (await live(req, socket, head, url))) return;
    const m = CONNECT_PATH.exec(url.pathname);
    if (!m) throw new HttpError(404, "not found");
    const [, rawId = "", rawToken = "", rest = "/"] = m;
    if (!ALLOWED.test(rest)) throw new HttpError(404, "not found");
    const socketPath = CDP_SOCKET.exec(rest);
    if (filtered && !socketPath) throw new HttpError(404, "not found");
    const target = platform.connectTarget(decode(rawId, "session id"), decode(rawToken, "token"));
    if (!target.ok) throw target.error;
    const { socketPath: chromeSocket, session } = target;
    const places = filtered ? tenants?.watchOf(session.id) : undefined;
    if (filtered && !places) throw new HttpError(503, "svc is not watching this session's browser (its start failed or it is ending)");
    const pageTarget = filtered && socketPath?.[1] === "page" ? decode(socketPath[2]!, "target id") : undefined;
    if (places && pageTarget !== undefined) refuseInternalPage(places, pageTarget);

    const browser = await openBrowserSocket(unixWsEndpoint(chromeSocket, `${rest}${url.search}`));
    if (socket.destroyed) return browser.terminate();
    // A client of the session until its socket closes (the last one leaving may end the session).
    const leave = platform.clients.join(session.id);
    const unsubscribe = platform.onEnded(session.id, () => {
      browser.terminate();
      socket.destroy();
    });
    socket.once("close", () => {
      unsubscribe();
      browser.terminate();
      leave();
    });
    const browserGone = () => socket.destroy();
    browser.once("close", browserGone);
    wss.handleUpgrade(req, socket, head, (client) => {
      browser.off("close", browserGone);
      try {
        const filter = filtered ? new TenantCdpFilter({ ownExtensions: () => tenants?.ownExtensions(session.id) ?? [], downloadPath: sessionDownloadsDir(config, session), places, pageTarget }) : undefined;
        relay(client, browser, {
          ...(filter ? { fromClient: (d, b) => filter.fromClient(d, b), fromBrowser: (d, b) => filter.fromBrowser(d, b) } : { fromClient: downloadsOnly(sessionDownloadsDir(config, session)) }),
          onRefused: (what) => log(`cdp proxy: session ${session.id}: refused ${what}`),
          onError: (e) => log(`cdp proxy: session ${session.id}: relay failed: ${errorText(e)}`),
        });
      } catch (e) {
        log(`cdp proxy: session ${session.id}: relay failed: ${errorText(e)}`);
        client.terminate();
        browser.terminate();
      }
    });
  }
}

/** The request target as a URL; a target that is not a path (`//`, absolute forms that fail) is a 400. */
function parseTarget(raw: string | undefined): URL {
  try {
    return new URL(raw ?? "/", "http://proxy.invalid");
  } catch {
    throw new HttpError(400, "malformed request target");
  }
}

function decode(s: string, what: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new HttpError(400, `malformed percent-escape in the ${what}`);
  }
}

/** A page WebSocket only to a tenant's target: Chrome's own pages (chrome://, devtools://) hold privileged bindings. */
function refuseInternalPage(places: TargetPlaces, id: string): void {
  if (!places.known(id)) throw new HttpError(404, "no such page");
  if (places.refusal(id) !== undefined) throw new HttpError(403, "that page is browser-internal (chrome:, devtools: …): tenants do not drive it");
}

/** Opens the proxy's own WebSocket to Chrome's endpoint on its unix socket (no Origin): resolves once open. */
function openBrowserSocket(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: MAX_CDP_MESSAGE, handshakeTimeout: 10_000, followRedirects: false });
    ws.on("error", () => reject(new HttpError(502, "the session's browser did not answer")));
    ws.once("unexpected-response", (_req, res) => {
      res.resume();
      ws.terminate();
      reject(new HttpError(res.statusCode === 404 ? 404 : 502, `the session's browser refused the connection (HTTP ${res.statusCode ?? "?"})`));
    });
    ws.once("open", () => resolve(ws));
  });
}

function errorText(e: unknown): string {
  return String(e instanceof Error ? e.message : e).slice(0, 200);
}

function reject(socket: Duplex, status: number, message: string, code = statusCode(status)): void {
  if (socket.destroyed || !socket.writable) return void socket.destroy();
  const body = JSON.stringify(errorBody({ message, code }));
  socket.end(`HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? "Error"}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`, () => socket.destroy());
}

/**
 * A plain GET through the proxy (`rest` is the path after the token, with its query). JSON answers have
 * Chrome's address replaced by the proxied base, so the URLs in them work from the client's side. Throws
 * only deliberate errors (HttpError, the server's failures).
 */
export async function proxyCdpHttp(platform: PlatformSessions, id: string, token: string, rest: string): Promise<Response> {
  try {
    return await proxyHttp(platform, id, token, rest);
  } catch (e) {
    if (isDeliberate(e)) throw e;
    throw new HttpError(502, "the session's browser did not answer");
  }
}

async function proxyHttp(platform: PlatformSessions, id: string, token: string, rest: string): Promise<Response> {
  if (!rest.startsWith("/")) throw new HttpError(404, "not found");
  const target = platform.connectTarget(id, token);
  if (!target.ok) throw target.error;
  const local = ENDPOINT_HOST;
  let upstream: URL;
  try {
    upstream = new URL(`http://${local}${rest}`);
  } catch {
    throw new HttpError(400, "malformed path");
  }
  // Checked on the path Chrome will see (dot segments resolved), on Chrome's own host only.
  const path = upstream.pathname;
  if (upstream.host !== local || !ALLOWED.test(path)) throw new HttpError(404, "not found");
  let res: { status: number; type: string; text: string };
  try {
    res = await devtoolsJson(target.socketPath, `${path}${upstream.search}`, { timeoutMs: 10_000 });
  } catch {
    throw new HttpError(502, "the session's browser did not answer");
  }
  const type = res.type || "application/octet-stream";
  if (!/json/i.test(type) && !path.startsWith("/json")) return new Response(res.text, { status: res.status, headers: { "content-type": type } });
  const base = platform.connectBase(target.session);
  const secure = base.startsWith("https:");
  const hostBase = base.replace(/^https?:\/\//, "");
  const text = res.text
    .replaceAll(`ws://${local}`, `${secure ? "wss" : "ws"}://${hostBase}`)
    .replaceAll(`ws=${local}`, `${secure ? "wss" : "ws"}=${hostBase}`)
    .replaceAll(`http://${local}`, base)
    .replaceAll(local, hostBase)
    // devtoolsFrontendUrl is origin-relative ("/devtools/inspector.html?…"): keep it under the proxy.
    .replaceAll(`"/devtools/`, `"${base}/devtools/`);
  return new Response(text, { status: res.status, headers: { "content-type": type } });
}
