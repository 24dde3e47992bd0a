/**
 * Loopback HTTP stubs standing in for a SearXNG instance (its JSON API) and for the platform's search and
 * fetch routes. Each records every request it saw (so a test can assert that invalid input sent nothing)
 * and answers from a handler the test gives.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface StubRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** Date.now() when it arrived. */
  at: number;
}

export interface StubReply {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as JSON unless `text` is given. */
  json?: unknown;
  text?: string;
}

export interface Stub {
  /** `http://127.0.0.1:PORT` */
  url: string;
  requests: StubRequest[];
  close(): Promise<void>;
}

export async function startStub(handler: (req: StubRequest, index: number) => StubReply | Promise<StubReply>): Promise<Stub> {
  const requests: StubRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const u = new URL(req.url ?? "/", "http://stub");
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: unknown = raw;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        // keep the text
      }
      const r: StubRequest = { method: req.method ?? "GET", path: u.pathname, query: Object.fromEntries(u.searchParams), headers: req.headers, body, at: Date.now() };
      requests.push(r);
      void Promise.resolve(handler(r, requests.length - 1)).then((reply) => {
        const text = reply.text ?? (reply.json === undefined ? "" : JSON.stringify(reply.json));
        res.writeHead(reply.status ?? 200, { "content-type": reply.text !== undefined ? "text/html; charset=utf-8" : "application/json", ...reply.headers });
        res.end(text);
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A SearXNG result as its JSON API gives it. */
export function searxResult(n: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    url: `https://site${n}.example.org/page/${n}`,
    title: `Result ${n}`,
    content: `About result ${n}.`,
    engine: "duckduckgo",
    engines: ["duckduckgo"],
    score: 10 - n / 10,
    category: "general",
    template: "default.html",
    parsed_url: ["https", `site${n}.example.org`, `/page/${n}`, "", "", ""],
    img_src: "",
    thumbnail: "",
    publishedDate: null,
    ...extra,
  };
}

/**
 * A SearXNG stub: `GET …/search?q=…&format=json[&pageno=N]` answers `pages[N-1]` (an empty list past the
 * last page); any other format is refused with 403, as an instance without json in its formats does.
 */
export function startSearxng(pages: Record<string, unknown>[][]): Promise<Stub> {
  return startStub((req) => {
    if (!req.path.endsWith("/search")) return { status: 404, text: "<html>not found</html>" };
    if (req.query.format !== "json") return { status: 403, text: "<html>Forbidden</html>" };
    const page = Number(req.query.pageno ?? "1");
    return { json: { query: req.query.q, number_of_results: 0, results: pages[page - 1] ?? [], answers: [], corrections: [], infoboxes: [], suggestions: [], unresponsive_engines: [] } };
  });
}

/** A port nothing listens on (a server started and closed). */
export async function closedPort(): Promise<number> {
  const s = await startStub(() => ({}));
  const port = Number(new URL(s.url).port);
  await s.close();
  return port;
}
