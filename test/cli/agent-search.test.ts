/**
 * `svc agent --search`: the run gets the search tool, backed by the SearXNG instance of config `search.url`
 * (a loopback stub here); without the flag the tool is absent.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { step } from "../e2e/agent-support.js";
import { searxResult, startStub, type Stub } from "../support/search-stub.js";
import { type ModelWorld, startModelWorld, svc, expectNoChrome } from "./helpers.js";

let world: ModelWorld;
let searx: Stub;

beforeAll(async () => {
  world = await startModelWorld();
  searx = await startStub((req) => ({ json: { query: req.query.q, results: (req.query.pageno ?? "1") === "1" ? [searxResult(1, { title: "Boston Fern care" }), searxResult(2)] : [] } }));
  const set = await svc(["config", "set", "search.url", searx.url], world.sb.env);
  expect(set.code, set.stderr).toBe(0);
});

afterAll(async () => {
  await searx?.close();
  await world?.close();
});

beforeEach(() => {
  world.fake.reset();
  searx.requests.length = 0;
});

const lines = (stdout: string) =>
  stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);

describe("svc agent --search", () => {
  it("the model can search through config search.url; the results reach its next step", async () => {
    world.fake.script(step("search", { query: "boston fern care", numResults: 2 }), step("done", { message: "found it", success: true }));
    const r = await svc(["--json", "agent", "find how to care for a boston fern", "--search", "--url", world.server.url("forms.html")], world.sb.env);
    expect(r.code, r.stderr).toBe(0);
    expect(searx.requests.map((q) => q.query.q)).toEqual(["boston fern care"]);
    const events = lines(r.stdout);
    expect(events.find((e) => e.type === "tool_call" && e.tool === "search")).toBeTruthy();
    expect(events.find((e) => e.type === "tool_result" && e.tool === "search")).toMatchObject({ ok: true });
    // Offered to the model (the same check the next test makes in reverse).
    expect(JSON.stringify(world.fake.requestsFor("agent_step")[0]!.body)).toContain('"search"');
    const second = world.fake.requestsFor("agent_step")[1]!;
    expect(JSON.stringify(second.body)).toContain("Boston Fern care");
    await expectNoChrome(world.sb.tmp);
  });

  it("without --search the tool is not offered", async () => {
    world.fake.script(step("done", { message: "nothing to do", success: true }));
    const r = await svc(["--json", "agent", "say hello", "--url", world.server.url("forms.html")], world.sb.env);
    expect(r.code, r.stderr).toBe(0);
    const first = world.fake.requestsFor("agent_step")[0]!;
    expect(JSON.stringify(first.body)).not.toContain('"search"');
    expect(searx.requests).toHaveLength(0);
  });
});
