/**
 * `svc serve` POST /v1/search and /v1/fetch with a SearXNG-format stub on loopback: results in the documented
 * record's casing (docs/wire-formats.md); bad bodies are 400s that reach no backend; no backend is a 501; the per-key
 * rate limit (429 + Retry-After, search and fetch apart); fetch gives markdown; a multi-key server refuses loopback
 * and link-local targets, redirects included. No Chrome.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer, type ServerOptions } from "../../src/server/index.js";
import { resolveServerOptions } from "../../src/server/config.js";
import { RateLimiter } from "../../src/server/http/rate-limit.js";
import { NO_SEARCH_BACKEND } from "../../src/server/platform/routes-web.js";

const KEY = "web-key-one-00001";
const OTHER = "web-key-two-00002";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const cacheDir = mkdtempSync(join(tmpdir(), "svc-server-web-"));

/** Requests the stub saw, path and query. */
const seen: string[] = [];
let stub: Server;
let stubPort = 0;
const stubUrl = (path: string, host = "127.0.0.1") => `http://${host}:${stubPort}${path}`;
/** A non-loopback address of this machine, if it has one: a "remote" host that redirects to loopback. */
const lanIp = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && i.family === "IPv4" && !i.internal)?.address;

const ARTICLE = `<!doctype html><html><head><meta charset="utf-8"><title>Web article</title></head><body>
<nav><a href="/">Home</a> · <a href="/about">About</a></nav>
<article>
<h1>Search and fetch</h1>
<p>This article is long enough for a reader view to keep it. It explains how a page becomes markdown and why
the headings, links, tables and code blocks must survive the trip, paragraph after paragraph.</p>
<h2>Links</h2>
<p>See <a href="/docs/guide.html">the guide</a> and <a href="https://example.org/ref">the reference</a> for more.
Another sentence keeps this paragraph long enough to count as content for the extractor.</p>
<h2>Table</h2>
<table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>alpha</td><td>1</td></tr><tr><td>beta</td><td>2</td></tr></tbody></table>
<h2>Code</h2>
<pre><code class="language-ts">const answer: number = 42;</code></pre>
<p>The closing paragraph ends the article with a few more words about nothing in particular at all.</p>
</article>
<footer>Copyright nobody</footer>
</body></html>`;

function searxngResults(q: string, n: number) {
  return Array.from({ length: n }, (_, i) => ({
    url: `https://site${i + 1}.example.com/page/${i + 1}?q=${encodeURIComponent(q)}`,
    title: `Result ${i + 1} for ${q}`,
    content: `Snippet ${i + 1}`,
    engine: "stub",
    score: n - i,
    ...(i === 0 ? { publishedDate: "2024-05-01T10:00:00", author: "Ada", img_src: "https://site1.example.com/i.png" } : {}),
  }));
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? "/", "http://stub");
  seen.push(`${url.pathname}${url.search}`);
  const send = (status: number, type: string, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": type, ...headers });
    res.end(body);
  };
  // An instance with its JSON API disabled answers 403 to format=json.
  if (url.pathname.startsWith("/nojson/")) return send(403, "text/html", "<h1>403 Forbidden</h1>");
  switch (url.pathname) {
    case "/search": {
      const q = url.searchParams.get("q") ?? "";
      if (url.searchParams.get("format") !== "json") return send(403, "text/html", "<h1>403 Forbidden</h1>");
      return send(200, "application/json", JSON.stringify({ query: q, number_of_results: 12, results: searxngResults(q, 12), answers: [], suggestions: [] }));
    }
    case "/article.html":
      return send(200, "text/html; charset=utf-8", ARTICLE);
    case "/data.json":
      return send(200, "application/json", JSON.stringify({ name: "svc", items: [1, 2, 3] }));
    case "/big.txt":
      return send(200, "text/plain", "x".repeat(200_000));
    case "/slow":
      return; // never answers: the fetch deadline must end it
    case "/to-loopback":
      return send(302, "text/plain", "", { location: stubUrl("/article.html") });
    default:
      return send(404, "text/plain", "not found");
  }
}

let one: RunningServer; // one key, search backend, small fetch limits
let multi: RunningServer; // two keys, small rate limits
let bare: RunningServer; // no search backend
let dflt: RunningServer; // default rate limit
let guarded: RunningServer; // two keys, default limits: the fetch policy applies
let broken: RunningServer; // a search backend whose JSON API is off
const brokenLog: string[] = [];

const start = (extra: Partial<ServerOptions>) => startServer({ port: 0, apiKeys: [KEY], cacheDir, ...extra });

