/**
 * Cloud mode of the CLI against a real spawned `svc serve`: `sessions start --cloud` makes a keepAlive platform
 * session marked `kind: "cloud"`, on which goto, act, extract, history and metrics run remotely; `sessions end`
 * releases it and its Chrome is gone. One-shot commands with env BROWSERBASE create and release one. No API key lands
 * in the state dir or output.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { step } from "../e2e/agent-support.js";
import { type ModelWorld, chromePidsOf, expectNoChrome, expectOneLine, filesUnder, json, startModelWorld, svc } from "./helpers.js";

import { type Served, startServe } from "./serve-helpers.js";

const KEY = "cloud-test-key-0123456789";

let world: ModelWorld;
let served: Served;
let env: NodeJS.ProcessEnv;

interface CloudJson {
  session: { kind: string; id: string; connectUrl: string; apiUrl: string; platformUrl: string };
}

beforeAll(async () => {
  world = await startModelWorld();
  // No warm browser: these tests count the server's Chromes to see each session's end (the pool has its own test).
  served = await startServe(world.sb.env, ["--api-key", KEY, "--warm-browsers", "0"]);
  // Cloud mode through the environment; --env BROWSERBASE is given per command where it matters.
  env = { ...world.sb.env, BROWSERBASE_API_KEY: KEY, BROWSERBASE_BASE_URL: served.url };
}, 60_000);

afterAll(async () => {
  served?.child.kill("SIGTERM");
  const r = await served?.done;
  await world?.close();
  expect(r?.code).toBe(0);
});

beforeEach(() => world.fake.reset());

// A failed test must not leave its cloud session to the next one: release whatever still runs.
afterEach(async () => {
  for (const s of await running().catch(() => [])) {
    await fetch(`${served.url}/v1/sessions/${s.id}`, { method: "POST", headers: { "x-bb-api-key": KEY, "content-type": "application/json" }, body: JSON.stringify({ status: "REQUEST_RELEASE" }) });
  }
  await svc(["sessions", "end", "--all"], env);
});

const page = () => world.server.url("forms.html");
/** Chrome processes of the server (marked with the sandbox's TMPDIR). */
const chromes = () => chromePidsOf(world.sb.tmp);

async function running(): Promise<{ id: string }[]> {
  const res = await fetch(`${served.url}/v1/sessions?status=RUNNING`, { headers: { "x-bb-api-key": KEY } });
  expect(res.status).toBe(200);
  return (await res.json()) as { id: string }[];
}

/** No file under the state or config dirs holds the platform key (settings come from the env here). */
function expectNoKeyStored(): void {
  for (const dir of [world.sb.state, world.sb.config]) {
    for (const f of filesUnder(dir)) {
      let text = "";
      try {
        text = readFileSync(join(dir, f), "utf8");
      } catch {
        continue; // a directory
      }
      expect(text, f).not.toContain(KEY);
    }
  }
}

