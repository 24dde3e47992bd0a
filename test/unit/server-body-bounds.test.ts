/**
 * Input bounds of `svc serve`, no browser: bodies nested past MAX_JSON_DEPTH are refused before JSON.parse builds
 * them, long strings and keys are 413 naming the field, long queries 414; unreadable bodies and requests Node's
 * parser refuses are 400s, logged as such; error messages quote only a short prefix of the input.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, MAX_KEY_LENGTH, MAX_STRING_LENGTH, nestingExceeds, oversizedField, parseJsonText } from "../../src/server/http/body.js";
import { errorResponse, HttpError } from "../../src/server/http/errors.js";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { describeIssue, QUOTE_MAX } from "../../src/util/zod.js";

const KEY = "svc-bounds-key-1234";
const OTHER = "svc-bounds-key-5678";
const logs: string[] = [];
let server: RunningServer;
let cacheDir: string;

beforeAll(async () => {
  cacheDir = mkdtempSync(join(tmpdir(), "svc-bounds-"));
  server = await startServer({ port: 0, apiKeys: [KEY, OTHER], cacheDir, log: (l) => logs.push(l) });
});

afterAll(async () => {
  await server?.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

const deep = (n: number, inner = "1") => "[".repeat(n) + inner + "]".repeat(n);

async function post(path: string, body: string): Promise<{ status: number; message: string; raw: string }> {
  const res = await fetch(`${server.url}${path}`, { method: "POST", body, headers: { "content-type": "application/json", "x-bb-api-key": KEY } });
  const raw = await res.text();
  let message = "";
  try {
    message = (JSON.parse(raw) as { message?: string }).message ?? "";
  } catch {
    // not the envelope
  }
  return { status: res.status, message, raw };
}

/** Writes `data` on a fresh connection and returns everything the server sent until it closed. */
function rawRequest(data: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const socket = connect(server.port, "127.0.0.1", () => socket.write(data));
    let out = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (out += d));
    socket.on("close", () => resolvePromise(out));
    socket.on("error", reject);
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer to ${JSON.stringify(data.slice(0, 60))}`)));
  });
}

describe("the nesting scan", () => {
  it("counts brackets outside strings only, escapes included", () => {
    expect(nestingExceeds(deep(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nestingExceeds(deep(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(nestingExceeds(`{"a":${deep(MAX_JSON_DEPTH)}}`, MAX_JSON_DEPTH)).toBe(true);
    // Brackets in strings, also after escaped quotes and backslashes, do not count.
    expect(nestingExceeds(JSON.stringify({ s: "[".repeat(500), t: '\\"[[[[', u: "\\" }), 2)).toBe(false);
    expect(nestingExceeds(`["\\\\", ${deep(3)}]`, 3)).toBe(true);
  });

  it("parseJsonText: deep → 400, long string or key → 413 naming its path, empty → {}", () => {
    const refused = (text: string) => {
      try {
        parseJsonText(text);
      } catch (e) {
        return e as HttpError;
      }
      throw new Error("accepted");
    };
    expect(parseJsonText("  ")).toEqual({});
    expect(parseJsonText(`{"a":${deep(10)}}`)).toEqual({ a: JSON.parse(deep(10)) });
    const depth = refused(deep(100_000));
    expect([depth.status, depth.message]).toEqual([400, `body: nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`]);
    const long = refused(JSON.stringify({ options: { variables: { note: "x".repeat(MAX_STRING_LENGTH + 1) } } }));
    expect([long.status, long.message]).toEqual([413, `options.variables.note: a string of ${MAX_STRING_LENGTH + 1} characters; at most ${MAX_STRING_LENGTH} are accepted`]);
    const key = refused(JSON.stringify({ list: [{ ["k".repeat(MAX_KEY_LENGTH + 1)]: 1 }] }));
    expect([key.status, key.message]).toEqual([413, `list.0: a key of ${MAX_KEY_LENGTH + 1} characters; at most ${MAX_KEY_LENGTH} are accepted`]);
    expect(oversizedField({ a: ["x".repeat(MAX_STRING_LENGTH)] })).toBeUndefined();
  });
});

describe("messages quote at most a short prefix of the input", () => {
  it("describeIssue cuts a quoted value, long keys and long paths", () => {
    const rule = z.object({ n: z.number({ error: (iss) => `a number (got ${JSON.stringify(iss.input)})` }) });
    const value = "v".repeat(10_000);
    const msg = describeIssue(rule.safeParse({ n: value }, { reportInput: true }).error!);
    expect(msg).toBe(`n: a number (got ${JSON.stringify(value).slice(0, QUOTE_MAX)}…)`);
    const strict = z.strictObject({});
    const unknown = describeIssue(strict.safeParse({ ["u".repeat(5000)]: 1 }).error!);
    expect(unknown.length).toBeLessThan(200);
    const record = z.record(z.string(), z.number());
    const path = describeIssue(record.safeParse({ ["p".repeat(5000)]: "x" }).error!);
    expect(path.length).toBeLessThan(200);
  });

  it("errorResponse cuts any message (a library error may quote a megabyte of input)", () => {
    const r = errorResponse(new HttpError(404, `session ${"i".repeat(1_000_000)} not found`));
    expect(r.status).toBe(404);
    expect(r.message.length).toBeLessThanOrEqual(301);
  });

  it("a URIError (decodeURIComponent on a request's path) is the request's fault: 400, not 500", () => {
    let thrown: unknown;
    try {
      decodeURIComponent("%ff");
    } catch (e) {
      thrown = e;
    }
    expect(errorResponse(thrown)).toMatchObject({ status: 400, message: "malformed percent-encoding in the request" });
    expect(errorResponse(new TypeError("x")).status).toBe(500);
  });
});

describe("the server refuses oversized and malformed input with a 4xx, never a 500", () => {
  it("deep bodies on every kind of route are 400 before parsing; the key's listing still works", async () => {
    for (const [path, body] of [
      ["/v1/search", `{"query":"x","numResults":${deep(100_000)}}`],
      ["/v1/sessions", `{"userMetadata":{"a":${deep(5_000, "{}")}}}`],
      ["/v1/sessions/start", `{"modelName":"openai/x","browserbaseSessionCreateParams":{"userMetadata":{"a":${deep(5_000)}}}}`],
      ["/v1/fetch", `{"url":"https://example.com","schema":${"{\"a\":".repeat(10_000)}1${"}".repeat(10_000)}}`],
      ["/v1/sessions/x/act", `{"input":${deep(70)}}`],
    ] as const) {
      const r = await post(path, body);
      expect([path, r.status, r.message]).toEqual([path, 400, `body: nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`]);
    }
    const list = await fetch(`${server.url}/v1/sessions`, { headers: { "x-bb-api-key": KEY } });
    expect(list.status).toBe(200);
    expect(logs.filter((l) => l.startsWith("error "))).toEqual([]);
  });

  it("a long string is 413 naming the field; userMetadata past 512 characters is 400 naming it", async () => {
    const r = await post("/v1/sessions/start", JSON.stringify({ modelName: "openai/x", systemPrompt: "s".repeat(MAX_STRING_LENGTH + 5) }));
    expect([r.status, r.message]).toEqual([413, `systemPrompt: a string of ${MAX_STRING_LENGTH + 5} characters; at most ${MAX_STRING_LENGTH} are accepted`]);
    const meta = await post("/v1/sessions", JSON.stringify({ userMetadata: { note: "m".repeat(600) } }));
    expect(meta.status).toBe(400);
    expect(meta.message).toMatch(/^userMetadata: at most 512 characters as JSON/);
    expect(meta.raw).not.toContain("m".repeat(QUOTE_MAX + 1));
  });

  it("error messages quote at most a prefix of what was sent", async () => {
    const r = await post("/v1/search", JSON.stringify({ query: "q", numResults: "n".repeat(200_000) }));
    expect(r.status).toBe(400);
    expect(r.message.startsWith("numResults: ")).toBe(true);
    expect(r.raw.length).toBeLessThan(400);
    const missing = await fetch(`${server.url}/v1/sessions/${"z".repeat(8000)}`, { headers: { "x-bb-api-key": KEY } });
    expect(missing.status).toBe(404);
    expect((await missing.text()).length).toBeLessThan(400);
  });

  it("a query string past the limit is 414 naming the query", async () => {
    const res = await fetch(`${server.url}/v1/sessions?q=${"a".repeat(5000)}`, { headers: { "x-bb-api-key": KEY } });
    expect(res.status).toBe(414);
    expect(((await res.json()) as { message: string }).message).toBe("query: longer than 4096 characters");
  });

  it("a malformed chunked body is a 400, logged as a 400 (it was logged as a 500)", async () => {
    logs.length = 0;
    const answer = await rawRequest(
      `POST /v1/search HTTP/1.1\r\nHost: x\r\nx-bb-api-key: ${KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('"success":false');
    // The parser's refusal, and the route that was reading the body: both say 400.
    await expect.poll(() => logs.some((l) => l.startsWith("client error: 400"))).toBe(true);
    await expect.poll(() => logs.some((l) => /^POST \/v1\/search 400 /.test(l))).toBe(true);
    expect(logs.filter((l) => / 500 |^error /.test(l))).toEqual([]);
  });

  it("requests Node's parser refuses get an answer in the envelope, and the server keeps serving", async () => {
    const bad = await rawRequest(`GET /v1/sessions HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n`);
    expect(bad).toMatch(/^HTTP\/1\.1 400 /);
    expect(bad).toContain('{"success":false,"message":"malformed HTTP request","code":"INVALID_ARGUMENT"}');
    const huge = await rawRequest(`GET /v1/sessions HTTP/1.1\r\nHost: x\r\nx-pad: ${"p".repeat(20_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(huge).toContain('{"success":false,"message":"request headers too large","code":"HEADERS_TOO_LARGE"}');
    expect(logs).toContain("client error: 431 (HPE_HEADER_OVERFLOW)");
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
