/**
 * `svc search` against loopback stubs of a SearXNG instance and the platform's POST /v1/search: the backend from
 * `search.url`, SVC_SEARCH_URL or --env BROWSERBASE; the ranked list and --json; input checked before any request
 * (exit 2); no backend or no JSON → exit 9 saying how to configure; a lasting 429 → a clear error.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { assertBuilt, expectOneLine, json, sandbox, svc, type Sandbox } from "./helpers.js";
import { searxResult, startStub, type Stub } from "../support/search-stub.js";

const KEY = "search-cli-key-987";

let sb: Sandbox;
let env: NodeJS.ProcessEnv;
let searx: Stub;
let refusing: Stub;
let platform: Stub;
let platformReply: (req: { body: unknown }, i: number) => { status?: number; headers?: Record<string, string>; json?: unknown };

beforeAll(async () => {
  assertBuilt();
  sb = sandbox();
  env = { ...sb.env };
  // Nothing from the developer's shell decides the backend here.
  for (const k of ["SVC_SEARCH_URL", "SVC_ENV", "BROWSERBASE_API_KEY", "BROWSERBASE_BASE_URL", "SVC_API_URL"]) delete env[k];
  searx = await startStub((req) => {
    if (req.query.format !== "json") return { status: 403, text: "Forbidden" };
    const results =
      (req.query.pageno ?? "1") !== "1"
        ? []
        : [
            searxResult(1, { title: "Boston Fern\u001b[2J care", publishedDate: "2024-03-01T10:00:00" }),
            searxResult(2),
            searxResult(3, { publishedDate: "2023-07-08" }),
          ];
    return { json: { query: req.query.q, results } };
  });
  refusing = await startStub(() => ({ status: 403, text: "<html>Forbidden</html>" }));
  platform = await startStub((req, i) => platformReply(req, i));
});

afterAll(async () => {
  await Promise.all([searx?.close(), refusing?.close(), platform?.close()]);
  sb?.cleanup();
});

beforeEach(async () => {
  searx.requests.length = 0;
  platform.requests.length = 0;
  platformReply = (req) => ({
    json: {
      query: (req.body as { query: string }).query,
      requestId: "plat-1",
      results: [{ id: "p1", url: "https://platform.example/a", title: "Platform result", author: null, favicon: null, image: null, publishedDate: "2022-02-02T00:00:00.000Z" }],
    },
  });
  await svc(["config", "unset", "search.url"], env);
});

describe("svc search", () => {
  it("with no backend: exit 9, one line saying how to configure one", async () => {
    const r = await svc(["search", "boston fern"], env);
    expect(r.code).toBe(9);
    expect(r.stdout).toBe("");
    const line = expectOneLine(r.stderr);
    expect(line).toMatch(/^svc: no search backend is configured/);
    for (const how of ["svc config set search.url https://searx.example.org", "SVC_SEARCH_URL", "--env BROWSERBASE", "BROWSERBASE_API_KEY"]) expect(line).toContain(how);

    const j = await svc(["--json", "search", "boston fern"], env);
    expect(j.code).toBe(9);
    expect(json(j.stdout)).toMatchObject({ schemaVersion: 1, ok: false, error: { code: "SEARCH_NOT_CONFIGURED" } });
  });

  it("config search.url → SearXNG: a ranked list of title, URL and date", async () => {
    expect((await svc(["config", "set", "search.url", searx.url], env)).code).toBe(0);
    const r = await svc(["search", "boston fern", "-n", "2"], env);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    // Control characters from the web never reach the terminal.
    expect(r.stdout).toBe(["1. Boston Fern [2J care", "   https://site1.example.org/page/1 · 2024-03-01", "2. Result 2", "   https://site2.example.org/page/2", ""].join("\n"));
    expect(searx.requests.map((q) => [q.path, q.query.q, q.query.format])).toEqual([["/search", "boston fern", "json"]]);
  });

  it("SVC_SEARCH_URL and --json: {schemaVersion, ok, query, requestId, results} in the documented casing", async () => {
    const r = await svc(["--json", "search", "  boston fern  ", "--num-results", "3"], { ...env, SVC_SEARCH_URL: searx.url });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const doc = json<{ schemaVersion: number; ok: boolean; query: string; requestId: string; results: Array<Record<string, unknown>> }>(r.stdout);
    expect(Object.keys(doc)).toEqual(["schemaVersion", "ok", "query", "requestId", "results"]);
    expect(doc).toMatchObject({ schemaVersion: 1, ok: true, query: "boston fern" });
    expect(doc.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(doc.results).toHaveLength(3);
    expect(doc.results[0]).toMatchObject({ url: "https://site1.example.org/page/1", publishedDate: "2024-03-01T10:00:00.000Z", favicon: "https://site1.example.org/favicon.ico", author: null, image: null });
    expect(doc.results[2]).toMatchObject({ publishedDate: "2023-07-08T00:00:00.000Z" });
    expect(doc.results[0]).not.toHaveProperty("published_date");
  });

  it("invalid input: exit 2 naming the rule, and nothing is sent", async () => {
    const e = { ...env, SVC_SEARCH_URL: searx.url };
    const cases: Array<[string[], string]> = [
      [["search", "fern", "-n", "30"], "svc: numResults: an integer 1 to 25 (got 30)"],
      [["search", "fern", "-n", "0"], "svc: numResults: an integer 1 to 25 (got 0)"],
      [["search", "fern", "-n", "five"], 'svc: numResults: an integer 1 to 25 (got "five")'],
      [["search", "   "], "svc: query: 1 to 200 characters (got 0)"],
      [["search", "x".repeat(201)], "svc: query: 1 to 200 characters (got 201)"],
    ];
    for (const [args, message] of cases) {
      const r = await svc(args, e);
      expect(r.code, args.join(" ")).toBe(2);
      expect(expectOneLine(r.stderr)).toBe(message);
    }
    // Checked before the backend too: no backend configured still says what is wrong with the input.
    expect((await svc(["search", "fern", "-n", "26"], env)).code).toBe(2);
    expect(searx.requests).toHaveLength(0);
  });

  it("an instance without the JSON format: exit 9 saying how to enable it", async () => {
    const r = await svc(["search", "fern"], { ...env, SVC_SEARCH_URL: refusing.url });
    expect(r.code).toBe(9);
    expect(expectOneLine(r.stderr)).toContain("formats: [html, json]");
  });

  it("--env BROWSERBASE: the platform's search with the key; search.url still wins when set", async () => {
    const cloud = { ...env, BROWSERBASE_API_KEY: KEY, BROWSERBASE_BASE_URL: platform.url };
    const r = await svc(["--env", "BROWSERBASE", "search", "ferns", "-n", "4"], cloud);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("1. Platform result\n   https://platform.example/a · 2022-02-02\n");
    expect(platform.requests).toHaveLength(1);
    expect(platform.requests[0]).toMatchObject({ method: "POST", path: "/v1/search", body: { query: "ferns", numResults: 4 } });
    expect(platform.requests[0]!.headers["x-bb-api-key"]).toBe(KEY);

    const viaSearx = await svc(["--env", "BROWSERBASE", "search", "ferns"], { ...cloud, SVC_SEARCH_URL: searx.url });
    expect(viaSearx.code).toBe(0);
    expect(viaSearx.stdout).toContain("Result 2");
    expect(platform.requests).toHaveLength(1);

    const noKey = await svc(["--env", "BROWSERBASE", "search", "ferns"], { ...env, BROWSERBASE_BASE_URL: platform.url });
    expect(noKey.code).toBe(2);
    expect(expectOneLine(noKey.stderr)).toContain("BROWSERBASE_API_KEY");
    expect(platform.requests).toHaveLength(1);
  });

  it("platform 429: waits as asked and succeeds; a lasting 429 ends with a rate-limit error", async () => {
    const cloud = { ...env, BROWSERBASE_API_KEY: KEY, BROWSERBASE_BASE_URL: platform.url };
    const ok = platformReply;
    platformReply = (req, i) => (i === 0 ? { status: 429, headers: { "retry-after": "1" }, json: { message: "slow down" } } : ok(req, i));
    const r = await svc(["--env", "BROWSERBASE", "search", "ferns"], cloud);
    expect(r.code).toBe(0);
    expect(platform.requests).toHaveLength(2);
    expect(platform.requests[1]!.at - platform.requests[0]!.at).toBeGreaterThanOrEqual(1000);

    platform.requests.length = 0;
    platformReply = () => ({ status: 429, headers: { "retry-after": "0" }, json: { message: "slow down" } });
    const j = await svc(["--json", "--env", "BROWSERBASE", "search", "ferns"], cloud);
    expect(j.code).toBe(1);
    expect(json(j.stdout)).toMatchObject({ ok: false, error: { code: "RATE_LIMITED", message: expect.stringContaining("after 4 attempts") } });
    expect(platform.requests).toHaveLength(4);
  });
});
