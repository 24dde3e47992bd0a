/**
 * `--var` and `--variables` are one flag on act, observe, extract and agent: the model sees the name
 * (`%who%`), never the value (fake model over its real wire format, spawned svc on a live session).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FakeModel } from "../support/fake-model.js";
import type { FixtureServer } from "../support/server.js";
import { type ModelWorld, type Sandbox, startModelWorld, svc } from "./helpers.js";

let world: ModelWorld | undefined;
let server: FixtureServer;
let fake: FakeModel;
let sb: Sandbox;

beforeAll(async () => {
  world = await startModelWorld();
  ({ server, fake, sb } = world);
  const started = await svc(["sessions", "start"], sb.env);
  expect(started.code, started.stderr).toBe(0);
  expect((await svc(["goto", server.url("forms.html")], sb.env)).code).toBe(0);
}, 60_000);

afterAll(async () => {
  if (sb) await svc(["sessions", "end", "--all"], sb.env).catch(() => undefined);
  await world?.close();
});

beforeEach(() => fake.reset());

const SECRET = "Ada Lovelace";

describe("--var / --variables", () => {
  it.each([
    ["extract", "--var"],
    ["extract", "--variables"],
    ["observe", "--var"],
    ["observe", "--variables"],
    ["act", "--var"],
    ["act", "--variables"],
  ])("%s takes %s: the model sees the name, not the value", async (command, flag) => {
    const instruction = command === "act" ? "please type %who% into the Full name field" : "find the field for %who%";
    const r = await svc(["--json", command, instruction, flag, `who=${SECRET}`], sb.env);
    expect(r.code, r.stderr).toBe(0);
    const calls = fake.requests.filter((q) => q.operation === command);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls[0]!.variables).toEqual(["who"]);
    for (const q of fake.requests) expect(JSON.stringify(q.body)).not.toContain(SECRET);
    expect(r.stdout).not.toContain(SECRET);
  });

  it("agent takes --variables as well as --var (checked before any browser or model)", async () => {
    const r = await svc(["agent", "do it", "--variables", "no-equals-sign"], sb.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--var expects name=value, got "no-equals-sign"/);
    expect(fake.requests).toHaveLength(0);
  });

  it("extract without an instruction refuses --var (it calls no model)", async () => {
    const r = await svc(["extract", "--var", "who=x"], sb.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--var applies to an instruction or --schema/);
  });
});
