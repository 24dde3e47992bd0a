/**
 * Local and proxy model servers (Ollama, llama.cpp, vLLM, LM Studio, LiteLLM): the fake model behaves like
 * each (test/support/fake-model/local-servers.ts) and act, observe, extract and the fixture agent task run
 * through it with the real openai / @anthropic-ai/sdk clients. Each refused feature costs one extra
 * request, once per endpoint; wrapped JSON (reasoning blocks, fences, prose) costs none.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { forgetLearned, learnedFor } from "../../src/model/capabilities.js";
import { textIn } from "../support/browser.js";
import { startFakeModel, type FakeModel, type FakeRequest } from "../support/fake-model.js";
import { LOCAL_SERVERS, REFUSALS, localServer } from "../support/fake-model/local-servers.js";
import { expectText, useModelService, useModelWorld, withService } from "../support/models.js";
import { siteBrain } from "./agent-support.js";

const world = useModelWorld();
const variables = { customer: "Ada Lovelace", email: "ada@example.com" };
const TASK = "Order two Boston Ferns with express delivery and tell me the order number";

beforeEach(() => forgetLearned());

/** How each request asked for JSON. */
function levels(reqs: FakeRequest[]): string[] {
  return reqs.map((r) => r.body.response_format?.type ?? r.body.text?.format?.type ?? (r.body.tools ? "tool" : "prompt"));
}

/** Structured-output requests the server refused (400), i.e. what the fallbacks cost. */
const refused = (reqs: FakeRequest[]): number => reqs.filter((r) => r.response?.status === 400).length;

