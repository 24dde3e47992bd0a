/** `svc config`: masking, file mode 0600, validation of keys and values, precedence flag > env > stored. */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Sandbox, assertBuilt, expectOneLine, json, sandbox, svc } from "./helpers.js";

const KEY = "sk-proj-ABCDEFGHIJKLMNOPQRSTUV-abcd";

beforeAll(() => assertBuilt());

describe("svc config", () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = sandbox();
  });
  afterEach(() => sb.cleanup());

  const file = () => join(sb.config, "config.json");

  it("set/get/list mask secrets; the file keeps them at mode 0600", async () => {
    const set = await svc(["config", "set", "openai.apiKey", KEY], sb.env);
    expect(set.stderr).toBe("");
    expect(set.code).toBe(0);
    expect(set.stdout).not.toContain(KEY);
    expect(set.stdout).toContain("sk-…abcd");

    expect(statSync(file()).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file(), "utf8"))).toEqual({ openai: { apiKey: KEY } });

    const get = await svc(["config", "get", "openai.apiKey"], sb.env);
    expect(get.code).toBe(0);
    expect(get.stdout.trim()).toBe("sk-…abcd");

    const getJson = await svc(["--json", "config", "get", "openai.apiKey"], sb.env);
    expect(json(getJson.stdout)).toEqual({ schemaVersion: 1, ok: true, key: "openai.apiKey", value: "sk-…abcd", source: "stored" });

    const list = await svc(["config", "list"], sb.env);
    expect(list.code).toBe(0);
    expect(list.stdout).not.toContain(KEY);
    expect(list.stdout).toMatch(/openai\.apiKey\s+sk-…abcd\s+stored/);
    expect(list.stdout).toMatch(/browser\.headless\s+true\s+default/);
    expect(list.stdout).toMatch(/session\.idleTimeoutMinutes\s+60\s+default/);

    const listJson = json<{ settings: { key: string; value: unknown; source: string }[] }>((await svc(["--json", "config", "list"], sb.env)).stdout);
    expect(JSON.stringify(listJson)).not.toContain(KEY);
    expect(listJson.settings.find((s) => s.key === "anthropic.apiKey")).toMatchObject({ value: null, source: "unset" });

    // Writing again keeps the mode, also when the file had been loosened by hand.
    await import("node:fs").then((fs) => fs.chmodSync(file(), 0o644));
    expect((await svc(["config", "set", "browser.headless", "false"], sb.env)).code).toBe(0);
    expect(statSync(file()).mode & 0o777).toBe(0o600);
    const headless = json((await svc(["--json", "config", "get", "browser.headless"], sb.env)).stdout);
    expect(headless).toMatchObject({ value: false, source: "stored" });

    const unset = await svc(["config", "unset", "openai.apiKey"], sb.env);
    expect(unset.code).toBe(0);
    expect(json((await svc(["--json", "config", "get", "openai.apiKey"], sb.env)).stdout)).toMatchObject({ value: null, source: "unset" });
    expect(readFileSync(file(), "utf8")).not.toContain(KEY);
  }, 60_000);

  it("unknown keys are rejected with one line and exit 2", async () => {
    for (const args of [["config", "set", "openai.apikey", "x"], ["config", "get", "nope"], ["config", "unset", "browser"]]) {
      const r = await svc(args, sb.env);
      expect(r.code).toBe(2);
      expect(expectOneLine(r.stderr)).toMatch(/unknown config key ".*" \(known: openai\.apiKey/);
      expect(r.stdout).toBe("");
    }
  });

  it("values are validated", async () => {
    const cases: [string, string, RegExp][] = [
      ["browser.headless", "maybe", /browser\.headless must be true or false/],
      ["browser.viewport", "big", /browser\.viewport must be WIDTHxHEIGHT/],
      ["session.idleTimeoutMinutes", "-5", /must be a positive number/],
      ["openai.apiKey", "  ", /must not be empty/],
    ];
    for (const [key, value, message] of cases) {
      const r = await svc(["config", "set", key, value], sb.env);
      expect(r.code).toBe(2);
      expect(expectOneLine(r.stderr)).toMatch(message);
    }
    const ok = await svc(["--json", "config", "set", "browser.viewport", "1280X720"], sb.env);
    expect(json(ok.stdout)).toMatchObject({ key: "browser.viewport", value: "1280x720" });
  });

  it("precedence: env > stored > default", async () => {
    await svc(["config", "set", "openai.apiKey", KEY], sb.env);
    const envKey = "sk-env-0123456789-wxyz";
    const r = await svc(["--json", "config", "get", "openai.apiKey"], { ...sb.env, OPENAI_API_KEY: envKey });
    expect(json(r.stdout)).toMatchObject({ value: "sk-…wxyz", source: "env", envVar: "OPENAI_API_KEY" });
    expect(r.stdout).not.toContain(envKey);

    await svc(["config", "set", "session.idleTimeoutMinutes", "15"], sb.env);
    const stored = await svc(["--json", "config", "get", "session.idleTimeoutMinutes"], sb.env);
    expect(json(stored.stdout)).toMatchObject({ value: 15, source: "stored" });
    const env = await svc(["--json", "config", "get", "session.idleTimeoutMinutes"], { ...sb.env, SVC_IDLE_TIMEOUT_MINUTES: "2" });
    expect(json(env.stdout)).toMatchObject({ value: 2, source: "env" });
    const badEnv = await svc(["config", "get", "session.idleTimeoutMinutes"], { ...sb.env, SVC_IDLE_TIMEOUT_MINUTES: "soon" });
    expect(badEnv.code).toBe(2);
    expect(expectOneLine(badEnv.stderr)).toMatch(/SVC_IDLE_TIMEOUT_MINUTES must be a positive number/);
  });

  it("precedence for launches: --executable-path > CHROME_PATH > stored (seen in which path fails)", async () => {
    await svc(["config", "set", "browser.executablePath", "/stored/chrome"], sb.env);
    const url = "http://127.0.0.1:9/never-reached";
    const env = { ...sb.env, CHROME_PATH: "/env/chrome" };
    const flag = await svc(["extract", url, "--executable-path", "/flag/chrome"], env);
    expect(flag.code).toBe(3);
    expect(expectOneLine(flag.stderr)).toMatch(/\/flag\/chrome \(from --executable-path\)/);
    const fromEnv = await svc(["extract", url], env);
    expect(expectOneLine(fromEnv.stderr)).toMatch(/\/env\/chrome \(from CHROME_PATH\)/);
    const noEnv: NodeJS.ProcessEnv = { ...sb.env };
    delete noEnv.CHROME_PATH;
    const fromStored = await svc(["extract", url], noEnv);
    expect(expectOneLine(fromStored.stderr)).toMatch(/\/stored\/chrome \(from config browser\.executablePath\)/);
  });

  it("a corrupt config file is a one-line state error (8) naming it", async () => {
    await svc(["config", "set", "browser.headless", "true"], sb.env);
    await import("node:fs").then((fs) => fs.writeFileSync(file(), "{ not json"));
    const r = await svc(["config", "list"], sb.env);
    expect(r.code).toBe(8);
    expect(expectOneLine(r.stderr)).toContain(sb.config);
  });

  it("svc init refuses to run without a terminal", async () => {
    const r = await svc(["init"], sb.env);
    expect(r.code).toBe(2);
    expect(expectOneLine(r.stderr)).toMatch(/interactive terminal.*svc config set/);
  });

  it("--version prints the version; --help exits 0", async () => {
    // How fast --version is belongs to the bench (`npm run bench`: ≤ 120 ms), not to a timed test; what
    // keeps it fast (main.ts loads no dependency for it) is checked by test/unit/architecture.test.ts.
    const v = await svc(["--version"], sb.env);
    expect(v.code).toBe(0);
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const h = await svc(["--help"], sb.env);
    expect(h.code).toBe(0);
    expect(h.stdout).toContain("sessions");
  });
});
