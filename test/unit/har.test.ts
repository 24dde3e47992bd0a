/**
 * HAR 1.2 from recorded requests (src/browser/har.ts) and the network log store (src/store/network-log.ts):
 * every required HAR field present and typed (test/support/har-check.ts, which must also catch a missing one),
 * timings derived from Chrome's ResourceTiming, cookies, query string, postData, redirects, failures; the store's
 * bounds, `--clear` and masking.
 */
import { existsSync, mkdtempSync, rmSync, statSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildHar, harTimings, requestCookies, responseCookies } from "../../src/browser/har.js";
import { NETWORK_LOG_LIMITS, type NetworkEntry, boundedNetworkLog, headerLines, sessionNetworkLog } from "../../src/store/network-log.js";
import { sessionSecretStore } from "../../src/store/secrets.js";
import { removeSession } from "../../src/store/session-records.js";
import { harProblems } from "../support/har-check.js";

const T0 = 1000; // Chrome's monotonic clock, seconds
const timing = { requestTime: T0 + 0.002, proxyStart: -1, proxyEnd: -1, dnsStart: 1, dnsEnd: 3, connectStart: 3, connectEnd: 10, sslStart: 5, sslEnd: 10, sendStart: 11, sendEnd: 12, receiveHeadersEnd: 40 };

function entry(id: number, over: Partial<NetworkEntry> = {}): NetworkEntry {
  return {
    id: `r${id}`,
    received: id,
    target: "T1",
    requestId: `R${id}`,
    page: "p1",
    method: "GET",
    url: `https://shop.example/api/items?page=${id}&q=a%20b`,
    type: "Fetch",
    state: "finished",
    startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, id)).toISOString(),
    start: T0 + id,
    end: T0 + id + 0.05,
    requestHeaders: { Accept: "*/*", Cookie: "a=1; b=two" },
    status: 200,
    statusText: "OK",
    protocol: "h2",
    responseHeaders: { "Content-Type": "application/json", "Set-Cookie": "sid=xyz; Path=/; HttpOnly; Secure\nother=1; Domain=shop.example" },
    mimeType: "application/json",
    remoteAddress: "203.0.113.7",
    remotePort: 443,
    timing: { ...timing, requestTime: T0 + id + 0.002 },
    encodedDataLength: 420,
    bodyBytes: 120,
    size: 300,
    ...over,
  };
}

describe("HAR 1.2 of recorded requests", () => {
  it("has every required field, for finished, failed, redirected, posted and unfinished requests", () => {
    const entries = [
      entry(1),
      entry(2, { method: "POST", postData: '{"x":1}', requestHeaders: { "Content-Type": "application/json" } }),
      entry(3, { status: 302, statusText: "Found", redirectedTo: "r4", responseHeaders: { Location: "/next" }, mimeType: "text/plain" }),
      entry(4, { url: "https://shop.example/next" }),
      entry(5, { state: "failed", status: undefined, statusText: undefined, responseHeaders: undefined, mimeType: undefined, timing: undefined, failure: "net::ERR_CONNECTION_REFUSED", protocol: undefined }),
      entry(6, { state: "pending", end: undefined, status: undefined, timing: undefined, page: "p-not-in-har" }),
    ];
    const har = buildHar({
      entries,
      pages: [{ id: "p1", target: "T1", url: "https://shop.example/", startedAt: new Date(Date.UTC(2026, 0, 1)).toISOString(), start: T0, onContentLoad: 120, onLoad: 300 }],
      creator: { name: "svc", version: "0.1.0" },
      bodies: new Map([["r1", { text: '{"items":[]}', base64Encoded: false }]]),
    });
    expect(harProblems(JSON.parse(JSON.stringify(har)))).toEqual([]);
    const [get, post, redirect, , failed, pending] = har.log.entries;
    expect(har.log.pages[0]).toEqual({ startedDateTime: "2026-01-01T00:00:00.000Z", id: "p1", title: "https://shop.example/", pageTimings: { onContentLoad: 120, onLoad: 300 } });
    expect(get!.pageref).toBe("p1");
    expect(get!.request.queryString).toEqual([{ name: "page", value: "1" }, { name: "q", value: "a b" }]);
    expect(get!.request.cookies).toEqual([{ name: "a", value: "1" }, { name: "b", value: "two" }]);
    expect(get!.response.cookies).toEqual([{ name: "sid", value: "xyz", path: "/", httpOnly: true, secure: true }, { name: "other", value: "1", domain: "shop.example" }]);
    expect(get!.response.headers.filter((h) => h.name === "Set-Cookie").length).toBe(2);
    expect(get!.response.content).toEqual({ size: 300, mimeType: "application/json", text: '{"items":[]}' });
    expect(get!.response.httpVersion).toBe("HTTP/2.0");
    expect(get!.serverIPAddress).toBe("203.0.113.7");
    expect(post!.request.postData).toEqual({ mimeType: "application/json", text: '{"x":1}' });
    expect(post!.request.bodySize).toBe(7);
    expect(redirect!.response.redirectURL).toBe("https://shop.example/next");
    expect(failed!.response).toMatchObject({ status: 0, _error: "net::ERR_CONNECTION_REFUSED" });
    expect(pending!.pageref).toBeUndefined();
    expect(pending!.comment).toMatch(/unfinished/);
  });

  it("derives blocked/dns/connect/ssl/send/wait/receive from ResourceTiming, summing to the entry's time", () => {
    const t = harTimings({ start: T0, end: T0 + 0.05, timing: { ...timing } });
    // Queued 2 ms before Chrome started it, then 1 ms before DNS; send runs from the connection's end.
    expect(t).toEqual({ blocked: 3, dns: 2, connect: 7, ssl: 5, send: 2, wait: 28, receive: 8 });
    const har = buildHar({ entries: [entry(1, { start: T0, end: T0 + 0.05, timing: { ...timing } })], pages: [], creator: { name: "svc", version: "0" } });
    // The whole 50 ms from requestWillBeSent to loadingFinished.
    expect(har.log.entries[0]!.time).toBe(50);
  });

  it("the checker finds a missing required field (it is no rubber stamp)", () => {
    const har = JSON.parse(JSON.stringify(buildHar({ entries: [entry(1)], pages: [], creator: { name: "svc", version: "0" } }))) as { log: { entries: Array<{ response: Record<string, unknown>; timings: Record<string, unknown> }> } };
    delete har.log.entries[0]!.response.redirectURL;
    har.log.entries[0]!.timings.wait = -1;
    expect(harProblems(har)).toEqual(["log.entries[0].response.redirectURL: string", "log.entries[0].timings.wait: number ≥ 0", expect.stringMatching(/^log\.entries\[0\]\.time: the sum/)]);
  });

  it("parses cookies of requests and responses", () => {
    expect(requestCookies({ cookie: "x=1;y=a=b" })).toEqual([{ name: "x", value: "1" }, { name: "y", value: "a=b" }]);
    expect(responseCookies({ "set-cookie": "k=v; Expires=Wed, 21 Oct 2026 07:28:00 GMT" })).toEqual([{ name: "k", value: "v", expires: "2026-10-21T07:28:00.000Z" }]);
    expect(requestCookies({})).toEqual([]);
  });
});

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});
const root = () => {
  const r = mkdtempSync(join(tmpdir(), "svc-network-log-"));
  roots.push(r);
  return r;
};

