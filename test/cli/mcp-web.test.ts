/**
 * `svc mcp --caps web` over real stdio: `search` and `fetch`, declared once with `svc search` and `svc fetch`
 * (src/capabilities/web.ts), take the same properties and answer the same way: a ranked list with dates, control
 * characters removed; a fetch's formats, limits and redirects, under the "http" URL policy's words. Neither starts
 * a Chrome.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostileUrls, refusal, refusedBy, secretFile } from "../support/hostile-urls.js";
import { searxResult, startStub, type Stub } from "../support/search-stub.js";
import { type FixtureServer, startFixtureServer } from "../support/server.js";
import { assertBuilt, expectNoChrome, sandbox, type Sandbox } from "./helpers.js";
import { call, openStdio, text } from "./mcp-support.js";

let sb: Sandbox;
let server: FixtureServer;
let searx: Stub;
let client: Client;
let dir: string;

beforeAll(async () => {
  assertBuilt();
  sb = sandbox();
  server = await startFixtureServer();
  searx = await startStub((req) => ({ json: { query: req.query.q, results: (req.query.pageno ?? "1") !== "1" ? [] : [searxResult(1, { title: "Boston Fern\u001b[2J care", publishedDate: "2024-03-01T10:00:00" }), searxResult(2)] } }));
  dir = mkdtempSync(join(tmpdir(), "svc-mcp-web-"));
  client = await openStdio({ ...sb.env, SVC_SEARCH_URL: searx.url }, ["--caps", "web"]);
});

afterAll(async () => {
  await client?.close();
  await Promise.all([searx?.close(), server?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
  sb?.cleanup();
});

describe("svc mcp: search and fetch, as the CLI has them", () => {
  it("search: the CLI's ranked list (dates, control characters removed); the library's rules name the field", async () => {
    const r = await call(client, "search", { query: "boston fern", numResults: 2 });
    expect(r.isError, text(r)).toBeFalsy();
    expect(text(r)).toBe(["1. Boston Fern [2J care", "   https://site1.example.org/page/1 · 2024-03-01", "2. Result 2", "   https://site2.example.org/page/2"].join("\n"));
    expect(text(await call(client, "search", { query: "fern", numResults: 30 }))).toBe("INVALID_ARGUMENT: numResults: an integer 1 to 25 (got 30)");
    expect(searx.requests).toHaveLength(1);
  });

  it("fetch: every format, maxBytes and redirects: false as on the CLI, under its status line", async () => {
    const json = await call(client, "fetch", { url: server.url("fetch/data.json"), format: "json" });
    expect(json.isError, text(json)).toBeFalsy();
    const [head, , ...body] = text(json).split("\n");
    expect(head).toBe(`200 ${server.url("fetch/data.json")}`);
    expect(JSON.parse(body.join("\n"))).toMatchObject({ message: "hello from data.json", count: 3 });

    const redirect = server.url(`/redirect?to=${encodeURIComponent(server.url("fetch/plain.txt"))}`);
    expect(text(await call(client, "fetch", { url: redirect, redirects: false }))).toMatch(new RegExp(`^302 ${redirect.replace(/[.?]/g, "\\$&")}\n`));

    const big = await call(client, "fetch", { url: server.url("fetch/article.html"), maxBytes: 10 });
    expect(big.isError).toBe(true);
    expect(text(big)).toMatch(/^FETCH_FAILED: .*over the limit of 10 bytes/);
  });

  it("fetch refuses what the \"http\" URL policy refuses, in the same words, and reads no secret", async () => {
    const { secret, secretUrl } = secretFile(dir);
    const rows = refusedBy("http", hostileUrls({ secretUrl, secret, page: server.url("forms.html") }));
    expect(rows.length).toBeGreaterThanOrEqual(10);
    for (const row of rows) {
      const r = await call(client, "fetch", { url: row.url });
      expect(r.isError, row.url).toBe(true);
      expect(text(r).replace(/ \(hint: [^)]*\)$/, ""), row.url).toBe(refusal("http", row));
    }
    await expectNoChrome(sb.tmp);
  });
});
