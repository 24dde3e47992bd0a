/** Network routes' patterns and bounds (src/store/routes.ts): globs over the whole URL, substrings, the file's checks. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROUTE_LIMITS, checkRoutes, fetchUrlPattern, routeMatcher, routesPath, sessionRouteStore } from "../../src/store/routes.js";

/** Chrome's urlPattern semantics (`*` anything, `?` one character, `\` escapes), to check the pattern svc sends is wide enough. */
function chromeMatches(pattern: string, url: string): boolean {
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") re += pattern[++i]!.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    else if (c === "*") re += ".*";
    else if (c === "?") re += ".";
    else re += c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  }
  return new RegExp(`^${re}$`).test(url);
}

describe("route patterns", () => {
  const cases: [string, string, boolean][] = [
    ["**/api/*", "http://localhost:3000/api/data", true],
    ["**/api/*", "http://localhost:3000/api/data?x=1", true],
    ["**/api/*", "http://localhost:3000/api/v1/data", false],
    ["**/api/**", "http://localhost:3000/api/v1/data", true],
    ["*/data.json", "http://a/data.json", false],
    ["http://*/data.json", "http://a:1/data.json", true],
    ["**/*.{png,jpg}", "https://x/y/z.jpg", true],
    ["**/*.{png,jpg}", "https://x/y/z.gif", false],
    ["**/search?q=*", "https://x/search?q=cats", true],
    ["**/search?q=*", "https://x/searchXq=cats", false],
    ["/api/data", "https://x/v2/api/data?y", true],
    ["/api/data", "https://x/api/dat", false],
    ["a?b", "https://x/a?b", true],
  ];
  it.each(cases)("%s against %s: %s; Chrome's pattern pauses at least what it matches", (pattern, url, expected) => {
    expect(routeMatcher(pattern)(url)).toBe(expected);
    if (expected) expect(chromeMatches(fetchUrlPattern(pattern), url)).toBe(true);
  });
});

describe("the routes file", () => {
  it("refuses what is out of bounds, naming the field", () => {
    expect(() => checkRoutes(Array.from({ length: ROUTE_LIMITS.maxRoutes + 1 }, (_, i) => ({ pattern: `/p${i}`, abort: true })))).toThrow(/invalid routes: at most 100 routes/);
    const mb = Buffer.alloc(ROUTE_LIMITS.maxBodyBytes).toString("base64");
    expect(() => checkRoutes([{ pattern: "/a", body: Buffer.alloc(ROUTE_LIMITS.maxBodyBytes + 1).toString("base64") }])).toThrow(/invalid body: larger than/);
    expect(() => checkRoutes(Array.from({ length: 11 }, (_, i) => ({ pattern: `/p${i}`, body: mb })))).toThrow(/invalid body: the session's routes' bodies total more than/);
    expect(() => checkRoutes([{ pattern: "/a", abort: true, status: 500 }])).toThrow(/invalid abort/);
    expect(() => checkRoutes([{ pattern: "/a", status: 700 }])).toThrow(/invalid status/);
    expect(() => checkRoutes([{ pattern: "/a", abort: true }, { pattern: "/a", status: 500 }])).toThrow(/same pattern/);
    expect(() => checkRoutes([{ pattern: "/a", method: "GET" }])).toThrow(/unknown field "method"/);
  });

  it("round-trips through the session's file; a hand-broken file is a STATE_ERROR naming it", () => {
    const root = mkdtempSync(join(tmpdir(), "svc-routes-"));
    try {
      const store = sessionRouteStore("s1", root);
      expect(store.load()).toEqual([]);
      const routes = [{ pattern: "**/api/*", status: 201, headers: { "X-A": "1" }, body: Buffer.from("{}").toString("base64") }, { pattern: "/x", abort: true as const }];
      store.save(routes);
      expect(store.load()).toEqual(routes);
      writeFileSync(routesPath(root, "s1"), '{"routes":[{"pattern":"a b"}]}');
      expect(() => store.load()).toThrow(expect.objectContaining({ code: "STATE_ERROR", message: expect.stringMatching(/corrupt routes file .*s1\.routes: invalid pattern/) }));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