describe("the network log store", () => {
  it("keeps the newest 1,000 requests and at most 5 MB of JSON, oldest first", () => {
    const kept = boundedNetworkLog(Array.from({ length: 1500 }, (_, i) => entry(i)));
    expect(kept.length).toBe(NETWORK_LOG_LIMITS.entries);
    expect(kept[0]!.id).toBe("r500");
    expect(kept.at(-1)!.id).toBe("r1499");
    const big = Array.from({ length: 800 }, (_, i) => entry(i, { postData: "x".repeat(NETWORK_LOG_LIMITS.postDataChars) }));
    const fits = boundedNetworkLog(big);
    expect(fits.length).toBeLessThan(800);
    expect(Buffer.byteLength(JSON.stringify(fits))).toBeLessThanOrEqual(NETWORK_LOG_LIMITS.bytes);
    expect(fits.at(-1)).toBe(big.at(-1));
  });

  it("a clear drops what was received before it; secrets are masked on disk and when read; 0600", () => {
    const r = root();
    const store = sessionNetworkLog("s1", r);
    store.write([entry(1, { received: Date.now() - 1000 })]);
    expect(store.read().map((e) => e.id)).toEqual(["r1"]);
    store.clear();
    expect(store.read()).toEqual([]);
    store.write([entry(1, { received: Date.now() - 1000 }), entry(2, { received: Date.now() + 1000, url: "https://shop.example/?token=Tok3nSecret" })]);
    expect(store.read().map((e) => e.id)).toEqual(["r2"]);
    sessionSecretStore("s1", r).save([{ name: "token", value: "Tok3nSecret" }]);
    expect(store.read()[0]!.url).toBe("https://shop.example/?token=%token%");
    store.write([entry(3, { received: Date.now() + 1000, requestHeaders: { Authorization: "Bearer Tok3nSecret" } })]);
    const file = join(r, "sessions", "s1.network");
    expect(readFileSync(file, "utf8")).not.toContain("Tok3nSecret");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Gone with the session, its clear mark too.
    removeSession("s1", r);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.cleared`)).toBe(false);
  });
});

describe("headerLines (svc network request, MCP network_request)", () => {
  it("one line per header, indented; a value Chrome joined from repeated headers is one line each", () => {
    expect(headerLines({ "content-type": "text/html", "set-cookie": "a=1\nb=2" })).toEqual(["  content-type: text/html", "  set-cookie: a=1", "  set-cookie: b=2"]);
    expect(headerLines(undefined)).toEqual([]);
  });
});
