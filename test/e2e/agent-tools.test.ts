/**
 * The dom tools beyond the site walk-through: act and extract run as sub-calls on the executionModel (their
 * usage in the act / extract metrics buckets, the steps' in the agent bucket), an extraction is shown to the
 * model once in the next step, and goto / back / scroll / screenshot / ariaTree / think do what they say.
 */
import { describe, expect, it } from "vitest";
import { textIn } from "../support/browser.js";
import type { FakeReply, FakeRequest } from "../support/fake-model.js";
import { refOf, useModelService, useModelWorld, WIRES } from "../support/models.js";
import { step, stepRequests, type Step } from "./agent-support.js";

const world = useModelWorld();
const wire = WIRES[0]!;
const env = useModelService(() => ({ model: wire.model(world.fake) }));

/** Agent steps from a list (in order); every other request (act/extract sub-calls) answered automatically. */
function steps(...list: Array<Step | ((req: FakeRequest) => Step)>): void {
  let i = 0;
  const reply: FakeReply = (req, auto) => {
    if (req.operation !== "agent_step") return { kind: "object", value: auto() };
    const next = list[i++] ?? step("done", { message: "out of script", success: false });
    return typeof next === "function" ? next(req) : next;
  };
  world.fake.script(...Array.from({ length: list.length * 3 + 2 }, () => reply));
}

describe("sub-operation tools", () => {
  it("act and extract call the executionModel; usage lands in their own metrics buckets", async () => {
    await env.svc.page.goto(world.server.url("site/index.html"));
    steps(
      step("act", { instruction: 'type "fern" into the Search plants field' }),
      step("extract", { instruction: "the names of all plants", schema: { type: "object", properties: { names: { type: "array", items: { type: "string" } } }, required: ["names"] } }),
      step("done", { message: "typed and read", success: true }),
    );
    const before = await env.svc.metrics;
    const exec = { ...wire.model(world.fake), modelName: "openai/gpt-exec" };
    const result = await env.svc.agent({ executionModel: exec }).execute("type fern and list the plants");
    expect(result).toMatchObject({ completed: true, success: true });
    expect(await env.svc.page.evaluate("document.querySelector('#q').value")).toBe("fern");

    const [act, extract] = result.actions;
    expect(act).toMatchObject({ type: "act", ok: true, instruction: 'type "fern" into the Search plants field' });
    expect(extract).toMatchObject({ type: "extract", ok: true, instruction: "the names of all plants" });
    expect(JSON.parse(extract!.pageText!)).toMatchObject({ names: expect.any(Array) });

    // Sub-calls went to the execution model; the steps to the agent's model.
    const sub = world.fake.requests.filter((r) => r.operation !== "agent_step");
    expect(sub.map((r) => r.operation)).toEqual(["act", "extract"]);
    for (const r of sub) expect(r.model).toBe("gpt-exec");
    for (const r of stepRequests(world.fake)) expect(r.model).toBe("gpt-test");
    // The extraction is shown once, in the next step.
    expect(stepRequests(world.fake)[2]!.note).toContain("Output of step 2 (extract):");

    const after = await env.svc.metrics;
    const delta = (k: keyof typeof after) => after[k] - before[k];
    expect(delta("actPromptTokens")).toBe(sub[0]!.response!.usage!.input);
    expect(delta("extractPromptTokens")).toBe(sub[1]!.response!.usage!.input);
    expect(delta("agentPromptTokens")).toBe(stepRequests(world.fake).reduce((n, r) => n + r.response!.usage!.input, 0));
    // The run's usage counts every call it made.
    expect(result.usage!.input_tokens).toBe(world.fake.requests.reduce((n, r) => n + r.response!.usage!.input, 0));
  });
});

