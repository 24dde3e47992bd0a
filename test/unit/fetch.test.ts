/**
 * fetchPage over plain HTTP against loopback stubs and the fixture server: formats, charsets,
 * redirects, limits, content types, errors. (HTML conversion details: fetch-html.test.ts; charset
 * and type rules on bytes: fetch-content.test.ts; Chrome: test/e2e/fetch-browser.test.ts.)
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceAbortedError, ServiceFetchError, ServiceInvalidArgumentError, ServiceNavigationError, ServiceTimeoutError } from "../../src/errors.js";
import { fetchPage } from "../../src/fetch/index.js";
import { type FixtureServer, startFixtureServer } from "../support/server.js";
import { type Stub, redirect, send, startStub } from "./fetch-stub.js";
import { SLACK_MS } from "../support/timing.js";

const FIXTURES = new URL("../../fixtures/pages/fetch/", import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES));

let fixtures: FixtureServer;
let stub: Stub;
const timers = new Set<NodeJS.Timeout>();

beforeAll(async () => {
  fixtures = await startFixtureServer();
  stub = await startStub({
    "/latin1-meta": (_q, r) => send(r, 200, "text/html", fixture("latin1.html")),
    "/latin1-header": (_q, r) => send(r, 200, "text/plain; charset=ISO-8859-1", Buffer.concat([Buffer.from("Gr\u00fc\u00dfe aus K\u00f6ln, 5 ", "latin1"), Buffer.from([0x80])])),
    "/r1": (_q, r) => redirect(r, 301, "/r2"),
    "/r2": (_q, r) => redirect(r, 302, `${stub.origin}/r3`),
    "/r3": (_q, r) => redirect(r, 307, "final?x=1"),
    "/final": (_q, r) => send(r, 200, "text/plain; charset=utf-8", "arrived"),
    "/loop-a": (_q, r) => redirect(r, 302, "/loop-b"),
    "/loop-b": (_q, r) => redirect(r, 302, "/loop-a"),
    "/to-ftp": (_q, r) => redirect(r, 302, "ftp://example.com/file"),
    "/endless": (_q, r) => {
      r.writeHead(200, { "content-type": "text/plain" });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const tick = () => {
        if (r.destroyed) return;
        r.write(chunk);
        const t = setTimeout(tick, 2);
        timers.add(t);
      };
      tick();
    },
    "/declared-big": (_q, r) => {
      r.writeHead(200, { "content-type": "text/plain", "content-length": String(5_000_000) });
      r.write("x".repeat(1000)); // then hangs: the client must not wait for the rest
    },
    "/png": (_q, r) => {
      r.writeHead(200, { "content-type": "image/png" });
      r.write(fixture("image.png")); // never ended: refused from the header alone
    },
    "/octets": (_q, r) => send(r, 200, "application/octet-stream", Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x08, 0x00, 0x41])),
    "/untyped-text": (_q, r) => send(r, 200, undefined, "just some words\nover two lines"),
    "/untyped-html": (_q, r) => send(r, 200, undefined, "<!doctype html><title>Sniffed</title><h1>Sniffed page</h1><p>It has no content type.</p>"),
    "/html-json": (_q, r) => send(r, 200, "text/html", '{"served": "as html"}'),
    "/csv": (_q, r) => send(r, 200, "text/csv", "a,b\n1,2\n"),
    "/slow": (_q, r) => {
      const t = setTimeout(() => send(r, 200, "text/plain", "late"), 60_000);
      timers.add(t);
    },
    "/gone": (_q, r) => send(r, 404, "text/html; charset=utf-8", "<!doctype html><title>Not here</title><h1>Missing</h1><p>There is no such page.</p>"),
    "/error-empty": (_q, r) => send(r, 503, "application/json", ""),
    "/ua": (q, r) => send(r, 200, "text/plain", String(q.headers["user-agent"])),
  });
});

afterAll(async () => {
  for (const t of timers) clearTimeout(t);
  await stub?.close();
  await fixtures?.close();
});

describe("formats", () => {
  it("markdown by default, with the result's fields", async () => {
    const r = await fetchPage(fixtures.url("fetch/article.html"));
    expect(r.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.url).toBe(fixtures.url("fetch/article.html"));
    expect(r.statusCode).toBe(200);
    expect(r.contentType).toBe("text/html; charset=utf-8");
    expect(r.encoding).toBe("utf-8");
    expect(r.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(r.title).toBe("Brewing Tea at Home | The Fixture Gazette");
    expect(r.content).toMatch(/^# Brewing Tea at Home\n/);
    expect(r.content).toContain("| Green | 75 °C | 2 |");
    expect(r.content).toContain(`[note on water](${fixtures.url("fetch/guides/water.html")})`);
    expect(r.content).not.toContain("Sign in");
  });

  it("html is the document as served; raw is the body as text", async () => {
    const html = await fetchPage(fixtures.url("fetch/article.html"), { format: "html" });
    expect(html.content).toBe(fixture("article.html").toString("utf8"));
    expect(html.title).toBe("Brewing Tea at Home | The Fixture Gazette");
    const raw = await fetchPage(fixtures.url("fetch/plain.txt"), { format: "raw" });
    expect(raw.content).toBe(fixture("plain.txt").toString("utf8"));
  });

  it("text is the readable text without markup", async () => {
    const r = await fetchPage(fixtures.url("fetch/article.html"), { format: "text" });
    expect(r.content).toMatch(/^Brewing Tea at Home\n\nGood tea needs/);
    expect(r.content).toContain("Green\t75 °C\t2");
    expect(r.content).not.toMatch(/<|\]\(|##/);
  });

  it("json: pretty JSON; checked against a JSON Schema when one is given", async () => {
    const url = fixtures.url("fetch/data.json");
    const r = await fetchPage(url, { format: "json" });
    expect(r.content).toBe(JSON.stringify(JSON.parse(fixture("data.json").toString()), null, 2));
    const schema = { type: "object", properties: { count: { type: "integer" }, items: { type: "array", items: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } } }, required: ["count", "items"] };
    expect((await fetchPage(url, { format: "json", schema })).content).toContain('"count": 3');
    const wrong = { type: "object", properties: { count: { type: "string" }, missing: { type: "number" } }, required: ["missing"] };
    const e = await fetchPage(url, { format: "json", schema: wrong }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServiceFetchError);
    expect((e as Error).message).toMatch(/does not match the schema: count: .*string.*; missing: /);
  });

  it("json accepts JSON served under another type, and refuses what is not JSON", async () => {
    expect(JSON.parse((await fetchPage(stub.url("/html-json"), { format: "json" })).content)).toEqual({ served: "as html" });
    const e = await fetchPage(fixtures.url("fetch/article.html"), { format: "json" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServiceFetchError);
    expect((e as Error).message).toMatch(/article\.html \(text\/html\) is not JSON/);
  });

  it("non-HTML text passes through markdown and text unchanged; html refuses it", async () => {
    for (const format of ["markdown", "text"] as const) {
      expect((await fetchPage(fixtures.url("fetch/plain.txt"), { format })).content).toBe(fixture("plain.txt").toString());
      expect((await fetchPage(fixtures.url("fetch/data.json"), { format })).content).toBe(fixture("data.json").toString());
      expect((await fetchPage(stub.url("/csv"), { format })).content).toBe("a,b\n1,2\n");
    }
    const e = await fetchPage(fixtures.url("fetch/plain.txt"), { format: "html" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServiceFetchError);
    expect((e as Error).message).toMatch(/plain\.txt \(text\/plain\) is not HTML.*format raw/);
  });

  it("a response without Content-Type is sniffed: HTML or text", async () => {
    const html = await fetchPage(stub.url("/untyped-html"));
    expect(html.content).toMatch(/^# Sniffed\n\n## Sniffed page\n\nIt has no content type\.$/);
    expect(html.contentType).toBe("text/html; charset=utf-8");
    const text = await fetchPage(stub.url("/untyped-text"));
    expect(text.content).toBe("just some words\nover two lines");
    expect(text.contentType).toBe("text/plain; charset=utf-8");
  });
});

describe("binary content", () => {
  it("is refused by its declared type before the body is downloaded, in every format", async () => {
    for (const format of ["markdown", "raw", "json", "html", "text"] as const) {
      const e = await fetchPage(stub.url("/png"), { format }).catch((x: unknown) => x);
      expect(e, format).toBeInstanceOf(ServiceFetchError);
      expect((e as Error).message).toMatch(/\/png is an image \(image\/png\): fetch gives text only.*raw, the body as text/);
    }
    // The stub never ends that body: had the client waited for it, the call above would have hung.
    await stub.socketClosed("/png");
  });

  it("is refused when the bytes show it (octet-stream with NULs), and a fixture image too", async () => {
    await expect(fetchPage(stub.url("/octets"), { format: "raw" })).rejects.toThrow(/binary data/);
    await expect(fetchPage(fixtures.url("fetch/image.png"))).rejects.toBeInstanceOf(ServiceFetchError);
  });
});

describe("charsets", () => {
  it("by <meta http-equiv> when the header names none (windows-1252, its 0x80–0x9F included)", async () => {
    const r = await fetchPage(stub.url("/latin1-meta"), { format: "text" });
    expect(r.encoding).toBe("windows-1252");
    expect(r.content).toContain("Café crème — naïve résumé");
    expect(r.content).toContain("le signe € (euro) et des « guillemets »");
    expect((await fetchPage(stub.url("/latin1-meta"), { format: "html" })).title).toBe("Café crème");
  });

  it("by the Content-Type header", async () => {
    const r = await fetchPage(stub.url("/latin1-header"), { format: "raw" });
    expect(r.encoding).toBe("windows-1252"); // the WHATWG name of ISO-8859-1
    expect(r.content).toBe("Grüße aus Köln, 5 €");
  });
});

describe("redirects", () => {
  it("follows 301 → 302 → 307 (relative and absolute Locations) to the final URL", async () => {
    const r = await fetchPage(stub.url("/r1"), { format: "raw" });
    expect(r.content).toBe("arrived");
    expect(r.url).toBe(stub.url("/final?x=1"));
    expect(r.statusCode).toBe(200);
  });

  it("stops at maxRedirects with an error naming the chain", async () => {
    const e = await fetchPage(stub.url("/r1"), { maxRedirects: 2 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServiceFetchError);
    expect((e as Error).message).toMatch(/more than 2 redirects \(.*\/r1 → .*\/r2 → .*\/r3 → …\)/);
  });

  it("detects a loop", async () => {
    await expect(fetchPage(stub.url("/loop-a"))).rejects.toThrow(/redirect loop: .*\/loop-a → .*\/loop-b → .*\/loop-a/);
  });

  it("allowRedirects false (or maxRedirects 0) returns the 3xx as it is", async () => {
    for (const opts of [{ allowRedirects: false }, { maxRedirects: 0 }]) {
      const r = await fetchPage(stub.url("/r1"), { format: "raw", ...opts });
      expect(r.statusCode).toBe(301);
      expect(r.headers["location"]).toBe("/r2");
      expect(r.url).toBe(stub.url("/r1"));
    }
  });

  it("refuses a redirect to another scheme", async () => {
    await expect(fetchPage(stub.url("/to-ftp"))).rejects.toThrow(/redirects to ftp:\/\/example\.com\/file: only http and https/);
  });

  it("asks the host policy about the first URL and every redirect target", async () => {
    const asked: Array<[string, string[]]> = [];
    const r = await fetchPage(stub.url("/r1"), { format: "raw", refuseHost: (host, addresses) => (asked.push([host, addresses]), undefined) });
    expect(r.content).toBe("arrived");
    // Before each of the 4 hops, and again where a connection to an IP literal is made (no lookup runs there).
    expect(new Set(asked.map((a) => JSON.stringify(a)))).toEqual(new Set([JSON.stringify(["127.0.0.1", ["127.0.0.1"]])]));
    expect(asked.length).toBeGreaterThanOrEqual(5);
    const before = stub.requests.length;
    let n = 0;
    // Asked: /r1 before the request (1), /r1's connection (2), the redirect to /r2 (3).
    const e = await fetchPage(stub.url("/r1"), { refuseHost: () => (++n === 3 ? "no second hop" : undefined) }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServiceInvalidArgumentError);
    expect((e as Error).message).toMatch(/redirect to .*\/r2 refused: no second hop/);
    expect(stub.requests.slice(before)).toEqual(["/r1"]); // the refused target was never requested
  });
});

describe("host policy at connect time", () => {
  it("a name that changes its answer after the check (DNS rebinding) is refused where the socket connects", async () => {
    const url = stub.url("/final").replace("127.0.0.1", "localhost");
    const before = stub.requests.length;
    const asked: string[][] = [];
    // The first answer (the check before the request) is allowed; the lookup the connection makes is not.
    const policy = (_host: string, addresses: string[]) => (asked.push(addresses), asked.length === 1 ? undefined : "loopback on the second look");
    const e = await fetchPage(url, { format: "raw", refuseHost: policy }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServiceInvalidArgumentError);
    expect((e as Error).message).toMatch(/refused: loopback on the second look/);
    expect(asked.length).toBeGreaterThanOrEqual(2);
    expect(stub.requests.slice(before)).toEqual([]);
    // An allowing policy still connects by name.
    expect((await fetchPage(url, { format: "raw", refuseHost: () => undefined })).statusCode).toBe(200);
  });
});

describe("limits and failures", () => {
  it("an oversize stream is cut: ServiceFetchError naming the limit, and the connection is closed", async () => {
    const e = await fetchPage(stub.url("/endless"), { maxBytes: 300_000 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServiceFetchError);
    expect((e as Error).message).toMatch(/\/endless is larger than that: over the limit of 300000 bytes/);
    await stub.socketClosed("/endless");
  });

  it("a Content-Length over the limit is refused without reading the body", async () => {
    const e = await fetchPage(stub.url("/declared-big"), { maxBytes: 1_000_000 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServiceFetchError);
    expect((e as Error).message).toMatch(/is 5000000 bytes: over the limit of 1000000 bytes/);
    await stub.socketClosed("/declared-big");
  });

  it("a body exactly at the limit is fine", async () => {
    const size = fixture("plain.txt").length;
    expect((await fetchPage(fixtures.url("fetch/plain.txt"), { format: "raw", maxBytes: size })).content).toHaveLength(size);
    await expect(fetchPage(fixtures.url("fetch/plain.txt"), { format: "raw", maxBytes: size - 1 })).rejects.toBeInstanceOf(ServiceFetchError);
  });

  it("times out with ServiceTimeoutError", async () => {
    const t0 = Date.now();
    const e = await fetchPage(stub.url("/slow"), { timeoutMs: 300 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServiceTimeoutError);
    expect((e as Error).message).toMatch(/did not finish within 300 ms/);
    expect(Date.now() - t0).toBeLessThan(300 + SLACK_MS);
  });

  it("stops when its signal aborts", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(fetchPage(stub.url("/slow"), { signal: controller.signal })).rejects.toBeInstanceOf(ServiceAbortedError);
  });

  it("an unreachable host is a ServiceNavigationError", async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    const port = (s.address() as { port: number }).port;
    await new Promise((r) => s.close(r));
    await expect(fetchPage(`http://127.0.0.1:${port}/`)).rejects.toThrow(ServiceNavigationError);
    await expect(fetchPage(`http://127.0.0.1:${port}/`)).rejects.toThrow(/ECONNREFUSED/);
  });

  it("an HTTP error status is returned, converted as usual; an empty error body is empty content", async () => {
    const r = await fetchPage(stub.url("/gone"));
    expect(r.statusCode).toBe(404);
    expect(r.content).toContain("There is no such page.");
    const empty = await fetchPage(stub.url("/error-empty"), { format: "json" });
    expect(empty).toMatchObject({ statusCode: 503, content: "" });
  });

  it("sends its user agent, or the caller's", async () => {
    expect((await fetchPage(stub.url("/ua"), { format: "raw" })).content).toMatch(/svc-fetch/);
    expect((await fetchPage(stub.url("/ua"), { format: "raw", userAgent: "probe/1" })).content).toBe("probe/1");
  });
});

describe("bad input is refused before any request", () => {
  it.each([
    ["file:///etc/passwd", /only http and https URLs can be opened \(got file:\)/],
    ["ftp://example.com/x", /only http and https/],
    ["example.com/page", /not an absolute URL.*did you mean https:\/\/example\.com\/page/],
    ["", /empty string/],
    ["http://user:secret@127.0.0.1/", /credentials in the URL/],
  ])("url %j", async (url, message) => {
    await expect(fetchPage(url)).rejects.toThrow(ServiceInvalidArgumentError);
    await expect(fetchPage(url)).rejects.toThrow(message);
  });

  it("options", async () => {
    const before = stub.requests.length;
    const url = stub.url("/final");
    const cases: Array<[object, RegExp]> = [
      [{ format: "pdf" }, /format: one of markdown, text, html, raw, json/],
      [{ timeoutMs: 0 }, /timeoutMs/],
      [{ maxBytes: 1.5 }, /maxBytes: expected an integer/],
      [{ maxRedirects: -1 }, /maxRedirects/],
      [{ format: "markdown", schema: { type: "object" } }, /schema: applies to format "json" only/],
      [{ format: "json", schema: "not a schema" }, /schema: expected a JSON Schema object/],
    ];
    for (const [opts, message] of cases) {
      const e = await fetchPage(url, opts as never).catch((x: unknown) => x);
      expect(e, JSON.stringify(opts)).toBeInstanceOf(ServiceInvalidArgumentError);
      expect((e as Error).message).toMatch(message);
    }
    expect(stub.requests.length).toBe(before);
  });
});
