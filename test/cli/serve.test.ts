/**
 * `svc serve` through the built CLI: no start without API keys (naming the three ways), flags validated, /healthz,
 * 401 without a key, keys from SVC_API_KEYS or the stored `server.apiKeys`, requests logged at --verbose 1 (never a
 * key), and on SIGTERM (exit 0) or SIGINT (exit 130) every browser it started ends.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Sandbox, assertBuilt, chromePidsOf, expectNoChrome, expectOneLine, json, sandbox, svc } from "./helpers.js";
import { type Served, startServe } from "./serve-helpers.js";

const KEY = "serve-test-key-0123456789";
const KEY2 = "second-key-abcdefghij";

beforeAll(() => assertBuilt());

const get = (url: string, key?: string) => fetch(url, { headers: key ? { "x-bb-api-key": key } : {} });

describe("svc serve: refuses bad configuration (exit 2, before listening)", () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = sandbox();
  });
  afterEach(() => sb.cleanup());

  it("no API key: one line naming --api-key, SVC_API_KEYS and server.apiKeys", async () => {
    const r = await svc(["serve", "--port", "0"], sb.env);
    expect(r.code).toBe(2);
    const line = expectOneLine(r.stderr);
    for (const way of ["--api-key", "SVC_API_KEYS", "server.apiKeys"]) expect(line).toContain(way);
    expect(r.stdout).toBe("");
    const j = await svc(["--json", "serve", "--port", "0"], sb.env);
    expect(j.code).toBe(2);
    expect(json(j.stdout)).toMatchObject({ schemaVersion: 1, ok: false, error: { code: "INVALID_ARGUMENT", message: expect.stringContaining("SVC_API_KEYS") } });
  });

  it("bad flags and short keys are usage errors naming the flag", async () => {
    const cases: [string[], RegExp][] = [
      [["--port", "nope", "--api-key", KEY], /--port/],
      [["--port", "70000", "--api-key", KEY], /--port/],
      [["--max-sessions", "0", "--api-key", KEY], /--max-sessions/],
      [["--session-timeout", "99999", "--api-key", KEY], /--session-timeout/],
      [["--public-url", "ftp://x", "--api-key", KEY], /--public-url/],
      [["--api-key", "short"], /--api-key: an API key needs at least 8 characters/],
      [["--allow-net", "not a host!", "--api-key", KEY], /^svc: --allow-net: "not a host!" is not a host/],
      [["--allow-net", "10.0.0.0/99", "--api-key", KEY], /--allow-net/],
      [["--model-endpoints", "file:///etc", "--api-key", KEY], /--model-endpoints must be an http\(s\) URL prefix/],
    ];
    for (const [args, message] of cases) {
      const r = await svc(["serve", ...args], sb.env);
      expect(r.code, args.join(" ")).toBe(2);
      expect(expectOneLine(r.stderr)).toMatch(message);
    }
    const env = await svc(["serve", "--port", "0"], { ...sb.env, SVC_API_KEYS: "ok-key-123456,tiny" });
    expect(env.code).toBe(2);
    expect(expectOneLine(env.stderr)).toMatch(/SVC_API_KEYS: an API key needs at least 8 characters/);
  });
});

describe("svc serve: running", () => {
  let sb: Sandbox;
  let served: Served | undefined;
  beforeEach(() => {
    sb = sandbox();
  });
  afterEach(async () => {
    served?.child.kill("SIGKILL");
    served = undefined;
    sb.cleanup();
  });

  it("answers /healthz, 401 without a key; SIGTERM ends every browser and exits 0", async () => {
    served = await startServe({ ...sb.env, SVC_API_KEYS: `${KEY},${KEY2}` });
    expect(served.url).toBe(`http://127.0.0.1:${served.port}`);
    const health = await get(`${served.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    expect((await get(`${served.url}/v1/sessions`)).status).toBe(401);
    expect((await get(`${served.url}/v1/sessions`, "not-a-known-key")).status).toBe(401);
    expect((await get(`${served.url}/v1/sessions`, KEY2)).status).toBe(200);

    // A browser session: a Chrome of the server's, with its profile under the sandbox's TMPDIR.
    const created = await fetch(`${served.url}/v1/sessions`, { method: "POST", headers: { "x-bb-api-key": KEY, "content-type": "application/json" }, body: "{}" });
    expect(created.status).toBeLessThan(300);
    const session = (await created.json()) as { id: string; status: string };
    expect(session.status).toBe("RUNNING");
    expect(chromePidsOf(sb.tmp).length).toBeGreaterThan(0);

    // A second server on the same port: a usage error naming the flag.
    const clash = await svc(["serve", "--port", String(served.port)], { ...sb.env, SVC_API_KEYS: KEY });
    expect(clash.code).toBe(2);
    expect(expectOneLine(clash.stderr)).toMatch(new RegExp(`--port ${served.port}: 127\\.0\\.0\\.1:${served.port} is already in use`));

    served.child.kill("SIGTERM");
    const r = await served.done;
    expect(r.code).toBe(0);
    // --json: exactly one JSON line on stdout; nothing on stderr at --verbose 0.
    expect(r.stdout.trim().split("\n")).toHaveLength(1);
    expect(json(r.stdout)).toEqual({ schemaVersion: 1, ok: true, url: served.url, port: served.port });
    expect(r.stderr).toBe("");
    await expectNoChrome(sb.tmp);
    await expect(get(`${served.url}/healthz`)).rejects.toThrow();
  }, 60_000);

  it("keys from SVC_API_KEYS, else the stored server.apiKeys (masked by svc config); --verbose 1 logs requests, never a key; SIGINT exits 130", async () => {
    const set = await svc(["config", "set", "server.apiKeys", `${KEY}, ${KEY2}`], sb.env);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).not.toContain(KEY);
    const shown = await svc(["--json", "config", "get", "server.apiKeys"], sb.env);
    expect(shown.stdout).not.toContain(KEY);
    expect(shown.stdout).not.toContain(KEY2);
    expect(json(shown.stdout)).toMatchObject({ source: "stored" });

    // The environment wins over the stored keys.
    const envKey = "env-only-key-987654321";
    // No warm browser (--warm-browsers 0): this test is about keys and logs, and creates no session.
    served = await startServe({ ...sb.env, SVC_API_KEYS: envKey }, ["--warm-browsers", "0"], ["--verbose", "1"]);
    expect((await get(`${served.url}/v1/sessions`, envKey)).status).toBe(200);
    expect((await get(`${served.url}/v1/sessions`, KEY)).status).toBe(401);
    served.child.kill("SIGINT");
    let r = await served.done;
    expect(r.code).toBe(130);
    expect(r.stdout).toBe("");
    // A state dir's first server generates the key of its data at rest (contexts), and says where; never the key.
    expect(r.stderr).toMatch(/^(svc serve: data key: generated \S+\/server-data\/data\.key\n)?svc serve: listening on http:\/\/127\.0\.0\.1:\d+; POST \/v1\/search answers 501 \(no --search-url\)\n/);
    expect(r.stderr).toMatch(/svc serve: GET \/v1\/sessions 200 \d+ms key=[0-9a-f]{16}\n/);
    expect(r.stderr).toMatch(/svc serve: GET \/v1\/sessions 401 /);
    expect(r.stderr).toMatch(/svc serve: stopped\n$/);
    expect(r.stderr).not.toContain(envKey);
    expect(r.stderr).not.toContain(KEY);

    // Without the env var: the stored keys (both of them).
    served = await startServe(sb.env, ["--warm-browsers", "0"], []);
    expect((await get(`${served.url}/v1/sessions`, KEY2)).status).toBe(200);
    expect((await get(`${served.url}/v1/sessions`, envKey)).status).toBe(401);
    served.child.kill("SIGTERM");
    r = await served.done;
    expect(r.code).toBe(0);
    // At --verbose 0, only what svc serve itself says.
    expect(r.stderr.split("\n").filter(Boolean)).toEqual([
      expect.stringMatching(/^svc serve: listening on http:\/\/127\.0\.0\.1:\d+; POST \/v1\/search answers 501 \(no --search-url\)$/),
      "svc serve: stopping (SIGTERM): finishing requests, ending every browser",
      "svc serve: stopped",
    ]);
    await expectNoChrome(sb.tmp);
  }, 60_000);
});