describe("page tools", () => {
  it("goto, back, scroll, screenshot, ariaTree, think", async () => {
    await env.svc.page.goto(world.server.url("site/index.html"));
    steps(
      step("goto", { url: world.server.url("site/item.html?id=orchid") }),
      step("back", {}),
      step("scroll", { direction: "down" }),
      step("scroll", { percent: 0 }),
      step("screenshot", {}),
      step("ariaTree", { selector: "#results" }),
      step("think", { thought: "the list is there" }),
      step("done", { message: "looked around", success: true }),
    );
    const result = await env.svc.agent().execute("look around");
    expect(result.completed).toBe(true);
    expect(result.actions.map((a) => [a.type, a.ok])).toEqual([
      ["goto", true],
      ["back", true],
      ["scroll", true],
      ["scroll", true],
      ["screenshot", true],
      ["ariaTree", true],
      ["think", true],
      ["done", true],
    ]);
    expect(result.actions[0]!.pageUrl).toContain("item.html?id=orchid");
    expect(result.actions[1]!.pageUrl).toContain("site/index.html");
    const shot = result.actions[4]!.image as { mediaType: string; data: string };
    expect(shot.mediaType).toBe("image/png");
    expect(Buffer.from(shot.data, "base64").subarray(1, 4).toString()).toBe("PNG");
    expect(result.actions[4]!.result).toBe("saved");
    // The outline of the list, once, in the next step; the history keeps a one-liner.
    const reqs = stepRequests(world.fake);
    expect(reqs[6]!.note).toMatch(/Output of step 6 \(ariaTree\):\n {2}list Plants/);
    expect(reqs[7]!.note).not.toContain("Output of step 6");
    // History (in the agent entry) does not carry the screenshot.
    const entry = (await env.svc.history).filter((h) => h.method === "agent").at(-1)!;
    expect(JSON.stringify(entry.result)).not.toContain(shot.data.slice(0, 40));
    expect(await textIn(env.svc.page, "h1")).toBe("Garden Shop");
  });

  it("a failing tool (stale ref, bad URL) is an error line for the model; the run goes on", async () => {
    await env.svc.page.goto(world.server.url("site/index.html"));
    steps(step("goto", { url: "notaurl:::" }), step("keys", { key: "NoSuchKey" }), step("done", { message: "gave up", success: false }));
    const result = await env.svc.agent().execute("break things");
    expect(result).toMatchObject({ completed: true, success: false, message: "gave up" });
    expect(result.actions.slice(0, 2).map((a) => a.ok)).toEqual([false, false]);
    expect(stepRequests(world.fake)[2]!.note).toMatch(/2\. keys \{"key":"NoSuchKey"\} → error: unknown key "NoSuchKey"/);
  });
});

describe("highlightCursor", () => {
  it("in dom mode, a perform click first shows the cursor dot on the element", async () => {
    await env.svc.page.goto(world.server.url("site/item.html?id=orchid"));
    steps(
      (req) => step("perform", { ref: refOf(req, "link", "Order this plant"), method: "hover", arguments: [] }),
      step("done", { message: "hovered", success: true }),
    );
    const result = await env.svc.agent().execute({ instruction: "point at the order link", highlightCursor: true });
    expect(result.completed).toBe(true);
    type Seen = { dot: { x: number; y: number } | null; box: { l: number; t: number; r: number; b: number } };
    const { dot, box } = await env.svc.page.evaluate((): Seen => {
      const d = document.getElementById("__svc_cursor");
      const r = document.querySelector("#order-link")!.getBoundingClientRect();
      return { dot: d ? { x: parseFloat(d.style.left), y: parseFloat(d.style.top) } : null, box: { l: r.left, t: r.top, r: r.right, b: r.bottom } };
    });
    expect(dot).not.toBeNull();
    expect(dot!.x).toBeGreaterThanOrEqual(box.l);
    expect(dot!.x).toBeLessThanOrEqual(box.r);
    expect(dot!.y).toBeGreaterThanOrEqual(box.t);
    expect(dot!.y).toBeLessThanOrEqual(box.b);
  });

  it("without it, no dot is drawn", async () => {
    await env.svc.page.goto(world.server.url("site/item.html?id=orchid"));
    steps(
      (req) => step("perform", { ref: refOf(req, "link", "Order this plant"), method: "hover", arguments: [] }),
      step("done", { message: "hovered", success: true }),
    );
    await env.svc.agent().execute("point at the order link");
    expect(await env.svc.page.evaluate(() => document.getElementById("__svc_cursor") === null)).toBe(true);
  });
});