beforeAll(async () => {
  stub = createServer(handle);
  await new Promise<void>((resolve) => stub.listen(0, "0.0.0.0", resolve));
  stubPort = (stub.address() as AddressInfo).port;
  const searchUrl = stubUrl("");
  one = await start({ searchUrl, fetchTimeoutMs: 1500, fetchMaxBytes: 50_000 });
  multi = await start({ apiKeys: [KEY, OTHER], searchUrl, searchRateLimitPerMinute: 5, fetchRateLimitPerMinute: 3 });
  bare = await start({});
  dflt = await start({ searchUrl });
  // Isolated (two keys); the operator allows the stub by one name only, so a redirect from it to another
  // spelling of the same loopback address is still refused.
  guarded = await start({ apiKeys: [KEY, OTHER], allowNet: [`localhost:${stubPort}`] });
  broken = await start({ searchUrl: stubUrl("/nojson"), log: (line) => brokenLog.push(line) });
});

afterAll(async () => {
  await Promise.all([one, multi, bare, dflt, guarded, broken].map((s) => s?.close()));
  stub?.closeAllConnections();
  await new Promise<void>((resolve) => (stub ? stub.close(() => resolve()) : resolve()));
  rmSync(cacheDir, { recursive: true, force: true });
});

async function post(srv: RunningServer, path: string, body: unknown, key: string | null = KEY): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${srv.url}/v1${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { "x-bb-api-key": key } : {}) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

const searches = () => seen.filter((s) => s.startsWith("/search")).length;

