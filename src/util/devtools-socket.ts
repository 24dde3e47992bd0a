/**
 * Reaching a DevTools endpoint served on a unix socket (pipe-endpoint.ts): its WebSocket URLs are
 * `ws+unix://<socket path>:<request path>` (the form the `ws` package connects to), and its HTTP JSON
 * answers are fetched with node:http over the socket.
 */
import { request } from "node:http";

/** Largest /json answer read (a browser with hundreds of targets stays far below). */
const MAX_JSON_BYTES = 8 * 1024 * 1024;
/** The Host sent to the endpoint: the URLs it answers with carry it (`ws://devtools.localhost/…`). */
export const ENDPOINT_HOST = "devtools.localhost";

export function unixWsEndpoint(socketPath: string, path: string): string {
  return `ws+unix://${socketPath}:${path}`;
}

/** The socket path and request path of a `ws+unix:` URL; undefined for any other URL. */
export function parseUnixWsEndpoint(url: string): { socketPath: string; path: string } | undefined {
  const m = /^ws\+unix:\/\/(\/[^:]+):(\/.*)$/.exec(url);
  return m ? { socketPath: m[1]!, path: m[2]! } : undefined;
}

/** The DevTools path of a browser endpoint (`/devtools/browser/<id>`), whatever its transport. */
export function devtoolsPath(wsEndpoint: string): string | undefined {
  const unix = parseUnixWsEndpoint(wsEndpoint);
  if (unix) return unix.path;
  try {
    return new URL(wsEndpoint).pathname;
  } catch {
    return undefined;
  }
}

/**
 * An HTTP request to the endpoint on `socketPath`: its status, content type and body (parsed when JSON,
 * else the text). Rejects when the socket does not answer within `timeoutMs`.
 */
export function devtoolsJson(socketPath: string, path: string, options: { method?: string; timeoutMs?: number } = {}): Promise<{ status: number; type: string; body: unknown; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, method: options.method ?? "GET", headers: { host: ENDPOINT_HOST }, timeout: options.timeoutMs ?? 5000 }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (size > MAX_JSON_BYTES) return req.destroy(new Error(`the DevTools endpoint answered more than ${MAX_JSON_BYTES} bytes`));
        chunks.push(c);
      });
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const type = String(res.headers["content-type"] ?? "");
        let body: unknown = text;
        if (/json/i.test(type)) {
          try {
            body = JSON.parse(text);
          } catch {
            return reject(new Error("the DevTools endpoint answered malformed JSON"));
          }
        }
        resolve({ status: res.statusCode ?? 0, type, body, text });
      });
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error("the DevTools endpoint did not answer in time")));
    req.on("error", reject);
    req.end();
  });
}