describe.each(LOCAL_SERVERS)("$label", ({ quirks }) => {
  const model = () => ({ modelName: "vllm/qwen3-8b", baseURL: world.fake.baseURL() });
  const env = useModelService(() => ({ model: model() }));
  // What the server refuses decides where svc settles: json_schema refused → json_object; both → prompt.
  const settled = quirks.jsonSchema ? (quirks.jsonObject ? "prompt" : "json_object") : "json_schema";
  const cost = settled === "prompt" ? 2 : settled === "json_object" ? 1 : 0;
  // A refusal of the schema itself (vLLM's xgrammar) holds for that schema only: act, observe and extract each pay it.
  const perSchema = quirks.jsonSchema === REFUSALS.vllmJsonSchema;

  it("act, observe and extract work; the fallback is paid once, on the first call", async () => {
    world.fake.mode = localServer(quirks);
    await env.svc.page.goto(world.server.url("forms.html"));

    const fill = await env.svc.act('please type "Ada Lovelace" into the Full name field');
    expect(fill.success).toBe(true);
    await expectText(env.svc.page, "#log", "name: Ada Lovelace");
    const found = await env.svc.observe("find the Email field");
    expect(found[0]).toMatchObject({ selector: "xpath=/html/body/form/p[2]/input" });
    const { extraction } = await env.svc.extract("what does the help text say");
    expect(extraction).toContain("Help: fill in the form and press Submit.");

    const reqs = world.fake.requests;
    const paid = perSchema ? 3 * cost : cost;
    expect(reqs).toHaveLength(3 + paid);
    expect(refused(reqs)).toBe(paid);
    // After the step down every request goes straight to the level that works.
    const answered = reqs.filter((r) => r.response?.status === 200);
    expect(levels(answered)).toEqual([settled, settled, settled]);
    if (!perSchema) expect(reqs.slice(cost).every((r) => r.response?.status === 200)).toBe(true);
    if (settled !== "json_schema") for (const r of answered) expect(r.systemText).toMatch(/follows this JSON Schema:\n\{/);
  });

  it("the fixture agent task completes (dom mode)", async () => {
    await env.svc.page.goto("about:blank");
    world.fake.mode = localServer(quirks, siteBrain({ start: world.server.url("site/index.html") }));
    const result = await env.svc.agent().execute({ instruction: TASK, variables });

    expect(await textIn(env.svc.page, "#summary")).toBe("Ada Lovelace ordered 2 × Boston Fern, delivery: Express.");
    expect(result).toMatchObject({ success: true, completed: true });
    const steps = world.fake.requestsFor("agent_step");
    expect(steps).toHaveLength(8 + cost);
    expect(refused(steps)).toBe(cost);
  });
});

describe("endpoint quirks", () => {
  const wireModel = (extra: Record<string, unknown> = {}) => ({ modelName: "ollama/llava", baseURL: world.fake.baseURL(), ...extra });

  it("a text-only endpoint: the screenshot is left out after one refused request, and the hybrid agent still finishes", async () => {
    await withService({ model: wireModel() }, async (svc) => {
      await svc.page.goto(world.server.url("site/index.html"));
      world.fake.mode = localServer({ arrayContent: REFUSALS.stringContent }, siteBrain({ start: world.server.url("site/index.html"), page: () => svc.page }));
      const result = await svc.agent({ mode: "hybrid" }).execute({ instruction: TASK, variables });
      expect(result).toMatchObject({ success: true, completed: true });
      const steps = world.fake.requestsFor("agent_step");
      expect(refused(steps)).toBe(1);
      expect(steps[0]!.response?.status).toBe(400);
      for (const r of steps.slice(1)) {
        for (const m of r.body.messages) expect(typeof m.content).toBe("string");
        expect(r.userText).toContain("A screenshot was left out: this model endpoint takes text only.");
      }
    });
  });

  it("Anthropic wire without tools (llama.cpp without --jinja): the schema goes in the prompt, one extra request", async () => {
    const model = { modelName: "anthropic/qwen3", apiKey: "none", baseURL: world.fake.baseURL("anthropic") };
    await withService({ model }, async (svc) => {
      world.fake.mode = localServer({ tools: REFUSALS.llamacppTools, wrap: ["think"] });
      await svc.page.goto(world.server.url("forms.html"));
      await svc.act('please type "Ada Lovelace" into the Full name field');
      await expectText(svc.page, "#log", "name: Ada Lovelace");
      const { extraction } = await svc.extract("what does the help text say");
      expect(extraction).toContain("Help: fill in the form");
      const reqs = world.fake.requests;
      expect(reqs.map((r) => r.response?.status)).toEqual([400, 200, 200]);
      expect(reqs[1]!.body.tools).toBeUndefined();
      expect(reqs[2]!.body.tools).toBeUndefined();
      expect(reqs[2]!.systemText).toMatch(/for "extract" that follows this JSON Schema/);

      // The agent's steps are JSON replies too: the fixture task runs without tools, nothing refused again.
      world.fake.reset();
      world.fake.mode = localServer({ tools: REFUSALS.llamacppTools, wrap: ["think", "fence"] }, siteBrain({ start: world.server.url("site/index.html") }));
      const result = await svc.agent().execute({ instruction: TASK, variables });
      expect(result).toMatchObject({ success: true, completed: true });
      const steps = world.fake.requestsFor("agent_step");
      expect(steps).toHaveLength(8);
      for (const r of steps) expect(r.body.tools).toBeUndefined();
    });
  });

  it("stated capabilities are used from the first request (no refused request) and never overridden", async () => {
    await withService({ model: wireModel({ capabilities: { structuredOutput: "prompt" } }) }, async (svc) => {
      world.fake.mode = localServer({ jsonSchema: REFUSALS.proxyResponseFormat, jsonObject: REFUSALS.proxyResponseFormat, wrap: ["prose"] });
      await svc.page.goto(world.server.url("forms.html"));
      await svc.act('please type "Ada Lovelace" into the Full name field');
      expect(levels(world.fake.requests)).toEqual(["prompt"]);
    });
    world.fake.reset();
    // A statement the server contradicts is the user's to see: the 400 is reported, nothing is stepped down.
    await withService({ model: wireModel({ modelName: "ollama/other", capabilities: { structuredOutput: "json_schema" } }) }, async (svc) => {
      world.fake.mode = localServer({ jsonSchema: REFUSALS.llamacppJsonSchema });
      await svc.page.goto(world.server.url("forms.html"));
      await expect(svc.act("please click the Submit button")).rejects.toThrow(/rejected the request \(400\): response_format type must be one of/);
      expect(world.fake.requests).toHaveLength(1);
    });
  });

  it("what was learned is remembered per endpoint for the process", async () => {
    await withService({ model: wireModel({ modelName: "ollama/mistral" }) }, async (svc) => {
      world.fake.mode = localServer({ jsonSchema: REFUSALS.llamacppJsonSchema });
      await svc.page.goto(world.server.url("forms.html"));
      await svc.act("please click the Submit button");
    });
    expect(learnedFor(`${world.fake.baseURL()} mistral`)).toEqual({ structuredOutput: "json_object" });
    world.fake.reset();
    await withService({ model: wireModel({ modelName: "ollama/mistral" }) }, async (svc) => {
      world.fake.mode = localServer({ jsonSchema: REFUSALS.llamacppJsonSchema });
      await svc.page.goto(world.server.url("forms.html"));
      await svc.act("please click the Submit button");
      expect(levels(world.fake.requests)).toEqual(["json_object"]);
    });
  });
});

describe("429 / 503 with Retry-After", () => {
  // Without the fake's fast-retry header, so the SDK waits what Retry-After says.
  let slow: FakeModel;
  beforeAll(async () => {
    slow = await startFakeModel({ fastRetry: false });
  });
  afterAll(async () => slow.close());

  it.each([429, 503] as const)("%s: retried after the server's Retry-After, then answered", async (status) => {
    slow.reset();
    slow.mode = localServer({ rateLimit: { times: 1, retryAfter: "1", status } });
    await withService({ model: { modelName: "vllm/qwen3-8b", baseURL: slow.baseURL() } }, async (svc) => {
      await svc.page.goto(world.server.url("forms.html"));
      const t0 = performance.now();
      await svc.act('please type "Ada Lovelace" into the Full name field');
      // Retry-After: 1 → the retry waited about a second (not the SDK's own 0.5 s first backoff).
      expect(performance.now() - t0).toBeGreaterThanOrEqual(950);
      await expectText(svc.page, "#log", "name: Ada Lovelace");
    });
    expect(slow.requests.map((r) => r.response?.status)).toEqual([status, 200]);
    expect(slow.requests[1]!.headers["x-stainless-retry-count"]).toBe("1");
  });
});