describe("POST /v1/search", () => {
  it("passes the backend's ranked results through in the documented shape and casing", async () => {
    const before = searches();
    const r = await post(one, "/search", { query: "  browser automation  ", numResults: 3 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(searches()).toBe(before + 1);
    expect(seen.at(-1)).toContain("format=json");
    expect(Object.keys(r.body).sort()).toEqual(["query", "requestId", "results"]);
    expect(r.body.query).toBe("browser automation");
    expect(r.body.requestId).toMatch(UUID);
    expect(r.body.results).toHaveLength(3);
    expect(r.body.results.map((x: any) => x.title)).toEqual(["Result 1 for browser automation", "Result 2 for browser automation", "Result 3 for browser automation"]);
    for (const [i, x] of r.body.results.entries()) {
      // The seven fields of docs/wire-formats.md's search record, plus SearXNG's excerpt when given; optional ones
      // are left out when the backend had none (never null).
      const optional = i === 0 ? ["author", "image", "publishedDate"] : [];
      expect(Object.keys(x).sort()).toEqual([...optional, "favicon", "id", "snippet", "title", "url"].sort());
      expect(x.snippet).toBe(`Snippet ${i + 1}`);
      expect(x.id).toEqual(expect.any(String));
    }
    const first = r.body.results[0];
    expect(first.url).toMatch(/^https:\/\/site1\.example\.com\/page\/1/);
    expect(first.author).toBe("Ada");
    expect(first.image).toBe("https://site1.example.com/i.png");
    expect(new Date(first.publishedDate).toISOString().slice(0, 10)).toBe("2024-05-01");
    expect(first.favicon).toBe("https://site1.example.com/favicon.ico");
    expect(r.body.results[1]).not.toHaveProperty("publishedDate");
  });

  it("gives 10 results when numResults is not given", async () => {
    const r = await post(one, "/search", { query: "default count" });
    expect(r.status).toBe(200);
    expect(r.body.results).toHaveLength(10);
  });

  it("refuses bad bodies with a 400 naming the field, before asking the backend", async () => {
    const before = searches();
    const cases: [unknown, RegExp][] = [
      [{ query: "" }, /^query/],
      [{ query: "   " }, /^query/],
      [{ query: "x".repeat(201) }, /^query/],
      [{}, /^query/],
      [{ query: "ok", numResults: 0 }, /^numResults/],
      [{ query: "ok", numResults: 26 }, /^numResults/],
      [{ query: "ok", numResults: 2.5 }, /^numResults/],
      ["{not json", /^body: expected a JSON document/],
    ];
    for (const [body, message] of cases) {
      const r = await post(one, "/search", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.success).toBe(false);
      expect(r.body.message).toMatch(message);
    }
    expect(searches()).toBe(before);
  });

  it("answers 501 with how to configure one when the server has no backend", async () => {
    const r = await post(bare, "/search", { query: "anything" });
    expect(r.status).toBe(501);
    expect(r.body).toEqual({ success: false, message: NO_SEARCH_BACKEND, code: "NOT_IMPLEMENTED" });
    expect(r.body.message).toContain("--search-url");
  });

  it("a failing backend is a 502; why goes to the server's log, not to the client", async () => {
    const r = await post(broken, "/search", { query: "anything" });
    expect(r.status).toBe(502);
    expect(r.body).toEqual({ success: false, message: "the search backend failed (the server's log says why)", code: "BAD_GATEWAY" });
    expect(brokenLog.find((l) => l.startsWith("search backend failed: "))).toMatch(/json/i);
  });

  it("needs an API key", async () => {
    expect((await post(one, "/search", { query: "x" }, null)).status).toBe(401);
    expect((await post(one, "/search", { query: "x" }, "not-a-known-key")).status).toBe(401);
    expect((await post(one, "/fetch", { url: stubUrl("/article.html") }, null)).status).toBe(401);
  });
});

describe("rate limit", () => {
  it("the request past the limit gets 429 with Retry-After; other keys and fetch are not affected", async () => {
    for (let i = 0; i < 5; i++) expect((await post(multi, "/search", { query: `q${i}`, numResults: 1 })).status).toBe(200);
    const before = searches();
    const r = await post(multi, "/search", { query: "one too many", numResults: 1 });
    expect(r.status).toBe(429);
    const retry = Number(r.headers.get("retry-after"));
    expect(Number.isInteger(retry) && retry >= 1 && retry <= 60, `retry-after ${retry}`).toBe(true);
    expect(r.body).toEqual({ success: false, message: `rate limit: 5 search requests per minute per API key; retry in ${retry} s`, code: "TOO_MANY_REQUESTS" });
    expect(searches()).toBe(before);
    // Invalid bodies count too (they are requests), and are still refused with 429 first.
    expect((await post(multi, "/search", { query: "" })).status).toBe(429);
    expect((await post(multi, "/search", { query: "other key" }, OTHER)).status).toBe(200);
    expect((await post(multi, "/fetch", { url: "ftp://not-http/" })).status).toBe(400);
  });

  it("fetch has its own bucket with its own limit", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await post(multi, "/fetch", { url: "ftp://not-http/" }, OTHER)).status);
    expect(statuses).toEqual([400, 400, 400, 429]);
  });

  it("defaults to 120 requests per minute: the 121st is refused", async () => {
    expect(resolveServerOptions({ apiKeys: [KEY], cacheDir }).searchRateLimitPerMinute).toBe(120);
    expect(resolveServerOptions({ apiKeys: [KEY], cacheDir }).fetchRateLimitPerMinute).toBe(120);
    const statuses = await Promise.all(Array.from({ length: 120 }, (_, i) => post(dflt, "/search", { query: `burst ${i}`, numResults: 1 }).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(120);
    const r = await post(dflt, "/search", { query: "the 121st", numResults: 1 });
    expect(r.status).toBe(429);
    expect(r.body.message).toContain("120 search requests per minute");
  });

  it("frees a slot when the oldest request leaves the window (sliding, not fixed)", () => {
    let now = 1_000_000;
    const limiter = new RateLimiter(2, 60_000, () => now);
    expect(limiter.take("k")).toEqual({ ok: true });
    now += 20_000;
    expect(limiter.take("k")).toEqual({ ok: true });
    now += 10_000;
    expect(limiter.take("k")).toEqual({ ok: false, retryAfterS: 30 });
    expect(limiter.take("other")).toEqual({ ok: true });
    now += 30_000; // the first request is now a full window old
    expect(limiter.take("k")).toEqual({ ok: true });
    expect(limiter.take("k")).toEqual({ ok: false, retryAfterS: 20 });
  });
});

describe("POST /v1/fetch", () => {
  it("gives a page as markdown: headings, absolute links, the table and the code block survive", async () => {
    const r = await post(one, "/fetch", { url: stubUrl("/article.html"), format: "markdown" });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["content", "contentType", "encoding", "headers", "id", "statusCode"]);
    expect(r.body.id).toMatch(UUID);
    expect(r.body.statusCode).toBe(200);
    expect(r.body.contentType).toMatch(/^text\/html/);
    expect(r.body.encoding.toLowerCase()).toBe("utf-8");
    expect(r.body.headers["content-type"]).toBe("text/html; charset=utf-8");
    const md: string = r.body.content;
    expect(md).toMatch(/^#{1,2} Links$/m);
    expect(md).toContain(`[the guide](${stubUrl("/docs/guide.html")})`);
    expect(md).toContain("[the reference](https://example.org/ref)");
    expect(md).toMatch(/\|\s*Name\s*\|\s*Value\s*\|/);
    expect(md).toMatch(/\|\s*beta\s*\|\s*2\s*\|/);
    expect(md).toContain("```ts\nconst answer: number = 42;\n```");
    expect(md).not.toContain("Copyright nobody");
  });

  it("gives raw bodies and JSON; a schema is for json only", async () => {
    const raw = await post(one, "/fetch", { url: stubUrl("/article.html") });
    expect(raw.status).toBe(200);
    expect(raw.body.content).toBe(ARTICLE);
    const json = await post(one, "/fetch", { url: stubUrl("/data.json"), format: "json", schema: { type: "object", required: ["name"] } });
    expect(json.status, JSON.stringify(json.body)).toBe(200);
    expect(JSON.parse(json.body.content)).toEqual({ name: "svc", items: [1, 2, 3] });
    const mismatch = await post(one, "/fetch", { url: stubUrl("/data.json"), format: "json", schema: { type: "object", properties: { missing: { type: "string" } }, required: ["missing"] } });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.message).toMatch(/does not match the schema/);
    expect(mismatch.body.code).toBe("FETCH_FAILED");
    const misplaced = await post(one, "/fetch", { url: stubUrl("/data.json"), format: "markdown", schema: { type: "object" } });
    expect(misplaced.status).toBe(400);
    expect(misplaced.body.message).toBe('schema: only with format "json"');
  });

  it("refuses bad bodies with a 400 naming the field", async () => {
    for (const [body, field] of [
      [{}, "url"],
      [{ url: "ftp://example.com/x" }, "url"],
      [{ url: "not a url" }, "url"],
      [{ url: "https://example.com/", format: "pdf" }, "format"],
      [{ url: "https://example.com/", allowRedirects: "yes" }, "allowRedirects"],
    ] as const) {
      const r = await post(one, "/fetch", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message.startsWith(`${field}:`), r.body.message).toBe(true);
    }
  });

  it("a body over the size limit is a 422 naming the limit; a target that never answers is a 504, one that refuses a 502", async () => {
    const big = await post(one, "/fetch", { url: stubUrl("/big.txt") });
    expect(big.status).toBe(422);
    expect(big.body.message).toMatch(/50000|48\.8 KiB|50 kB/);
    const t0 = Date.now();
    const slow = await post(one, "/fetch", { url: stubUrl("/slow") });
    expect(slow.status).toBe(504);
    expect(slow.body.message).toBe(`fetching ${stubUrl("/slow")} did not finish within the server's limit of 1500 ms`);
    expect(Date.now() - t0).toBeLessThan(10_000);
    const gone = createServer();
    await new Promise<void>((resolve) => gone.listen(0, "127.0.0.1", resolve));
    const gonePort = (gone.address() as AddressInfo).port;
    await new Promise<void>((resolve) => gone.close(() => resolve()));
    const closed = await post(one, "/fetch", { url: `http://127.0.0.1:${gonePort}/` });
    expect(closed.status).toBe(502);
    expect(closed.body.message).toMatch(/ECONNREFUSED/);
  });

  it("on a one-key server loopback is allowed, redirects included", async () => {
    const r = await post(one, "/fetch", { url: stubUrl("/to-loopback", "localhost"), format: "markdown" });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.content).toContain("Search and fetch");
  });

  it("on a server with several keys loopback, private and link-local targets are refused with 400, before any request", async () => {
    const before = seen.length;
    for (const url of [
      stubUrl("/article.html"),
      stubUrl("/article.html", "127.1"),
      stubUrl("/article.html", "[::1]"),
      stubUrl("/article.html", "[::ffff:127.0.0.1]"),
      stubUrl("/article.html", "0.0.0.0"),
      ...(lanIp ? [stubUrl("/article.html", lanIp)] : []),
      "http://169.254.169.254/latest/meta-data/",
      "http://10.1.2.3/",
    ]) {
      const r = await post(guarded, "/fetch", { url, format: "markdown" });
      expect(r.status, `${url}: ${JSON.stringify(r.body)}`).toBe(400);
      expect(r.body.message).toMatch(/is a loopback, private or link-local address, which this server's browsers and fetches do not reach/);
      expect(r.body.code).toBe("INVALID_ARGUMENT");
    }
    expect(seen.length).toBe(before);
  });

  it("--allow-net lets exactly what it names through; a redirect from there to loopback is refused", async () => {
    const ok = await post(guarded, "/fetch", { url: stubUrl("/article.html", "localhost"), format: "markdown" });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const before = seen.filter((s) => s === "/article.html").length;
    const r = await post(guarded, "/fetch", { url: stubUrl("/to-loopback", "localhost") });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.message).toMatch(/redirect to http:\/\/127\.0\.0\.1:\d+\/article\.html .*127\.0\.0\.1 is a loopback, private or link-local address/);
    // The allowed name was asked (it answered the redirect); the loopback target never was.
    expect(seen.filter((s) => s === "/article.html").length).toBe(before);
  });
});
