// Fixture HTTP server for e2e tests. One listener on all interfaces, reached as two origins:
// http://localhost:PORT and http://127.0.0.1:PORT are different *sites*, so a page on one embedding an
// iframe from the other is a real out-of-process iframe (OOPIF) in Chrome.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { AddressInfo } from "node:net";
import { handleLogin } from "./login.js";

export type FixtureHost = "localhost" | "127.0.0.1";

export interface FixtureServer {
  port: number;
  /** Absolute URL of `path` (e.g. "forms.html" or "/slow?ms=100") on the given host (default localhost). */
  url(path: string, host?: FixtureHost): string;
  close(): Promise<void>;
}

/** What /download serves. */
export const DOWNLOAD_BODY = "svc download fixture: these bytes are the file\n";

/** Rows in the generated /large.html (each row: 9 elements, one button, one link). */
export const LARGE_ROWS = 600;

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};

/** fixtures/pages, found by walking up from this file (works from the .ts source and from a build). */
function pagesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "fixtures", "pages");
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error("fixtures/pages not found above " + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

export function renderLargePage(rows = LARGE_ROWS): string {
  const body: string[] = [];
  for (let i = 1; i <= rows; i++) {
    body.push(
      `<tr><td>${i}</td><td><span>Item ${i}</span></td><td>Description of item ${i}</td>` +
        `<td><button id="row-${i}-button">Edit item ${i}</button></td>` +
        `<td><a id="row-${i}-link" href="#row-${i}">Open item ${i}</a></td></tr>`,
    );
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Large page</title></head>
<body>
<h1>Large page</h1>
<output id="result" aria-live="polite"></output>
<table id="items"><thead><tr><th>#</th><th>Name</th><th>Description</th><th>Edit</th><th>Open</th></tr></thead>
<tbody>
${body.join("\n")}
</tbody></table>
<button id="last-button">Last button</button>
<script>
document.addEventListener("click", (e) => {
  const el = e.target.closest("button, a");
  if (el) document.getElementById("result").textContent = "clicked: " + el.id;
});
</script>
</body></html>
`;
}

export async function startFixtureServer(): Promise<FixtureServer> {
  const root = pagesDir();
  const timers = new Set<NodeJS.Timeout>();
  /** Downloads held half-sent until the test releases them (`/download?gate=G`). */
  const gates = new Map<string, () => void>();

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, "text/plain; charset=utf-8", String(err));
      else res.destroy();
    });
  });

  function send(res: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
    res.writeHead(status, { "content-type": type, "cache-control": "no-store", ...extra });
    res.end(body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const port = (server.address() as AddressInfo).port;
    const host = (req.headers.host ?? `localhost:${port}`).toLowerCase();
    const self = `http://${host}`;
    const other = host.startsWith("localhost") ? `http://127.0.0.1:${port}` : `http://localhost:${port}`;
    const url = new URL(req.url ?? "/", self);

    if (await handleLogin(req, res, url.pathname)) return;

    if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, "text/plain", "method not allowed");

    if (url.pathname === "/large.html") return send(res, 200, CONTENT_TYPES[".html"]!, renderLargePage());

    if (url.pathname === "/slow") {
      const ms = Math.min(Math.max(Number(url.searchParams.get("ms") ?? "0") || 0, 0), 30_000);
      // `page=forms.html`: that fixture page, answered late (a navigation whose new document commits late).
      const page = url.searchParams.get("page");
      const html = page && /^[\w-]+\.html$/.test(page) ? await readFile(join(root, page), "utf8") : `<!doctype html><title>Slow</title><p id="slow">waited ${ms} ms</p>\n`;
      const timer = setTimeout(() => {
        timers.delete(timer);
        send(res, 200, CONTENT_TYPES[".html"]!, html);
      }, ms);
      timers.add(timer);
      req.on("close", () => {
        if (!res.writableEnded) {
          clearTimeout(timer);
          timers.delete(timer);
        }
      });
      return;
    }

    // A file the browser downloads (Content-Disposition: attachment): `name` is its suggested name, the body
    // DOWNLOAD_BODY (`bytes=N`: N bytes of it, repeated).
    if (url.pathname === "/download") {
      const name = (url.searchParams.get("name") ?? "report.txt").replace(/["\\\r\n]/g, "_");
      const bytes = Math.min(Math.max(Number(url.searchParams.get("bytes") ?? "0") || 0, 0), 10_000_000);
      const body = bytes ? DOWNLOAD_BODY.repeat(Math.ceil(bytes / DOWNLOAD_BODY.length)).slice(0, bytes) : DOWNLOAD_BODY;
      const headers = { "content-disposition": `attachment; filename="${name}"` };
      const ms = Math.min(Math.max(Number(url.searchParams.get("ms") ?? "0") || 0, 0), 30_000);
      const gate = url.searchParams.get("gate");
      if (!ms && !gate) return send(res, 200, "application/octet-stream", body, headers);
      // `ms=N`: the first half now, the rest N ms later (a download still running when its command exits).
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(Buffer.byteLength(body)), "cache-control": "no-store", ...headers });
      const half = Math.floor(body.length / 2);
      res.write(body.slice(0, half));
      // `gate=G`: the rest when /download-release?gate=G is asked for (or after 30 s), whatever the machine's load.
      const timer = setTimeout(finish, gate ? 30_000 : ms);
      timers.add(timer);
      function finish() {
        clearTimeout(timer);
        timers.delete(timer);
        if (gate) gates.delete(gate);
        if (!res.writableEnded) res.end(body.slice(half));
      }
      if (gate) gates.set(gate, finish);
      return;
    }
    if (url.pathname === "/download-release") {
      const release = gates.get(url.searchParams.get("gate") ?? "");
      release?.();
      return send(res, release ? 200 : 404, "text/plain", release ? "released" : "no such gate");
    }

    // The request's own headers as JSON (user agent, Accept-Language, extra headers a browser was told to send).
    if (url.pathname === "/echo-headers") return send(res, 200, "application/json", JSON.stringify(req.headers));

    if (url.pathname === "/redirect") {
      const to = url.searchParams.get("to");
      if (!to) return send(res, 400, "text/plain", "missing ?to=");
      return send(res, 302, "text/plain", `redirect to ${to}`, { location: to });
    }

    // Static files under fixtures/pages; refuse anything that escapes it.
    let rel = "";
    try {
      rel = normalize(decodeURIComponent(url.pathname)).replace(/^[/\\]+/, "");
    } catch {
      // malformed %-escape: falls through to 404
    }
    const file = join(root, rel);
    const type = CONTENT_TYPES[extname(file)];
    if (!rel || !file.startsWith(root + sep) || !type || !existsSync(file)) {
      return send(res, 404, "text/plain", "not found");
    }
    const data = await readFile(file);
    if (extname(file) !== ".html") return send(res, 200, type, data);
    const html = data.toString("utf8").replaceAll("{{OTHER}}", other).replaceAll("{{SELF}}", self);
    return send(res, 200, type, html);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    // No host: listens on :: (dual-stack) or 0.0.0.0, so both localhost and 127.0.0.1 reach it.
    server.listen(0, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    port,
    url(path: string, host: FixtureHost = "localhost"): string {
      return `http://${host}:${port}${path.startsWith("/") ? path : "/" + path}`;
    },
    close(): Promise<void> {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      return closeServer(server);
    },
  };
}

/**
 * Stops a test's HTTP server now. `close()` alone waits for every open connection, and a socket Chrome opened
 * ahead of a request (a preconnect) stays open until Node's 60 s header timeout: a file's afterAll then idled a
 * minute (test/cli/console.test.ts).
 */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    server.closeAllConnections();
  });
}