describe("svc sessions --cloud against svc serve", () => {
  it("start → list/show → goto → act → extract → history/metrics → end: the server's Chrome is gone", async () => {
    const started = await svc(["--json", "--env", "BROWSERBASE", "sessions", "start", "--viewport", "900x700"], env);
    expect(started.stderr).toBe("");
    expect(started.code).toBe(0);
    const { session } = json<CloudJson>(started.stdout);
    expect(session).toMatchObject({ kind: "cloud", apiUrl: served.url, platformUrl: served.url });
    expect(session.connectUrl).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:${served.port}/v1/connect/${session.id}/`));
    expect((await running()).map((s) => s.id)).toEqual([session.id]);
    expect(chromes().length).toBeGreaterThan(0);

    const listed = await svc(["--json", "sessions", "list"], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(json<{ sessions: unknown[] }>(listed.stdout).sessions).toEqual([expect.objectContaining({ id: session.id, kind: "cloud", alive: true, status: "alive" })]);
    const text = await svc(["sessions", "list"], env);
    expect(text.stdout).toMatch(new RegExp(`${session.id}\\s+-\\s+cloud\\s+alive`));

    // Later commands need neither --env nor the URL: the session's record says where it lives.
    const nav = await svc(["--json", "goto", page()], { ...env, BROWSERBASE_BASE_URL: "" });
    expect(nav.stderr).toBe("");
    expect(nav.code).toBe(0);
    expect(json(nav.stdout)).toMatchObject({ session: session.id, title: "Forms", url: page() });

    const fill = { selector: "#name", description: "name field", method: "fill", arguments: ["Ada Lovelace"] };
    const acted = await svc(["--json", "act", "--action", JSON.stringify(fill)], env);
    expect(acted.stderr).toBe("");
    expect(acted.code).toBe(0);
    expect(json(acted.stdout)).toMatchObject({ session: session.id, result: { success: true } });

    // With the model: the server calls it (the fake), with the key the CLI sent along.
    const clicked = await svc(["--json", "act", "please click the Subscribe to newsletter checkbox"], env);
    expect(clicked.code, clicked.stdout + clicked.stderr).toBe(0);
    expect(json(clicked.stdout)).toMatchObject({ session: session.id, result: { success: true } });
    expect(world.fake.requests.map((r) => r.operation)).toEqual(["act"]);
    expect(world.fake.requests[0]!.headers.authorization).toBe("Bearer sk-test");

    const extracted = await svc(["--json", "extract", "the full name"], env);
    expect(extracted.code, extracted.stderr).toBe(0);
    expect(json<{ result: { extraction: string } }>(extracted.stdout).result.extraction).toContain("Ada Lovelace");

    // The same browser throughout: the page keeps what earlier commands did to it.
    const pageText = json<{ pageText: string; url: string }>((await svc(["--json", "extract"], env)).stdout);
    expect(pageText.url).toBe(page());
    expect(pageText.pageText).toMatch(/Full name: Ada Lovelace/);
    expect(pageText.pageText).toMatch(/checkbox Subscribe to newsletter.*checked/);

    const history = json<{ session: string; entries: { method: string }[] }>((await svc(["--json", "history"], env)).stdout);
    expect(history.session).toBe(session.id);
    expect(history.entries.map((e) => e.method)).toEqual(["navigate", "act", "act", "extract", "extract"]);
    const metrics = json<{ commands: number; metrics: Record<string, number> }>((await svc(["--json", "metrics"], env)).stdout);
    expect(metrics.commands).toBe(5);
    expect(metrics.metrics.actPromptTokens).toBeGreaterThan(0);
    expect(metrics.metrics.extractPromptTokens).toBeGreaterThan(0);

    const shown = await svc(["--json", "sessions", "show", session.id], env);
    expect(json(shown.stdout)).toMatchObject({ session: { id: session.id, kind: "cloud", status: "alive" }, historyEntries: 5 });
    expect(`${listed.stdout}${shown.stdout}${nav.stdout}`).not.toContain(KEY);
    expectNoKeyStored();

    const ended = await svc(["--json", "sessions", "end"], env);
    expect(ended.stderr).toBe("");
    expect(ended.code).toBe(0);
    expect(json(ended.stdout)).toMatchObject({ ended: [session.id] });
    await expectNoChrome(world.sb.tmp);
    expect(await running()).toEqual([]);
    expect(json<{ sessions: unknown[] }>((await svc(["--json", "sessions", "list"], env)).stdout).sessions).toEqual([]);
    const none = await svc(["snapshot"], env);
    expect(none.code).toBe(4);
    expect(expectOneLine(none.stderr)).toMatch(/no running session/);
  }, 180_000);

  it("a session the platform no longer runs is shown as gone and its record removed", async () => {
    const started = await svc(["--json", "sessions", "start", "--cloud"], env);
    expect(started.code, started.stderr).toBe(0);
    const { id } = json<CloudJson>(started.stdout).session;
    // Released behind the CLI's back (another client, the platform's own timeout …).
    const rel = await fetch(`${served.url}/v1/sessions/${id}`, { method: "POST", headers: { "x-bb-api-key": KEY, "content-type": "application/json" }, body: JSON.stringify({ status: "REQUEST_RELEASE" }) });
    expect(rel.status).toBe(200);
    await expectNoChrome(world.sb.tmp);
    const used = await svc(["--session", id, "goto", page()], env);
    expect(used.code).toBe(4);
    expect(expectOneLine(used.stderr)).toMatch(new RegExp(`cloud session ${id} is no longer running.*removed its record`));

    const again = await svc(["--json", "sessions", "start", "--cloud"], env);
    const second = json<CloudJson>(again.stdout).session.id;
    await fetch(`${served.url}/v1/sessions/${second}`, { method: "POST", headers: { "x-bb-api-key": KEY, "content-type": "application/json" }, body: JSON.stringify({ status: "REQUEST_RELEASE" }) });
    const listed = json<{ sessions: unknown[] }>((await svc(["--json", "sessions", "list"], env)).stdout).sessions;
    expect(listed).toEqual([expect.objectContaining({ id: second, kind: "cloud", alive: false, status: "gone" })]);
    expect(json<{ sessions: unknown[] }>((await svc(["--json", "sessions", "list"], env)).stdout).sessions).toEqual([]);
    await expectNoChrome(world.sb.tmp);
  }, 90_000);
});

describe("one-shot commands in cloud mode", () => {
  it("extract URL with --env BROWSERBASE runs on a new cloud session and releases it", async () => {
    const r = await svc(["--json", "--env", "browserbase", "extract", page()], env);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(json<{ pageText: string }>(r.stdout).pageText).toContain("Full name");
    expect(await running()).toEqual([]);
    await expectNoChrome(world.sb.tmp);
  }, 60_000);

  it("the stored settings select cloud mode too (config env, browserbase.apiKey, cloud.platformUrl); agent runs remotely", async () => {
    const cfg = { ...world.sb.env, SVC_CONFIG_DIR: join(world.sb.config, "..", "config-cloud") };
    for (const [k, v] of [["env", "browserbase"], ["browserbase.apiKey", KEY], ["cloud.platformUrl", served.url]]) {
      const set = await svc(["config", "set", k!, v!], cfg);
      expect(set.code, set.stderr).toBe(0);
      expect(set.stdout).not.toContain(KEY);
    }
    expect(json((await svc(["--json", "config", "get", "env"], cfg)).stdout)).toMatchObject({ value: "BROWSERBASE", source: "stored" });

    world.fake.script(step("done", { message: "the form is there", success: true }));
    const r = await svc(["--json", "agent", "check the form", "--url", page()], cfg, { timeoutMs: 90_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const last = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as { type: string; result: { success: boolean; message: string } };
    expect(last).toMatchObject({ type: "result", result: { success: true, message: "the form is there" } });
    expect(world.fake.requests.length).toBeGreaterThan(0);
    expect(await running()).toEqual([]);
    await expectNoChrome(world.sb.tmp);

    // --env LOCAL overrides the stored setting: a local one-shot browser (no cloud session at all).
    const local = await svc(["--json", "--env", "LOCAL", "extract", page()], cfg);
    expect(local.code, local.stderr).toBe(0);
    expect(await running()).toEqual([]);
    // Its browser is closed at the end too (and so not left to the next test's count of the server's Chromes).
    await expectNoChrome(world.sb.tmp);
  }, 120_000);

  it("cloud mode without a key, or with local-only flags, is a usage error before anything starts", async () => {
    const noKey = await svc(["--env", "BROWSERBASE", "extract", page()], { ...world.sb.env, BROWSERBASE_API_KEY: "" });
    expect(noKey.code).toBe(2);
    expect(expectOneLine(noKey.stderr)).toMatch(/needs the platform's API key.*BROWSERBASE_API_KEY.*browserbase\.apiKey/);
    const headed = await svc(["--env", "BROWSERBASE", "extract", page(), "--headed"], env);
    expect(headed.code).toBe(2);
    expect(expectOneLine(headed.stderr)).toMatch(/--headed applies to a local browser/);
    const badEnv = await svc(["--env", "MARS", "sessions", "list"], env);
    expect(badEnv.code).toBe(2);
    expect(expectOneLine(badEnv.stderr)).toMatch(/--env.*LOCAL, BROWSERBASE/);
    const wrongKey = await svc(["--env", "BROWSERBASE", "extract", page()], { ...env, BROWSERBASE_API_KEY: "not-the-server-key" });
    expect(wrongKey.code).toBe(2);
    expect(expectOneLine(wrongKey.stderr)).toMatch(/rejected the key \(401\)/);
    expect(await running()).toEqual([]);
    expect(chromes()).toEqual([]);
  }, 60_000);
});
