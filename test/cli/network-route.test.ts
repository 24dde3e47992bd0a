/**
 * `svc network route|unroute|routes` on a real Chrome (routed.html shows "<status> <body>" of a fetch): a route's
 * body, status, headers and abort reach the page, unroute restores the real response, a route applies on a tab opened
 * later, globs match the whole URL, bad input is one line naming the flag. In the host and as a full process.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { expectOneLine, hostAndFullModes, json, sessionRunners, useCliWorld } from "./helpers.js";

const world = useCliWorld({ session: true });
const { run, ok } = sessionRunners(() => world.sb.env);
const dir = mkdtempSync(join(tmpdir(), "svc-route-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The page's own answer to `expr` (svc eval --json's result). */
async function page<T>(expr: string): Promise<T> {
  return json<{ result: T }>(await ok("--json", "eval", expr)).result;
}

/** Loads the fixture again and returns what it showed ("<status> <body>" or "failed: …"). */
async function shown(): Promise<string> {
  await ok("goto", world.server.url("routed.html"));
  return page<string>("loaded");
}

const REAL = /^200 \{"message":"hello from data\.json"/;
const HEADERS = "fetch('fetch/data.json', { cache: 'no-store' }).then((r) => [r.status, r.headers.get('content-type'), r.headers.get('x-mock')])";

describe("svc network route", () => {
  it("fulfills, fails and lets go of the page's requests, on later tabs too", async () => {
    expect(await shown()).toMatch(REAL);

    await ok("network", "route", "**/fetch/*.json", "--body", '{"mocked":true,"items":[]}');
    expect(await shown()).toBe('200 {"mocked":true,"items":[]}');
    expect((await ok("get", "text", "#out")).trim()).toBe('200 {"mocked":true,"items":[]}');
    expect(await page(HEADERS)).toEqual([200, "application/json", null]);

    // The same pattern again replaces the route: status, headers, a content type of one's own.
    const replaced = json<{ replaced: boolean; route: { status: number } }>(await ok("--json", "network", "route", "**/fetch/*.json", "--status", "500", "--header", "X-Mock: yes", "--body", "oops", "--content-type", "text/x-oops"));
    expect(replaced).toMatchObject({ replaced: true, route: { status: 500 } });
    expect(await shown()).toBe("500 oops");
    expect(await page(HEADERS)).toEqual([500, "text/x-oops", "yes"]);

    await ok("network", "route", "data.json", "--abort");
    // The newest route wins where two match.
    expect(await shown()).toMatch(/^failed: TypeError/);
    const listed = json<{ routes: Array<{ pattern: string; matches: string; abort?: boolean; status?: number }> }>(await ok("--json", "network", "routes")).routes;
    expect(listed).toEqual([expect.objectContaining({ pattern: "**/fetch/*.json", matches: "glob", status: 500 }), expect.objectContaining({ pattern: "data.json", matches: "substring", abort: true })]);

    await ok("network", "unroute", "data.json");
    expect(await shown()).toBe("500 oops");

    // A tab opened after the route gets it before its first request.
    await ok("tabs", "new", world.server.url("routed.html"));
    expect(await page("loaded")).toBe("500 oops");

    await ok("network", "unroute");
    expect(await shown()).toMatch(REAL);
    expect(json<{ routes: unknown[] }>(await ok("--json", "network", "routes")).routes).toEqual([]);
  });

  it("a glob matches the whole URL (* stays within a path segment); a body comes from a file; documents are routed", async () => {
    await ok("network", "route", "*/data.json", "--body", "never");
    expect(await shown()).toMatch(REAL);
    const file = join(dir, "body.json");
    writeFileSync(file, '{"from":"file"}');
    await ok("network", "route", "http://*/fetch/data.json", "--body", `@${file}`);
    expect(await shown()).toBe('200 {"from":"file"}');
    // A file's bytes as they are, not as text (the CLI door reads @FILE; issue 42).
    const bin = join(dir, "body.bin");
    writeFileSync(bin, Buffer.from([0, 255, 128, 10, 0xc3]));
    await ok("network", "route", "**/fetch/data.bin", "--body", `@${bin}`, "--content-type", "application/octet-stream");
    expect(await page("fetch('fetch/data.bin').then((r) => r.arrayBuffer()).then((b) => [...new Uint8Array(b)])")).toEqual([0, 255, 128, 10, 0xc3]);
    expect(json<{ routes: Array<{ bodyBytes: number }> }>(await ok("--json", "network", "routes")).routes.at(-1)).toMatchObject({ pattern: "**/fetch/data.bin", bodyBytes: 5 });
    // A document too: a page that does not exist on the server is served by its route.
    await ok("network", "route", "**/made-up.html", "--body", "<title>made up</title><p id=p>from a route</p>", "--content-type", "text/html");
    await ok("goto", world.server.url("made-up.html"));
    expect(await page("[document.title, document.getElementById('p').textContent]")).toEqual(["made up", "from a route"]);
    await ok("network", "unroute");
    expect(await shown()).toMatch(REAL);
  });

  for (const { mode, run: runIn } of hostAndFullModes(() => world.sb.env)) {
    it(`routes ${mode}`, async () => {
      const r = await runIn(["network", "route", "/fetch/data.json", "--status", "404", "--body", "gone"], { key: true });
      expect(r.stderr).toBe("");
      expect(r.stdout).toMatch(/routed \/fetch\/data\.json → 404/);
      expect(await shown()).toBe("404 gone");
      expect((await runIn(["network", "unroute", "/fetch/data.json"], { key: true })).code).toBe(0);
      expect(await shown()).toMatch(REAL);
    });
  }

  it("refuses bad input with one line naming the flag", async () => {
    const big = join(dir, "big.bin");
    writeFileSync(big, Buffer.alloc(1_000_001));
    const cases: [string[], RegExp][] = [
      [["network", "route", "/x", "--status", "99"], /invalid --status: expected an HTTP status from 100 to 599/],
      [["network", "route", "/x", "--status", "abc"], /invalid --status/],
      [["network", "route", "/x", "--header", "no-colon"], /invalid --header: expected NAME:VALUE/],
      [["network", "route", "/x", "--header", "Bad Name: 1"], /invalid --header: header name/],
      [["network", "route", "/x", "--abort", "--body", "x"], /network route: --abort goes alone: an aborted request gets no --body, --status, --header or --content-type/],
      [["network", "route", "/x"], /give --body, --status, --header or --content-type/],
      [["network", "route", "a b", "--abort"], /invalid pattern/],
      [["network", "route", "**/{a,b", "--abort"], /invalid pattern: unclosed \{/],
      [["network", "route", "/x", "--body", `@${join(dir, "missing.json")}`], /invalid --body: cannot read/],
      [["network", "route", "/x", "--body", `@${big}`], /invalid --body: .* larger than 1000000 bytes/],
      [["network", "unroute", "/never-routed"], /invalid pattern: session .* has no route/],
    ];
    for (const [args, message] of cases) {
      const r = await run(...args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(expectOneLine(r.stderr), args.join(" ")).toMatch(message);
    }
    expect(json<{ routes: unknown[] }>(await ok("--json", "network", "routes")).routes).toEqual([]);
  });
});
