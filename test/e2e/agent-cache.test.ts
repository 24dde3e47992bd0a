/**
 * The agent cache (cacheDir): a successful run is stored (refs as XPaths, variables as %name%) and replayed
 * with zero model calls, with this run's variable values; when a replayed step no longer fits the page, the
 * model takes over from that step and the entry is refreshed.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { textIn } from "../support/browser.js";
import { filesUnder, useModelService, useModelWorld, useTempDirs, WIRES } from "../support/models.js";
import { eventLog, scriptTimes, siteBrain, stepRequests } from "./agent-support.js";

const world = useModelWorld();
const tempDir = useTempDirs();
const wire = WIRES[0]!;
const TASK = "Order two Boston Ferns with express delivery for %customer% (%email%)";

describe("agent cache", () => {
  const dirs = { cache: "" };
  const env = useModelService(() => ({ model: wire.model(world.fake), cacheDir: (dirs.cache = tempDir()) }));
  const start = () => world.server.url("site/index.html");
  const run = async (customer: string) => {
    await env.svc.page.goto(start());
    return env.svc.agent().execute({ instruction: TASK, variables: { customer, email: "x@example.com" } });
  };
  const entryFile = () => filesUnder(dirs.cache).find((f) => f.path.includes("/agent/"))!.path;

  it("stores a successful run and replays it with zero model calls", async () => {
    scriptTimes(world.fake, siteBrain({ start: start() }));
    const first = await run("Ada Lovelace");
    expect(first).toMatchObject({ completed: true, metadata: { cacheStatus: "MISS" } });
    const calls = stepRequests(world.fake).length;
    expect(calls).toBe(7);
    const entry = JSON.parse(readFileSync(entryFile(), "utf8"));
    expect(entry.steps.map((s: { tool: string }) => s.tool)).toEqual(["perform", "keys", "perform", "perform", "fillForm", "perform", "done"]);
    expect(entry.steps[0].args.ref).toMatch(/^xpath=/);
    expect(JSON.stringify(entry)).not.toContain("Ada Lovelace");

    world.fake.reset();
    const log = eventLog();
    await env.svc.page.goto(start());
    const agent = env.svc.agent();
    agent.subscribe(log.listener);
    const second = await agent.execute({ instruction: TASK, variables: { customer: "Grace Hopper", email: "x@example.com" } });
    expect(world.fake.requests).toHaveLength(0);
    expect(second).toMatchObject({ completed: true, success: true, message: first.message, metadata: { cacheStatus: "HIT" } });
    expect(second.actions.every((a) => a.cached === true)).toBe(true);
    expect(second.usage).toMatchObject({ input_tokens: 0, output_tokens: 0 });
    // Replayed with this run's values.
    expect(await textIn(env.svc.page, "#summary")).toBe("Grace Hopper ordered 2 × Boston Fern, delivery: Express.");
    expect(log.events.filter((e) => e.type === "tool_call").every((e) => e.type === "tool_call" && e.cached)).toBe(true);
  });

  it("falls back to the model from the first step that no longer fits, then refreshes the entry", async () => {
    // The "Order this plant" link moved: its recorded XPath no longer resolves.
    const file = entryFile();
    const entry = JSON.parse(readFileSync(file, "utf8"));
    const i = entry.steps.findIndex((s: { tool: string; args: { ref?: string } }, n: number) => n > 2 && s.tool === "perform" && /\/p\[\d+\]\/a$/.test(s.args.ref ?? ""));
    expect(i).toBeGreaterThan(0);
    entry.steps[i].args.ref = "xpath=/html/body/p[99]/a";
    writeFileSync(file, JSON.stringify(entry));

    world.fake.reset();
    scriptTimes(world.fake, siteBrain({ start: start() }));
    const log = eventLog();
    await env.svc.page.goto(start());
    const agent = env.svc.agent();
    agent.subscribe(log.listener);
    const result = await agent.execute({ instruction: TASK, variables: { customer: "Ada Lovelace", email: "x@example.com" } });
    expect(result).toMatchObject({ completed: true, success: true, metadata: { cacheStatus: "PARTIAL" } });
    expect(await textIn(env.svc.page, "#summary")).toBe("Ada Lovelace ordered 2 × Boston Fern, delivery: Express.");
    const cached = result.actions.filter((a) => a.cached);
    expect(cached).toHaveLength(i + 1);
    expect(cached.at(-1)).toMatchObject({ ok: false });
    // The model picked up on the item page, told which steps were replayed.
    const reqs = stepRequests(world.fake);
    expect(reqs.length).toBeGreaterThan(0);
    expect(reqs.length).toBeLessThan(7);
    expect(reqs[0]!.url).toContain("/site/item.html");
    expect(reqs[0]!.note).toContain(`were replayed from a cache; step ${i + 1} failed`);
    expect(log.events.some((e) => e.type === "log" && e.message.startsWith("cache replay stopped"))).toBe(true);
    // Refreshed: the next run replays fully again.
    expect(readFileSync(file, "utf8")).not.toContain("p[99]");
  });
});
