/**
 * The library's `platform` module against a platform stub on loopback: validation before any request (the
 * stub sees nothing), the request's path, key and body, the answer's shape and casing, 429 backoff that
 * honours Retry-After (seconds and HTTP date) within a bounded number of attempts, error mapping, fetch,
 * and which search backend a configuration gets.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  ServiceApiError,
  ServiceEnvironmentError,
  ServiceInvalidArgumentError,
  ServiceRateLimitError,
  ServiceSearchNotConfiguredError,
  ServiceTimeoutError,
} from "../../src/errors.js";
import { retryAfterMs } from "../../src/platform/backoff.js";
import { SearchRequestSchema, validateSearch } from "../../src/platform/search.js";
import { SearxngSearch } from "../../src/platform/searxng.js";
import { DEFAULT_PLATFORM_URL, PlatformSearch, platform, searchBackendFor } from "../../src/platform/web.js";
import { startStub, type Stub, type StubReply } from "../support/search-stub.js";
import { SLACK_MS } from "../support/timing.js";

const KEY = "platform-key-123";
const stubs: Stub[] = [];
async function stub(handler: Parameters<typeof startStub>[0]): Promise<Stub> {
  const s = await startStub(handler);
  stubs.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((s) => s.close()));
});

const RESULTS = [
  { id: "r1", url: "https://a.example/1", title: "First", author: "Ann", favicon: "https://a.example/favicon.ico", image: null, publishedDate: "2024-01-02T03:04:05.000Z" },
  { id: "r2", url: "https://b.example/2", title: "Second", author: null, favicon: null, image: "https://b.example/i.png", publishedDate: null },
];
const answer = (req: { body: unknown }): StubReply => ({ json: { query: (req.body as { query: string }).query, requestId: "req-42", results: RESULTS } });

describe("validation (docs/wire-formats.md: Library operations, Limits)", () => {
  it("names the field and the rule", () => {
    expect(() => validateSearch("", 5)).toThrow("query: 1 to 200 characters (got 0)");
    expect(() => validateSearch("   ", 5)).toThrow("query: 1 to 200 characters (got 0)");
    expect(() => validateSearch("x".repeat(201))).toThrow("query: 1 to 200 characters (got 201)");
    expect(() => validateSearch("x", 30)).toThrow("numResults: an integer 1 to 25 (got 30)");
    expect(() => validateSearch("x", 0)).toThrow("numResults: an integer 1 to 25 (got 0)");
    expect(() => validateSearch("x", 2.5)).toThrow("numResults: an integer 1 to 25 (got 2.5)");
    expect(() => validateSearch(42 as unknown as string)).toThrow(ServiceInvalidArgumentError);
    expect(validateSearch("x".repeat(200))).toEqual({ query: "x".repeat(200), numResults: 10 });
    // Characters, not UTF-16 units: 200 emoji are 200 characters.
    expect(validateSearch("🌿".repeat(200), 25).numResults).toBe(25);
  });

  it("the one schema (also the server route's) defaults numResults to 10 and trims the query", () => {
    expect(SearchRequestSchema.parse({ query: "  fern  " })).toEqual({ query: "fern", numResults: 10 });
    expect(SearchRequestSchema.safeParse({ query: "fern", numResults: 26 }).success).toBe(false);
  });

  it("platform.search sends nothing for invalid input", async () => {
    const s = await stub(answer);
    const bad: Array<[string, number | undefined, string]> = [
      ["", undefined, "query: 1 to 200 characters (got 0)"],
      ["  ", 5, "query: 1 to 200 characters (got 0)"],
      ["q".repeat(201), 5, "query: 1 to 200 characters (got 201)"],
      ["fern", 0, "numResults: an integer 1 to 25 (got 0)"],
      ["fern", 26, "numResults: an integer 1 to 25 (got 26)"],
      ["fern", 1.5, "numResults: an integer 1 to 25 (got 1.5)"],
    ];
    for (const [q, n, message] of bad) {
      const e = await platform.search(KEY, q, n, s.url).catch((x: unknown) => x);
      expect(e, q).toBeInstanceOf(ServiceInvalidArgumentError);
      expect((e as Error).message).toBe(message);
    }
    await expect(platform.search("", "fern", 5, s.url)).rejects.toThrow(/apiKey/);
    await expect(platform.search(KEY, "fern", 5, "not a url")).rejects.toBeInstanceOf(ServiceInvalidArgumentError);
    expect(s.requests).toHaveLength(0);
  });
});

describe("platform.search", () => {
  it("POSTs {query, numResults} to /v1/search with the key; the answer keeps the documented keys' casing and order", async () => {
    const s = await stub(answer);
    const r = await platform.search(KEY, "  boston fern ", undefined, `${s.url}/`);
    expect(s.requests).toHaveLength(1);
    const req = s.requests[0]!;
    expect(req).toMatchObject({ method: "POST", path: "/v1/search", body: { query: "boston fern", numResults: 10 } });
    expect(req.headers["x-bb-api-key"]).toBe(KEY);
    expect(req.headers["content-type"]).toBe("application/json");
    expect(r).toEqual({ query: "boston fern", requestId: "req-42", results: RESULTS });
    expect(Object.keys(r.results[0]!)).toEqual(["id", "title", "url", "author", "favicon", "image", "publishedDate"]);

    // A base URL that ends in /v1 is the same origin.
    await platform.search(KEY, "fern", 3, `${s.url}/v1`);
    expect(s.requests[1]).toMatchObject({ path: "/v1/search", body: { numResults: 3 } });
  });

  it("defaults to the public platform origin", () => {
    expect(new PlatformSearch(KEY).baseUrl).toBe(DEFAULT_PLATFORM_URL);
  });

  it("missing nullable fields become null; a wrong shape is an API error naming the field", async () => {
    const sparse = await stub(() => ({ json: { query: "q", requestId: "r", results: [{ id: "1", url: "https://x.example/", title: "X" }] } }));
    expect((await platform.search(KEY, "q", 1, sparse.url)).results[0]).toEqual({ id: "1", url: "https://x.example/", title: "X", author: null, favicon: null, image: null, publishedDate: null });
    const wrong = await stub(() => ({ json: { query: "q", request_id: "r", results: [] } }));
    const e = await platform.search(KEY, "q", 1, wrong.url).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServiceApiError);
    expect((e as Error).message).toMatch(/unexpected answer: requestId/);
  });

  it("maps error answers: 401 key, 400 input, 501 no backend, a coded error to its class", async () => {
    const s = await stub((req) => {
      const q = (req.body as { query: string }).query;
      if (q === "k") return { status: 401, json: { message: "bad key" } };
      if (q === "i") return { status: 400, json: { message: "query: too long" } };
      if (q === "n") return { status: 501, json: { success: false, message: "search is not configured on this server" } };
      return { status: 504, json: { code: "TIMEOUT", message: "the backend did not answer" } };
    });
    await expect(platform.search(KEY, "k", 1, s.url)).rejects.toBeInstanceOf(ServiceEnvironmentError);
    await expect(platform.search(KEY, "i", 1, s.url)).rejects.toThrow(ServiceInvalidArgumentError);
    await expect(platform.search(KEY, "n", 1, s.url)).rejects.toThrow(ServiceSearchNotConfiguredError);
    await expect(platform.search(KEY, "t", 1, s.url)).rejects.toBeInstanceOf(ServiceTimeoutError);
  });
});

describe("429: back off and retry", () => {
  it("waits as long as Retry-After (seconds) says, then succeeds", async () => {
    const s = await stub((req, i) => (i === 0 ? { status: 429, headers: { "retry-after": "1" }, json: { message: "slow down" } } : answer(req)));
    const t0 = Date.now();
    const r = await platform.search(KEY, "fern", 2, s.url);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(s.requests).toHaveLength(2);
    expect(s.requests[1]!.at - s.requests[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(r.requestId).toBe("req-42");
  });

  it("honours Retry-After as an HTTP date", async () => {
    let until = 0;
    const s = await stub((req, i) => {
      if (i > 0) return answer(req);
      // Whole seconds (HTTP dates have no fractions): at least one second from now.
      until = (Math.floor(Date.now() / 1000) + 2) * 1000;
      return { status: 429, headers: { "retry-after": new Date(until).toUTCString() } };
    });
    await platform.search(KEY, "fern", 2, s.url);
    expect(s.requests).toHaveLength(2);
    expect(s.requests[1]!.at).toBeGreaterThanOrEqual(until - 20);
  });

  it("gives up after 4 attempts with ServiceRateLimitError", async () => {
    const s = await stub(() => ({ status: 429, headers: { "retry-after": "0" } }));
    const e = await platform.search(KEY, "fern", 2, s.url).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServiceRateLimitError);
    expect((e as ServiceRateLimitError).code).toBe("RATE_LIMITED");
    expect((e as Error).message).toMatch(/after 4 attempts/);
    expect(s.requests).toHaveLength(4);
  });

  it("without Retry-After the waits double", async () => {
    const s = await stub(() => ({ status: 429 }));
    const search = new PlatformSearch(KEY, s.url, { backoff: { baseDelayMs: 100 } });
    await expect(search.search("fern", 2)).rejects.toBeInstanceOf(ServiceRateLimitError);
    const at = s.requests.map((r) => r.at);
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    expect(gaps).toHaveLength(3);
    expect(gaps[0]).toBeGreaterThanOrEqual(95);
    expect(gaps[1]).toBeGreaterThanOrEqual(195);
    expect(gaps[2]).toBeGreaterThanOrEqual(395);
  });

  it("a wait longer than the cap fails at once, saying how long", async () => {
    const s = await stub(() => ({ status: 429, headers: { "retry-after": "120" } }));
    const t0 = Date.now();
    await expect(platform.search(KEY, "fern", 2, s.url)).rejects.toThrow(/asks to wait 120 s/);
    expect(Date.now() - t0).toBeLessThan(SLACK_MS);
    expect(s.requests).toHaveLength(1);
  });

  it("reads Retry-After", () => {
    expect(retryAfterMs("3")).toBe(3000);
    expect(retryAfterMs("0.25")).toBe(250);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs(new Date(1_000).toUTCString(), 4_000)).toBe(0);
    expect(retryAfterMs("soon")).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });
});

describe("platform.fetch", () => {
  const FETCHED = { id: "f1", content: "# Title", contentType: "text/html", encoding: "utf-8", headers: { "content-type": "text/html" }, statusCode: 200 };

  it("POSTs {url, format, schema?, allowRedirects?} to /v1/fetch and returns {id, content, …}", async () => {
    const s = await stub(() => ({ json: FETCHED }));
    const r = await platform.fetch(KEY, "https://example.org/a", "markdown", { baseUrl: s.url });
    expect(r).toEqual(FETCHED);
    expect(s.requests[0]).toMatchObject({ method: "POST", path: "/v1/fetch", body: { url: "https://example.org/a", format: "markdown" } });
    expect(s.requests[0]!.headers["x-bb-api-key"]).toBe(KEY);

    const schema = { type: "object", properties: { a: { type: "number" } } };
    await platform.fetch(KEY, "https://example.org/data.json", "json", { baseUrl: s.url, schema, allowRedirects: false });
    expect(s.requests[1]!.body).toEqual({ url: "https://example.org/data.json", format: "json", schema, allowRedirects: false });
  });

  it("rejects a bad URL, format or schema before any request", async () => {
    const s = await stub(() => ({ json: FETCHED }));
    await expect(platform.fetch(KEY, "example.org", "markdown", { baseUrl: s.url })).rejects.toThrow(/url: "example.org" is not an absolute http\(s\) URL/);
    await expect(platform.fetch(KEY, "file:///etc/passwd", "raw", { baseUrl: s.url })).rejects.toBeInstanceOf(ServiceInvalidArgumentError);
    await expect(platform.fetch(KEY, "https://example.org", "pdf" as "raw", { baseUrl: s.url })).rejects.toThrow(/format: one of/);
    await expect(platform.fetch(KEY, "https://example.org", "markdown", { baseUrl: s.url, schema: { type: "object" } })).rejects.toThrow(/schema: only with format "json"/);
    await expect(platform.fetch("", "https://example.org", "markdown", { baseUrl: s.url })).rejects.toThrow(/apiKey/);
    expect(s.requests).toHaveLength(0);
  });

  it("an answer without content is an API error; 429 is waited out as for search", async () => {
    const s = await stub((_req, i) => (i === 0 ? { status: 429, headers: { "retry-after": "0.2" } } : i === 1 ? { json: { id: "x" } } : { json: FETCHED }));
    await expect(platform.fetch(KEY, "https://example.org", "raw", { baseUrl: s.url })).rejects.toThrow(/unexpected answer: content/);
    expect(s.requests).toHaveLength(2);
  });
});

describe("search backend resolution", () => {
  it("a search URL → SearXNG; else the platform with a key; else none", () => {
    const sx = searchBackendFor({ searchUrl: "https://searx.example.org", platform: { apiKey: KEY } });
    expect(sx).toBeInstanceOf(SearxngSearch);
    expect((sx as SearxngSearch).endpoint).toBe("https://searx.example.org/search");
    const p = searchBackendFor({ searchUrl: " ", platform: { apiKey: KEY, baseUrl: "http://127.0.0.1:9/v1" } });
    expect(p).toBeInstanceOf(PlatformSearch);
    expect((p as PlatformSearch).baseUrl).toBe("http://127.0.0.1:9");
    expect(searchBackendFor({})).toBeUndefined();
    expect(searchBackendFor({ platform: { apiKey: "" } })).toBeUndefined();
  });
});

describe("public API (src/index.ts)", () => {
  it("exports the platform module, the backends and the schema", async () => {
    const lib = await import("../../src/index.js");
    expect(lib.platform.search).toBe(platform.search);
    expect(lib.platform.fetch).toBe(platform.fetch);
    expect(Object.keys(lib.platform).sort()).toEqual(["fetch", "search"]);
    expect(lib.SearxngSearch).toBe(SearxngSearch);
    expect(lib.PlatformSearch).toBe(PlatformSearch);
    expect(lib.SearchRequestSchema).toBe(SearchRequestSchema);
    expect(lib.searchBackendFor).toBe(searchBackendFor);
  });

  it("Service takes searchUrl (http(s) only)", async () => {
    const { Service } = await import("../../src/index.js");
    expect(() => new Service({ searchUrl: "https://searx.example.org" })).not.toThrow();
    expect(() => new Service({ searchUrl: "ftp://searx.example.org" })).toThrow(ServiceInvalidArgumentError);
  });
});
