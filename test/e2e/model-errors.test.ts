/**
 * What goes wrong between the library and the model, through each wire format: a 429 (the SDK retries,
 * then success), 500s beyond the SDK's retries (LLMResponseError), a malformed reply (sent back once with
 * the parse problem, then success; twice → LLMResponseError), a deadline. Then metrics (per operation and
 * total, equal to the usage the server reported) and history.
 */
import { describe, expect, it } from "vitest";
import { LLMResponseError, ServiceTimeoutError } from "../../src/errors.js";
import type { Metrics } from "../../src/records.js";
import { expectText, inPage, useModelService, useModelWorld, usageOf, WIRES } from "../support/models.js";
import { SLACK_MS } from "../support/timing.js";

const world = useModelWorld();

describe.each(WIRES)("$label", (wire) => {
  const env = useModelService(() => ({ model: wire.model(world.fake), systemPrompt: "Prefer elements near the top." }));
  const page = () => env.svc.page;
  const open = async () => {
    await page().goto(world.server.url("forms.html"));
  };

  it("a 429 is retried by the SDK: two requests, success", async () => {
    await open();
    world.fake.script({ kind: "status", status: 429 });
    const res = await env.svc.act("please check the Subscribe to newsletter checkbox");
    expect(res.success).toBe(true);
    await expectText(page(), "#log", "subscribe: true");
    expect(world.fake.requests.map((r) => r.response?.status)).toEqual([429, 200]);
    // The same request, retried (the SDK counts its retries in a header).
    expect(world.fake.requests[1]!.body).toEqual(world.fake.requests[0]!.body);
    expect(world.fake.requests[1]!.headers["x-stainless-retry-count"]).toBe("1");
  });

  it("500s beyond the SDK's retries: LLMResponseError, nothing done on the page", async () => {
    await open();
    world.fake.script({ kind: "status", status: 500 }, { kind: "status", status: 500 }, { kind: "status", status: 500 });
    const err = await env.svc.act("please check the Subscribe to newsletter checkbox").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LLMResponseError);
    expect((err as Error).message).toMatch(/failed \(500\) after 3 attempts/);
    expect(world.fake.requests).toHaveLength(3);
    expect(await inPage(page(), `document.querySelector("#subscribe").checked`)).toBe(false);
    // The key never shows in an error message.
    expect((err as Error).message).not.toContain(wire.model(world.fake).apiKey);
  });

  it("a 400 is not retried: LLMResponseError after one request", async () => {
    await open();
    world.fake.script({ kind: "status", status: 400 });
    const err = await env.svc.observe("find the Email field").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LLMResponseError);
    expect((err as Error).message).toMatch(/rejected the request \(400\)/);
    expect(world.fake.requests).toHaveLength(1);
  });

  it("a malformed reply is sent back once with the parse problem, then the act succeeds", async () => {
    await open();
    world.fake.script({ kind: "malformed" });
    const res = await env.svc.act('please type "Grace" into the Full name field');
    expect(res.success).toBe(true);
    await expectText(page(), "#log", "name: Grace");
    expect(world.fake.requests).toHaveLength(2);
    const retry = world.fake.requests[1]!;
    expect(retry.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(retry.messages[1]!.text).toContain("Sure! Here is the element");
    expect(retry.userText).toMatch(/Your reply was not valid JSON/);
  });

  it("malformed twice: LLMResponseError, no third request", async () => {
    await open();
    world.fake.script({ kind: "malformed" }, { kind: "malformed", text: "still not JSON" });
    const err = await env.svc.extract("what does the help text say").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LLMResponseError);
    expect((err as Error).message).toMatch(/unusable twice \(the reply was not valid JSON\)/);
    expect(world.fake.requests).toHaveLength(2);
  });

  it("a reply naming a ref that is not on the page is a misfit: retried with the problem", async () => {
    await open();
    world.fake.script({ ref: "e999", method: "click", arguments: [], description: "made up", twoStep: false });
    const res = await env.svc.act("please check the Subscribe to newsletter checkbox");
    expect(res.success).toBe(true);
    expect(world.fake.requests).toHaveLength(2);
    expect(world.fake.requests[1]!.userText).toMatch(/ref "e999" is not in the page outline/);
  });

  it("a slow model hits the operation's timeout: ServiceTimeoutError", async () => {
    await open();
    world.fake.script({ kind: "hang" });
    const started = Date.now();
    const err = await env.svc.act("please check the Subscribe to newsletter checkbox", { timeout: 400 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceTimeoutError);
    expect(Date.now() - started).toBeLessThan(400 + SLACK_MS);
    expect(await inPage(page(), `document.querySelector("#subscribe").checked`)).toBe(false);
  });

  it("metrics: per-operation and total counters equal the usage the server reported", async () => {
    await open();
    const before = await env.svc.metrics;
    world.fake.latencyMs = 3; // every call takes measurable time
    try {
      // Usage with cached and reasoning tokens, so every counter moves.
      world.fake.script((_req, auto) => ({ kind: "object", value: auto(), usage: { input: 900, output: 40, cached: 300, reasoning: 12 } }));
      await env.svc.act("please check the Subscribe to newsletter checkbox");
      world.fake.script({ kind: "malformed" }); // a failed attempt is paid for, too
      await env.svc.observe("find the Email field");
      await env.svc.extract("what does the help text say");
    } finally {
      world.fake.latencyMs = 0;
    }
    const after = await env.svc.metrics;
    const delta = (k: keyof Metrics) => after[k] - before[k];
    const reasoningReported = wire.format !== "anthropic"; // Anthropic reports no reasoning-token count

    for (const op of ["act", "observe", "extract"] as const) {
      const u = usageOf(world.fake.requestsFor(op));
      expect(u.input, op).toBeGreaterThan(0);
      expect(delta(`${op}PromptTokens`), op).toBe(u.input);
      expect(delta(`${op}CompletionTokens`), op).toBe(u.output);
      expect(delta(`${op}CachedInputTokens`), op).toBe(u.cached);
      expect(delta(`${op}ReasoningTokens`), op).toBe(reasoningReported ? u.reasoning : 0);
      expect(delta(`${op}InferenceTimeMs`), op).toBeGreaterThan(0);
    }
    expect(delta("actCachedInputTokens")).toBe(300);
    expect(delta("actReasoningTokens")).toBe(reasoningReported ? 12 : 0);
    expect(world.fake.requestsFor("observe")).toHaveLength(2);

    const all = usageOf(world.fake.requests);
    expect(delta("totalPromptTokens")).toBe(all.input);
    expect(delta("totalCompletionTokens")).toBe(all.output);
    for (const f of ["PromptTokens", "CompletionTokens", "ReasoningTokens", "CachedInputTokens", "InferenceTimeMs"] as const) {
      expect(after[`total${f}`]).toBe(after[`act${f}`] + after[`observe${f}`] + after[`extract${f}`] + after[`agent${f}`]);
    }
    expect(after.totalPromptTokens).toBeGreaterThan(0);
    expect(after.totalInferenceTimeMs).toBeGreaterThan(0);
  });

  it("history: act, observe and extract entries with parameters and results; the system prompt reached the model", async () => {
    await open();
    const start = (await env.svc.history).length;
    await env.svc.act("please check the Subscribe to newsletter checkbox", { variables: { who: { value: "Ada-private", description: "a name" } } });
    await env.svc.observe("find the Email field");
    await env.svc.extract("what does the help text say");
    await env.svc.act("please click the Help link", { model: wire.model(world.fake) });
    const entries = (await env.svc.history).slice(start);
    expect(entries.map((e) => e.method)).toEqual(["act", "observe", "extract", "act"]);
    expect(entries[0]).toMatchObject({ parameters: { instruction: "please check the Subscribe to newsletter checkbox", variables: ["who"] }, result: { success: true } });
    expect(entries[1]).toMatchObject({ parameters: { instruction: "find the Email field" }, result: [expect.objectContaining({ selector: "xpath=/html/body/form/p[2]/input" })] });
    expect(entries[2]).toMatchObject({ parameters: { instruction: "what does the help text say" }, result: { extraction: expect.stringContaining("Help") } });
    // A per-call model is recorded by name only: its key stays out of history.
    expect(entries[3]!.parameters).toEqual({ instruction: "please click the Help link", variables: [], model: wire.model(world.fake).modelName });
    for (const e of entries) expect(new Date(e.timestamp).getTime()).toBeGreaterThan(0);
    const text = JSON.stringify(entries);
    expect(text).not.toContain("Ada-private");
    expect(text).not.toContain(wire.model(world.fake).apiKey);

    for (const r of world.fake.requests) expect(r.systemText).toContain("Additional instructions from the user: Prefer elements near the top.");
  });
});
