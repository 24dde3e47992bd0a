/**
 * SearxngSearch against a SearXNG-format stub on loopback: the JSON API request, the mapping to the documented
 * SearchResult (casing, canonical URL, stable id, favicon, image, ISO dates), relevance order, truncation and paging,
 * and the errors of a misconfigured or unreachable instance.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ServiceAbortedError, ServiceApiError, ServiceInvalidArgumentError, ServiceRateLimitError, ServiceSearchNotConfiguredError } from "../../src/errors.js";
import { SearxngSearch, canonicalUrl, fromSearxng, resultId } from "../../src/platform/searxng.js";
import { closedPort, searxResult, startSearxng, startStub, type Stub } from "../support/search-stub.js";

const stubs: Stub[] = [];
const track = async (s: Promise<Stub>) => {
  const stub = await s;
  stubs.push(stub);
  return stub;
};
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((s) => s.close()));
});

const page = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => searxResult(from + i));

describe("SearxngSearch", () => {
  it("asks the JSON API and maps results to the documented SearchResult keys, in SearXNG's order", async () => {
    const stub = await track(
      startSearxng([
        [
          searxResult(1, { publishedDate: "2024-03-01T12:30:00", author: "Ann Author", img_src: "//cdn.example.org/a.png", content: "A  snippet\n with\u0007 noise" }),
          searxResult(2, { url: "https://Site2.example.org/page/2#section", pubdate: "2023-12-24 08:00:00" }),
          searxResult(3, { thumbnail: "/thumbs/3.jpg", publishedDate: "not a date" }),
        ],
      ]),
    );
    const r = await new SearxngSearch(stub.url).search("  boston fern ", 3);
    expect(stub.requests).toHaveLength(1);
    expect(stub.requests[0]).toMatchObject({ method: "GET", path: "/search", query: { q: "boston fern", format: "json" } });
    expect(stub.requests[0]!.headers.accept).toBe("application/json");

    expect(r.query).toBe("boston fern");
    expect(r.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.keys(r)).toEqual(["query", "requestId", "results"]);
    expect(r.results.map((x) => x.title)).toEqual(["Result 1", "Result 2", "Result 3"]);
    const [a, b, c] = r.results;
    expect(a).toEqual({
      id: resultId("https://site1.example.org/page/1"),
      title: "Result 1",
      url: "https://site1.example.org/page/1",
      author: "Ann Author",
      favicon: "https://site1.example.org/favicon.ico",
      image: "https://cdn.example.org/a.png",
      publishedDate: "2024-03-01T12:30:00.000Z",
      snippet: "A snippet with noise",
    });
    // Canonical URL: host lower-cased, fragment dropped; `pubdate` when there is no publishedDate.
    expect(b).toMatchObject({ url: "https://site2.example.org/page/2", author: null, image: null, publishedDate: "2023-12-24T08:00:00.000Z" });
    expect(c).toMatchObject({ image: "https://site3.example.org/thumbs/3.jpg", publishedDate: null });
  });

  it("ids are stable per canonical URL and differ between URLs", async () => {
    const stub = await track(startSearxng([page(1, 5)]));
    const s = new SearxngSearch(stub.url);
    const [one, two] = await Promise.all([s.search("x", 5), s.search("x", 5)]);
    expect(one.results.map((r) => r.id)).toEqual(two.results.map((r) => r.id));
    expect(new Set(one.results.map((r) => r.id)).size).toBe(5);
    expect(one.requestId).not.toBe(two.requestId);
    expect(resultId(canonicalUrl("https://A.example/x#frag")!)).toBe(resultId("https://a.example/x"));
  });

  it("cuts to numResults, and asks for further pages only while short", async () => {
    const stub = await track(startSearxng([page(1, 10), page(11, 20), page(21, 30)]));
    const s = new SearxngSearch(stub.url);
    expect((await s.search("q", 3)).results.map((r) => r.title)).toEqual(["Result 1", "Result 2", "Result 3"]);
    expect(stub.requests.map((r) => r.query.pageno)).toEqual([undefined]);

    stub.requests.length = 0;
    const r = await s.search("q", 25);
    expect(r.results).toHaveLength(25);
    expect(r.results[24]!.title).toBe("Result 25");
    expect(stub.requests.map((x) => x.query.pageno ?? "1")).toEqual(["1", "2", "3"]);
  });

  it("drops duplicates and results without an http(s) URL; stops when a page adds nothing", async () => {
    const stub = await track(startSearxng([[searxResult(1), searxResult(2, { url: "javascript:alert(1)" }), searxResult(3), { title: "no url" }], [searxResult(1), searxResult(3)], page(4, 6)]));
    const r = await new SearxngSearch(stub.url).search("q", 10);
    expect(r.results.map((x) => x.title)).toEqual(["Result 1", "Result 3"]);
    expect(stub.requests).toHaveLength(2);
  });

  it("takes the instance root with a path prefix, or its /search endpoint", async () => {
    const stub = await track(startSearxng([page(1, 2)]));
    await new SearxngSearch(`${stub.url}/searx/`).search("q", 2);
    await new SearxngSearch(`${stub.url}/searx/search`).search("q", 2);
    expect(stub.requests.map((r) => r.path)).toEqual(["/searx/search", "/searx/search"]);
  });

  it("rejects invalid input before any request", async () => {
    const stub = await track(startSearxng([page(1, 3)]));
    const s = new SearxngSearch(stub.url);
    await expect(s.search("", 5)).rejects.toThrow(/^query: 1 to 200 characters \(got 0\)$/);
    await expect(s.search("x".repeat(201), 5)).rejects.toThrow(ServiceInvalidArgumentError);
    await expect(s.search("x", 26)).rejects.toThrow("numResults: an integer 1 to 25 (got 26)");
    expect(stub.requests).toHaveLength(0);
    expect(() => new SearxngSearch("searx.example.org")).toThrow(ServiceInvalidArgumentError);
    expect(() => new SearxngSearch("ftp://searx.example.org")).toThrow(/must be http/);
  });

  it("an instance without the json format: says how to enable it", async () => {
    const stub = await track(startStub(() => ({ status: 403, text: "<html>Forbidden</html>" })));
    const e = await new SearxngSearch(stub.url).search("q", 5).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServiceSearchNotConfiguredError);
    expect((e as Error).message).toContain("formats: [html, json]");
  });

  it("a URL that is not SearXNG (HTML, or JSON without results) is a configuration error, not an empty list", async () => {
    const html = await track(startStub(() => ({ text: "<!doctype html><title>Welcome</title>" })));
    await expect(new SearxngSearch(html.url).search("q", 5)).rejects.toThrow(/answered text\/html, not SearXNG's JSON/);
    const other = await track(startStub(() => ({ json: { hello: "world" } })));
    await expect(new SearxngSearch(other.url).search("q", 5)).rejects.toBeInstanceOf(ServiceSearchNotConfiguredError);
  });

  it("server errors and an unreachable instance are API errors naming where", async () => {
    const broken = await track(startStub(() => ({ status: 500, text: "engine crashed" })));
    const e = await new SearxngSearch(broken.url).search("q", 5).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServiceApiError);
    expect(e).toMatchObject({ status: 500 });
    expect((e as Error).message).toContain("engine crashed");

    const port = await closedPort();
    const down = await new SearxngSearch(`http://127.0.0.1:${port}`).search("q", 5).catch((x: unknown) => x);
    expect(down).toBeInstanceOf(ServiceApiError);
    expect(down).toMatchObject({ status: 0 });
    expect((down as Error).message).toContain(`cannot reach the search backend at http://127.0.0.1:${port}/search`);
  });

  it("a slow instance times out; an abort stops the search", async () => {
    const slow = await track(startStub(() => new Promise((r) => setTimeout(() => r({ json: { results: [] } }), 2000))));
    await expect(new SearxngSearch(slow.url, { timeoutMs: 200 }).search("q", 5)).rejects.toThrow(/no answer within 200 ms/);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(new SearxngSearch(slow.url).search("q", 5, controller.signal)).rejects.toBeInstanceOf(ServiceAbortedError);
  });

  it("429 from the instance: waits as Retry-After says, then goes on", async () => {
    const stub = await track(startStub((req, i) => (i === 0 ? { status: 429, headers: { "retry-after": "1" }, text: "Too Many Requests" } : { json: { results: [searxResult(1)] } })));
    const t0 = Date.now();
    const r = await new SearxngSearch(stub.url).search("q", 5);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(stub.requests[1]!.at - stub.requests[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(r.results).toHaveLength(1);

    const always = await track(startStub(() => ({ status: 429, text: "Too Many Requests" })));
    await expect(new SearxngSearch(always.url, { backoff: { baseDelayMs: 10 } }).search("q", 5)).rejects.toBeInstanceOf(ServiceRateLimitError);
    expect(always.requests).toHaveLength(4);
  });

  it("fromSearxng ignores what is not a result", () => {
    expect(fromSearxng(null)).toBeUndefined();
    expect(fromSearxng({ url: "mailto:a@b.c" })).toBeUndefined();
    expect(fromSearxng({ url: "https://x.example/", title: "" })).toMatchObject({ title: "https://x.example/", favicon: "https://x.example/favicon.ico" });
  });
});
