/**
 * The CDP proxy: `<origin>/v1/connect/{id}/{token}/…` reaches the session's Chrome. WebSocket upgrades
 * (devtools/browser/…, devtools/page/…) are forwarded as raw TCP after the handshake; plain GETs of
 * json/… and devtools/… (what connectOverCDP("http://…") and the DevTools frontend fetch) are fetched from
 * Chrome with the URLs in them rewritten to the proxied base. The token is the credential: CDP clients
 * cannot send an API key header.
 */
import type { IncomingMessage, Server } from "node:http";
import { connect as netConnect, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { HttpError } from "./http-error.js";
import type { PlatformSessions } from "./platform-sessions.js";

const CONNECT_PATH = /^\/v1\/connect\/([^/]+)\/([^/]+)(\/.*)?$/;
/** What may be reached through the proxy: the DevTools protocol and frontend, nothing else Chrome serves. */
const ALLOWED = /^\/(json(\/.*)?|devtools\/.*)$/;

export function attachCdpProxy(server: Server, platform: PlatformSessions): void {
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    const url = new URL(req.url ?? "/", "http://proxy.invalid");
    const m = CONNECT_PATH.exec(url.pathname);
    if (!m) return reject(socket, 404, "not found");
    const [, id = "", token = "", rest = "/"] = m;
    if (!ALLOWED.test(rest)) return reject(socket, 404, "not found");
    const target = platform.connectTarget(decodeURIComponent(id), decodeURIComponent(token));
    if (!target.ok) return reject(socket, target.status, target.message);
    const port = target.port;

    const upstream: Socket = netConnect(port, "127.0.0.1");
    const unsubscribe = platform.onEnded(target.session.id, () => closeBoth());
    let closed = false;
    function closeBoth(): void {
      if (closed) return;
      closed = true;
      unsubscribe();
      socket.destroy();
      upstream.destroy();
    }
    upstream.on("error", closeBoth);
    upstream.on("close", closeBoth);
    socket.on("close", closeBoth);
    upstream.once("connect", () => {
      // Chrome refuses a Host that is not an IP or localhost, and checks Origin against
      // --remote-allow-origins; it sees a local client.
      const lines = [`${req.method ?? "GET"} ${rest}${url.search} HTTP/1.1`, `Host: 127.0.0.1:${port}`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        const name = req.rawHeaders[i]!;
        if (/^(host|origin)$/i.test(name)) continue;
        lines.push(`${name}: ${req.rawHeaders[i + 1] ?? ""}`);
      }
      upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (head.length) upstream.write(head);
      upstream.setNoDelay(true);
      (socket as Socket).setNoDelay?.(true);
      socket.pipe(upstream);
      upstream.pipe(socket);
    });
  });
}

function reject(socket: Duplex, status: number, message: string): void {
  const reason = { 401: "Unauthorized", 404: "Not Found", 410: "Gone" }[status] ?? "Error";
  const body = JSON.stringify({ success: false, message });
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`, () => socket.destroy());
}

/**
 * A plain GET through the proxy (`rest` is the path after the token, with its query). JSON answers have
 * Chrome's address replaced by the proxied base, so the URLs in them work from the client's side.
 */
export async function proxyCdpHttp(platform: PlatformSessions, id: string, token: string, rest: string): Promise<Response> {
  const path = rest.split("?")[0] ?? "/";
  if (!ALLOWED.test(path)) throw new HttpError(404, "not found");
  const target = platform.connectTarget(id, token);
  if (!target.ok) throw new HttpError(target.status, target.message);
  const local = `127.0.0.1:${target.port}`;
  let res: Response;
  try {
    res = await fetch(`http://${local}${rest}`, { signal: AbortSignal.timeout(10_000) });
  } catch {
    throw new HttpError(502, "the session's browser did not answer");
  }
  const type = res.headers.get("content-type") ?? "application/octet-stream";
  if (!/json/i.test(type) && !path.startsWith("/json")) return new Response(res.body, { status: res.status, headers: { "content-type": type } });
  const base = platform.connectBase(target.session);
  const secure = base.startsWith("https:");
  const hostBase = base.replace(/^https?:\/\//, "");
  const text = (await res.text())
    .replaceAll(`ws://${local}`, `${secure ? "wss" : "ws"}://${hostBase}`)
    .replaceAll(`ws=${local}`, `${secure ? "wss" : "ws"}=${hostBase}`)
    .replaceAll(`http://${local}`, base)
    .replaceAll(local, hostBase)
    // devtoolsFrontendUrl is origin-relative ("/devtools/inspector.html?…"): keep it under the proxy.
    .replaceAll(`"/devtools/`, `"${base}/devtools/`);
  return new Response(text, { status: res.status, headers: { "content-type": type } });
}
