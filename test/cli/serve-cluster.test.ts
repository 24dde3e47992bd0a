/**
 * `svc serve`'s cluster flags (issue 13) through the built CLI: each bad combination is a usage error
 * (exit 2, one line naming the flag) before anything listens, and a Redis that does not answer fails the
 * start the same way (the URL's password never shown).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, assertBuilt, expectOneLine, sandbox, svc } from "./helpers.js";

const KEY = "serve-cluster-key-0123";
const SECRET = "cluster-secret-0123456789";
let sb: Sandbox;

beforeAll(() => {
  assertBuilt();
  sb = sandbox();
});
afterAll(() => sb?.cleanup());

describe("svc serve --store", () => {
  it("bad cluster flags are usage errors naming the flag", async () => {
    const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
      [["--store", "redis://127.0.0.1:6379"], {}, /cluster secret.*--cluster-secret.*SVC_CLUSTER_SECRET/],
      [["--store", "redis://127.0.0.1:6379", "--cluster-secret", "short"], {}, /--cluster-secret needs at least 16 characters/],
      [["--store", "ftp://nowhere"], {}, /--store must be memory or a Redis URL/],
      [["--advertise-url", "http://10.0.0.5:3000"], {}, /--advertise-url needs a shared store/],
      [["--store", "redis://127.0.0.1:6379", "--cluster-secret", SECRET, "--advertise-url", "nope"], {}, /--advertise-url must be an http\(s\) URL/],
      [["--store", "redis://127.0.0.1:6379", "--cluster-secret", SECRET, "--cluster-lease", "60000"], {}, /--cluster-lease must be a whole number of milliseconds from 200 to 15000/],
      [["--store", "redis://127.0.0.1:6379", "--cluster-secret", SECRET, "--cluster-lease", "1000", "--cluster-heartbeat", "800"], {}, /--cluster-heartbeat must be at most half of the lease/],
      [[], { SVC_STORE: "redis://127.0.0.1:6379" }, /SVC_CLUSTER_SECRET/],
      [["--store", "redis://127.0.0.1:6379", "--cluster-secret", SECRET, "--cluster-grace", "70000"], {}, /--cluster-grace must be a whole number of milliseconds from 0 to 60000/],
      [["--cluster-grace", "1000"], {}, /--cluster-grace needs a shared store/],
    ];
    for (const [args, env, message] of cases) {
      const r = await svc(["serve", "--port", "0", "--api-key", KEY, ...args], { ...sb.env, ...env });
      expect(r.code, args.join(" ")).toBe(2);
      expect(expectOneLine(r.stderr)).toMatch(message);
    }
  });

  it("a Redis that does not answer fails the start, its password masked", async () => {
    const env = { ...sb.env, SVC_API_KEYS: KEY, SVC_STORE: "redis://:hunter2-password@127.0.0.1:1", SVC_CLUSTER_SECRET: SECRET };
    const r = await svc(["serve", "--port", "0"], env, { timeoutMs: 30_000 });
    expect(r.code).toBe(2);
    const line = expectOneLine(r.stderr);
    expect(line).toMatch(/--store: the Redis at redis:\/\/:?\*\*\*@127\.0\.0\.1:1 did not answer \(.*ECONNREFUSED.*\)/);
    expect(r.stderr + r.stdout).not.toContain("hunter2");
  });
});
