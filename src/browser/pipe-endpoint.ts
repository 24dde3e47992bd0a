/**
 * A DevTools endpoint of Chrome's own shape (`/json/*`, the browser and page WebSockets, each a client of
 * pipe-mux.ts), on a unix socket instead of a TCP port: the socket is 0600 in the 0700 run dir, so only the user who
 * started Chrome can connect and no other user finds a port to try. URLs in the JSON answers are built from the
 * request's Host, as Chrome does.
 */
import { chmodSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { serveInProcess } from "./cdp/local-endpoints.js";
import { MAX_CDP_MESSAGE, type MuxClient, type MuxClientSink, type PipeMux } from "./pipe-mux.js";

/** A client reading slower than Chrome writes to it is cut off past this many unsent bytes. */
const MAX_UNSENT = 2 * MAX_CDP_MESSAGE;
/** The Host header echoed in URLs: a name, an address or `localhost:port`; anything else is replaced. */
const SAFE_HOST = /^[A-Za-z0-9.\-_[\]:]{1,255}$/;

interface TargetInfo {
  targetId: string;
  type: string;
  title: string;
  url: string;
  attached?: boolean;
}

export async function serveDevtoolsEndpoint(options: { socketPath: string; mux: PipeMux; browserId: string; log?: (line: string) => void }): Promise<Server> {
  const { socketPath, mux, browserId } = options;
  const log = options.log ?? (() => {});
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: MAX_CDP_MESSAGE });
  const server = createServer((req, res) => {
    answer(req, res).catch((e: unknown) => send(res, 500, "text/plain", e instanceof Error ? e.message : String(e)));
  });
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    upgrade(req, socket, head).catch((e: unknown) => {
      log(`devtools endpoint: upgrade refused: ${e instanceof Error ? e.message : String(e)}`);
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    });
  });

  function host(req: IncomingMessage): string {
    const h = req.headers.host;
    return h && SAFE_HOST.test(h) ? h : "localhost";
  }

  function entry(t: TargetInfo, h: string): Record<string, unknown> {
    return { description: "", id: t.targetId, title: t.title, type: t.type, url: t.url, webSocketDebuggerUrl: `ws://${h}/devtools/page/${t.targetId}` };
  }

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://endpoint.invalid");
    const path = url.pathname.replace(/\/+$/, "");
    const h = host(req);
    if (path === "/json/version") {
      const v = await mux.call("Browser.getVersion");
      const webkit = /AppleWebKit\/([\d.]+)/.exec(String(v.userAgent))?.[1] ?? "";
      return json(res, 200, { Browser: v.product, "Protocol-Version": v.protocolVersion, "User-Agent": v.userAgent, "V8-Version": v.jsVersion, "WebKit-Version": `${webkit} (${String(v.revision)})`, webSocketDebuggerUrl: `ws://${h}/devtools/browser/${browserId}` });
    }
    if (path === "/json" || path === "/json/list") {
      const { targetInfos } = (await mux.call("Target.getTargets")) as { targetInfos: TargetInfo[] };
      return json(res, 200, targetInfos.filter((t) => t.type !== "browser" && t.type !== "tab").map((t) => entry(t, h)));
    }
    if (path === "/json/new") {
      // As Chrome: a GET could come from anything that follows a link.
      if (req.method !== "PUT") return send(res, 405, "text/plain", `Using unsafe HTTP verb ${String(req.method).slice(0, 16)} to invoke /json/new. This action supports only PUT verb.`);
      const target = url.search.length > 1 ? decodeURIComponent(url.search.slice(1)) : "about:blank";
      const { targetId } = (await mux.openTarget({ url: target })) as { targetId: string };
      const { targetInfo } = (await mux.call("Target.getTargetInfo", { targetId })) as { targetInfo: TargetInfo };
      return json(res, 200, entry(targetInfo, h));
    }
    const m = /^\/json\/(close|activate)\/([^/]+)$/.exec(path);
    if (m) {
      const id = decodeURIComponent(m[2]!);
      try {
        await mux.call(m[1] === "close" ? "Target.closeTarget" : "Target.activateTarget", { targetId: id });
      } catch {
        return send(res, 404, "text/plain", `No such target id: ${id}`);
      }
      return send(res, 200, "text/plain", m[1] === "close" ? "Target is closing" : "Target activated");
    }
    send(res, 404, "text/plain", "not found");
  }

  /** A client of the mux at a DevTools path: the browser (this endpoint's id only) or one page target. */
  async function attachAt(path: string, sink: MuxClientSink): Promise<MuxClient> {
    const m = /^\/devtools\/(browser|page)\/([^/]+)$/.exec(path);
    if (!m) throw new Error("not a DevTools socket path");
    const id = decodeURIComponent(m[2]!);
    if (m[1] === "browser" && id !== browserId) throw new Error("no such browser");
    return mux.attach(sink, m[1] === "page" ? id : undefined);
  }

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const path = new URL(req.url ?? "/", "http://endpoint.invalid").pathname;
    let ws: WebSocket | undefined;
    const early: string[] = [];
    const client = await attachAt(path, {
      send: (text) => {
        if (!ws) return void early.push(text);
        if (ws.readyState !== ws.OPEN) return;
        if (ws.bufferedAmount > MAX_UNSENT) return ws.terminate();
        ws.send(text);
      },
      close: () => ws?.close(1000) ?? socket.destroy(),
    });
    if (socket.destroyed) return client.close();
    socket.once("close", () => client.close());
    wss.handleUpgrade(req, socket, head, (open) => {
      ws = open;
      for (const text of early.splice(0)) open.send(text);
      open.on("message", (data, isBinary) => client.receive(isBinary ? Buffer.from(data as Buffer).toString("utf8") : String(data)));
      open.on("close", () => client.close());
      open.on("error", () => open.terminate());
    });
  }

  rmSync(socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => {
      server.off("error", reject);
      resolve();
    });
  });
  chmodSync(socketPath, 0o600);
  // This process's own clients of the endpoint skip the socket (cdp/local-endpoints.ts).
  const stopInProcess = serveInProcess(socketPath, attachAt);
  server.once("close", stopInProcess);
  return server;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, "application/json; charset=UTF-8", JSON.stringify(body, null, 2));
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { "Content-Type": type, "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}
