/**
 * `svc fetch` as a user runs it (the built CLI): content on stdout, --json documents, -o files, the
 * exit codes of commands/EXIT_CODES.md with one line on stderr, and no Chrome left after --browser.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FixtureServer, startFixtureServer } from "../support/server.js";
import { type Stub, redirect, send, startStub } from "../unit/fetch-stub.js";
import { SLACK_MS } from "../support/timing.js";
import {
  type RunResult,
  type Sandbox,
  assertBuilt,
  chromePidsOf,
  collect,
  expectEmptyDir,
  expectNoChrome,
  expectOneLine,
  filesUnder,
  json,
  sandbox,
  spawnSvc,
  svc,
  waitFor,
} from "./helpers.js";

let server: FixtureServer;
let stub: Stub;
const timers = new Set<NodeJS.Timeout>();
beforeAll(async () => {
  assertBuilt();
  server = await startFixtureServer();
  stub = await startStub({
    "/moved": (_q, r) => redirect(r, 301, "/here"),
    "/here": (_q, r) => send(r, 200, "text/plain; charset=utf-8", "you are here\n"),
    "/gone": (_q, r) => send(r, 404, "text/html", "<!doctype html><title>Gone</title><h1>Gone</h1><p>Nothing at this address.</p>"),
    "/big": (_q, r) => send(r, 200, "text/plain", "x".repeat(5000)),
    "/slow": (_q, r) => {
      const t = setTimeout(() => send(r, 200, "text/plain", "late"), 60_000);
      timers.add(t);
    },
  });
});
afterAll(async () => {
  for (const t of timers) clearTimeout(t);
  await stub?.close();
  await server?.close();
});

let sb: Sandbox;
beforeEach(() => {
  sb = sandbox();
});
afterEach(() => {
  sb.cleanup();
});

async function expectFailure(r: RunResult, code: number, message: RegExp): Promise<void> {
  expect(r.code, r.stderr).toBe(code);
  expect(expectOneLine(r.stderr)).toMatch(message);
  expect(r.stdout).toBe("");
  await expectNoChrome(sb.tmp);
}

describe("svc fetch (plain HTTP)", () => {
  it("prints the article as markdown by default", async () => {
    const r = await svc(["fetch", server.url("fetch/article.html")], sb.env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^# Brewing Tea at Home\n\nGood tea/);
    expect(r.stdout).toContain("| Green | 75 °C | 2 |");
    expect(r.stdout).toContain("```ts\n");
    expect(r.stdout).toContain(`(${server.url("fetch/guides/water.html")})`);
    expect(r.stdout.endsWith("next.\n")).toBe(true);
  });

  it("--format text, raw and json", async () => {
    const text = await svc(["fetch", server.url("fetch/article.html"), "--format", "text"], sb.env);
    expect(text.stdout).toContain("Tea\tTemperature\tMinutes");
    const raw = await svc(["fetch", server.url("fetch/plain.txt"), "--format", "raw"], sb.env);
    expect(raw.stdout).toBe(readFileSync(new URL("../../fixtures/pages/fetch/plain.txt", import.meta.url), "utf8"));
    const data = await svc(["fetch", server.url("fetch/data.json"), "--format", "json"], sb.env);
    expect(JSON.parse(data.stdout)).toMatchObject({ message: "hello from data.json", count: 3 });
  });

  it("--json prints the whole result with schemaVersion", async () => {
    const r = await svc(["--json", "fetch", stub.url("/moved")], sb.env);
    expect(r.code, r.stderr).toBe(0);
    const doc = json(r.stdout);
    expect(doc).toMatchObject({ schemaVersion: 1, ok: true, url: stub.url("/here"), statusCode: 200, content: "you are here\n", encoding: "utf-8", contentType: "text/plain; charset=utf-8" });
    expect(doc["id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(doc["headers"]).toMatchObject({ "content-type": "text/plain; charset=utf-8" });
  });

  it("-o writes the content to a file and prints its path", async () => {
    const file = join(sb.tmp, "..", "article.md");
    const r = await svc(["fetch", server.url("fetch/article.html"), "-o", file], sb.env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(resolve(file));
    expect(readFileSync(file, "utf8")).toMatch(/^# Brewing Tea at Home\n[\s\S]*\| Black \| 95 °C \| 4 \|/);
    expect(filesUnder(join(sb.tmp, "..")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("an HTTP error status: exit 5 naming it; with --json the response itself", async () => {
    await expectFailure(await svc(["fetch", stub.url("/gone")], sb.env), 5, /answered HTTP 404.*--json/);
    const r = await svc(["--json", "fetch", stub.url("/gone")], sb.env);
    expect(r.code).toBe(0);
    expect(json(r.stdout)).toMatchObject({ statusCode: 404, title: "Gone" });
    expect(String(json(r.stdout)["content"])).toContain("Nothing at this address.");
  });

  it("--no-redirects: the 3xx is an exit 5 naming where it points; --json shows it", async () => {
    await expectFailure(await svc(["fetch", stub.url("/moved"), "--no-redirects"], sb.env), 5, new RegExp(`HTTP 301, a redirect to ${stub.url("/here")} \\(not followed: --no-redirects\\)`));
    const r = await svc(["--json", "fetch", stub.url("/moved"), "--no-redirects"], sb.env);
    expect(json(r.stdout)).toMatchObject({ statusCode: 301, url: stub.url("/moved"), headers: { location: "/here" } });
  });

  it("limits: --max-bytes (exit 5), --timeout (exit 7); binary content (exit 5)", async () => {
    await expectFailure(await svc(["fetch", stub.url("/big"), "--max-bytes", "1000"], sb.env), 5, /over the limit of 1000 bytes/);
    expect((await svc(["fetch", stub.url("/big"), "--max-bytes", "5000"], sb.env)).code).toBe(0);
    const t0 = Date.now();
    await expectFailure(await svc(["fetch", stub.url("/slow"), "--timeout", "500"], sb.env), 7, /did not finish within 500 ms/);
    expect(Date.now() - t0).toBeLessThan(500 + SLACK_MS);
    await expectFailure(await svc(["fetch", server.url("fetch/image.png")], sb.env), 5, /is an image \(image\/png\): fetch gives text only/);
  });

  it("an error with --json is one error document", async () => {
    const r = await svc(["--json", "fetch", stub.url("/big"), "--max-bytes", "10"], sb.env);
    expect(r.code).toBe(5);
    expect(json(r.stdout)).toMatchObject({ schemaVersion: 1, ok: false, error: { code: "FETCH_FAILED" } });
  });

  it.each([
    [["fetch", "file:///etc/hostname"], /only http and https URLs can be opened/],
    [["fetch", "example.com"], /did you mean https:\/\/example\.com/],
    [["fetch", "http://x.test/", "--format", "pdf"], /^svc: invalid --format: one of markdown, text, html, raw, json \(got "pdf"\)/],
    [["fetch", "http://x.test/", "--timeout", "soon"], /^svc: invalid --timeout: expected a positive whole number/],
    [["fetch", "http://x.test/", "--max-bytes", "0"], /^svc: invalid --max-bytes: expected a positive whole number/],
    [["fetch", "http://x.test/", "--browser", "--no-redirects"], /--no-redirects cannot apply with --browser/],
    [["--session", "abc", "fetch", "http://x.test/"], /--session applies with --browser/],
    [["fetch", "http://x.test/", "-o", "/no/such/dir/out.md"], /cannot write \/no\/such\/dir\/out\.md/],
  ])("bad input %j → exit 2 before anything is fetched", async (args, message) => {
    await expectFailure(await svc(args, sb.env), 2, message);
  });
});

describe("svc fetch --browser (real Chrome)", () => {
  it("renders the script's content that a plain fetch lacks, and leaves no Chrome", async () => {
    const url = server.url("fetch/js-rendered.html");
    const plain = await svc(["fetch", url], sb.env);
    expect(plain.stdout).not.toContain("Rendered headline");
    const r = await svc(["fetch", url, "--browser"], sb.env, { timeoutMs: 90_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("## Rendered headline");
    expect(r.stdout).toContain("- third item");
    await expectNoChrome(sb.tmp);
    await expectEmptyDir(sb.tmp);
    expect(existsSync(sb.state)).toBe(true);
  });

  it("Ctrl-C while Chrome renders: exit 130, Chrome closed", async () => {
    const child = spawnSvc(["fetch", server.url("/slow?ms=30000"), "--browser"], sb.env);
    const done = collect(child, 60_000);
    await waitFor(() => chromePidsOf(sb.tmp).length > 0, 30_000);
    await new Promise((r) => setTimeout(r, 500));
    child.kill("SIGINT");
    const r = await done;
    expect(r.code, r.stderr).toBe(130);
    expect(r.stdout).toBe("");
    await expectNoChrome(sb.tmp);
    await expectEmptyDir(sb.tmp);
  });
});
