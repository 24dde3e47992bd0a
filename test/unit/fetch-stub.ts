/**
 * A loopback HTTP stub for the fetch tests: routes are plain handlers; every request is recorded and
 * every connection's close is observable (to prove an oversize download was cut, not drained).
 */
import { type IncomingMessage, type ServerResponse, createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface Stub {
  origin: string;
  url(path: string): string;
  /** Paths requested, in order. */
  readonly requests: string[];
  /** Headers of the last request. */
  lastHeaders(): IncomingMessage["headers"] | undefined;
  /** Resolves when the socket that carried the last request to `path` is closed. */
  socketClosed(path: string): Promise<void>;
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

export async function startStub(routes: Record<string, Handler> = {}): Promise<Stub> {
  const table = new Map(Object.entries(routes));
  const requests: string[] = [];
  const sockets = new Map<string, Socket>();
  let last: IncomingMessage["headers"] | undefined;
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    requests.push(req.url ?? "/");
    last = req.headers;
    sockets.set(path, req.socket);
    const handler = table.get(path);
    if (handler) handler(req, res);
    else {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("no such stub route");
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (p) => origin + (p.startsWith("/") ? p : `/${p}`),
    requests,
    lastHeaders: () => last,
    socketClosed(path) {
      const s = sockets.get(path);
      if (!s) return Promise.reject(new Error(`no request to ${path} yet`));
      if (s.destroyed) return Promise.resolve();
      return new Promise((r) => s.once("close", () => r()));
    },
    route(path, handler) {
      table.set(path, handler);
    },
    close() {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

export function send(res: ServerResponse, status: number, type: string | undefined, body: string | Buffer, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...(type ? { "content-type": type } : {}), ...extra });
  res.end(body);
}

export function redirect(res: ServerResponse, status: number, location: string): void {
  res.writeHead(status, { location, "content-type": "text/html" });
  res.end(`<a href="${location}">moved</a>`);
}
