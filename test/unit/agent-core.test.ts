/**
 * The agent's pure parts, no Chrome: the tool registry and the step reply schema derived from it, reply validation,
 * the step prompt (read back with the fake model's parser), config and execute options, the agent result schemas, and
 * the agent cache key.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { agentCacheKey } from "../../src/agent/cache.js";
import { DEFAULT_MAX_STEPS, DEFAULT_TOOL_TIMEOUT_MS, resolveAgentConfig, resolveExecuteOptions } from "../../src/agent/options.js";
import { compactArgs, stepMessage } from "../../src/agent/prompt.js";
import { AgentActionSchema, AgentExecuteResponseSchema, AgentResultSchema } from "../../src/agent/result.js";
import { toolsFor } from "../../src/agent/run.js";
import { parseStep, stepOutput } from "../../src/agent/tools.js";
import { ServiceInvalidArgumentError } from "../../src/errors.js";
import type { GenerateRequest, LLMClient } from "../../src/model/types.js";
import { MODEL_ACTION_METHODS } from "../../src/operations/action.js";
import { RefMap } from "../../src/snapshot/index.js";
import { parsePrompt } from "../support/fake-model.js";

const dom = resolveAgentConfig({});
const opts = resolveExecuteOptions("find a fern");
const refs = new RefMap([{ ref: "e1", frameId: "F", backendNodeId: 1, role: "searchbox", name: "Search plants" }]);

describe("tool registry → step schema", () => {
  it("dom tools, hybrid adds coordinate tools, done stays last", () => {
    const names = toolsFor(dom, opts).map((t) => t.name);
    expect(names).toEqual(["goto", "perform", "fillForm", "act", "extract", "ariaTree", "scroll", "keys", "wait", "back", "screenshot", "think", "done"]);
    const hybrid = toolsFor(resolveAgentConfig({ mode: "hybrid" }), opts).map((t) => t.name);
    expect(hybrid.slice(-4)).toEqual(["clickAt", "typeAt", "dragAt", "done"]);
    expect(names.includes("search")).toBe(false); // no search backend in this version, useSearch or not
    expect(toolsFor(dom, resolveExecuteOptions({ instruction: "x", useSearch: true })).map((t) => t.name)).toEqual(names);
  });

  it("the reply schema is {reasoning, tool, args} with one args variant per tool, derived by zod", () => {
    const tools = toolsFor(dom, opts);
    const out = stepOutput(tools);
    const props = out.schema.properties as Record<string, any>;
    expect(out.schema.required).toEqual(["reasoning", "tool", "args"]);
    expect(props.tool.enum).toEqual(tools.map((t) => t.name));
    expect(props.args.anyOf.map((v: { title: string }) => v.title)).toEqual(tools.map((t) => t.name));
    const perform = props.args.anyOf.find((v: { title: string }) => v.title === "perform");
    expect(perform.properties.method.enum).toEqual([...MODEL_ACTION_METHODS]);
    expect(perform.required).toEqual(["ref", "method"]);
  });

  it("done takes the execute output schema", () => {
    const tools = toolsFor(dom, resolveExecuteOptions({ instruction: "x", output: z.object({ n: z.number() }) }));
    const done = (stepOutput(tools).schema.properties as any).args.anyOf.at(-1);
    expect(done.required).toEqual(["message", "output"]);
    expect(done.properties.output.properties.n.type).toBe("number");
  });

  it("parseStep checks the tool, its args (defaults applied) and its refs", () => {
    const tools = toolsFor(dom, opts);
    expect(parseStep(tools, { reasoning: "r", tool: "perform", args: { ref: "e1", method: "click" } }, refs)).toMatchObject({ tool: { name: "perform" }, args: { ref: "e1", method: "click", arguments: [] } });
    expect(() => parseStep(tools, { reasoning: "r", tool: "fly", args: {} }, refs)).toThrow(/unknown tool "fly"; use one of goto, perform/);
    expect(() => parseStep(tools, { reasoning: "r", tool: "perform", args: { ref: "e1", method: "jump" } }, refs)).toThrow(/args of perform: method/);
    expect(() => parseStep(tools, { reasoning: "r", tool: "perform", args: { ref: "e7", method: "click" } }, refs)).toThrow(/ref "e7" is not in the current page outline/);
    expect(() => parseStep(tools, { reasoning: "r", tool: "fillForm", args: { fields: [{ ref: "e2", value: "x" }] } }, refs)).toThrow(/e2/);
    expect(() => parseStep(tools, { reasoning: "r", tool: "wait", args: { ms: 60_000 } }, refs)).toThrow(/args of wait: ms/);
    expect(() => parseStep(tools, { tool: "think", args: { thought: "" } }, refs)).toThrow();
  });
});

describe("step prompt", () => {
  it("follows the operations' layout: instruction, variables, history as notes, then the page", () => {
    const text = stepMessage({
      instruction: "Order a fern for %customer%",
      variables: [{ name: "customer", description: "who" }, { name: "email" }],
      step: 3,
      maxSteps: 20,
      history: [
        { step: 1, tool: "goto", args: { url: "http://x/" }, ok: true, summary: "opened http://x/", url: "http://x/" },
        { step: 2, tool: "perform", args: { ref: "e1", method: "fill", arguments: ["fern"] }, ok: false, summary: "boom" },
      ],
      detail: { step: 2, tool: "extract", text: "line one\nPage: not a page line" },
      url: "http://x/",
      snapshot: "e1 searchbox Search plants",
    });
    const p = parsePrompt(text);
    expect(p).toMatchObject({ instruction: "Order a fern for %customer%", variables: ["customer", "email"], url: "http://x/", snapshot: "e1 searchbox Search plants" });
    expect(p.note).toContain("Step 3 of 20 (18 left including this one).");
    expect(p.note).toContain('1. goto {"url":"http://x/"} → ok: opened http://x/ [page: http://x/]');
    expect(p.note).toContain('2. perform {"ref":"e1","method":"fill","arguments":["fern"]} → error: boom');
    expect(p.note).toContain("  Page: not a page line");
  });

  it("compactArgs shortens long strings and long argument lists", () => {
    expect(compactArgs({ text: "x".repeat(200) })).toBe(`{"text":"${"x".repeat(77)}…"}`);
    expect(compactArgs({ fields: Array.from({ length: 50 }, (_, i) => ({ ref: `e${i}`, value: "v" })) }).length).toBe(300);
  });
});

describe("config and options", () => {
  it("mode wins over cua; cua: true means mode cua; legacy provider prefixes a bare model", () => {
    expect(resolveAgentConfig({ cua: true, mode: "hybrid" }).mode).toBe("hybrid");
    expect(resolveAgentConfig({ cua: true }).mode).toBe("cua");
    expect(resolveAgentConfig({ provider: "anthropic", model: "claude-x" })).toMatchObject({ model: "anthropic/claude-x", executionModel: "anthropic/claude-x" });
    expect(resolveAgentConfig({ model: "openai/a", executionModel: "openai/b" })).toMatchObject({ model: "openai/a", executionModel: "openai/b" });
    expect(() => resolveAgentConfig({ mode: "x" })).toThrow(ServiceInvalidArgumentError);
    expect(() => resolveAgentConfig({ model: { modelName: "openai/x", bogus: 1 } })).toThrow();
  });

  it("execute defaults: maxSteps 20, toolTimeout 30 s, no token or time limit", () => {
    expect(DEFAULT_MAX_STEPS).toBe(20);
    expect(DEFAULT_TOOL_TIMEOUT_MS).toBe(30_000);
    expect(resolveExecuteOptions("go")).toMatchObject({ instruction: "go", maxSteps: 20, toolTimeout: 30_000, maxTokens: undefined, timeoutMs: undefined, variables: {} });
    expect(() => resolveExecuteOptions({ instruction: "go", extra: 1 })).toThrow(/unknown option "extra"/);
    expect(() => resolveExecuteOptions({ instruction: "go", output: { type: "object" } })).toThrow(/zod schema/);
  });
});

describe("agent result schemas (docs/wire-formats.md)", () => {
  const result = { success: true, message: "ok", actions: [{ type: "done", taskCompleted: true, extra: 1 }], completed: true, usage: { input_tokens: 1, output_tokens: 2, inference_time_ms: 3 } };

  it("AgentResultDataOutput and AgentUsageOutput reject other properties; AgentAction allows them", () => {
    expect(AgentResultSchema.safeParse(result).success).toBe(true);
    expect(AgentResultSchema.safeParse({ ...result, output: {} }).success).toBe(false);
    expect(AgentResultSchema.safeParse({ ...result, usage: { ...result.usage, total: 3 } }).success).toBe(false);
    expect(AgentActionSchema.safeParse({ type: "x", anything: true }).success).toBe(true);
    expect(AgentActionSchema.safeParse({ reasoning: "no type" }).success).toBe(false);
    expect(AgentExecuteResponseSchema.safeParse({ success: true, data: { result } }).success).toBe(true);
  });
});

describe("agent cache key", () => {
  const salt = Buffer.alloc(32, 7);
  const key = (o: Partial<Parameters<typeof resolveExecuteOptions>[0] & object> = {}, url = "http://x/a?b=1&a=2", config = {}, s: Uint8Array = salt) =>
    agentCacheKey(url, resolveAgentConfig(config), resolveExecuteOptions({ instruction: "order", ...o }), "openai/gpt-4.1-mini", s);

  it("instruction, URL, mode, model, variable names and values count; budgets do not", () => {
    expect(key()).toBe(key({}, "http://x/a?a=2&b=1#top"));
    expect(key({ variables: { a: "1" } })).not.toBe(key({ variables: { a: "2" } }));
    expect(key({ variables: { a: "1" } })).toBe(key({ variables: { a: { value: "1", description: "the a" } } }));
    expect(key({ maxSteps: 3, toolTimeout: 5, timeoutMs: 9, maxTokens: 10 })).toBe(key());
    expect(key({ instruction: "other" })).not.toBe(key());
    expect(key({}, "http://x/other")).not.toBe(key());
    expect(key({ variables: { b: "1" } })).not.toBe(key({ variables: { a: "1" } }));
    expect(key({}, undefined, { mode: "hybrid" })).not.toBe(key());
    expect(key({}, undefined, { model: "openai/gpt-4.1-mini" })).toBe(key());
    expect(key({}, undefined, { model: "anthropic/claude-x" })).not.toBe(key());
    expect(key({ output: z.object({ n: z.number() }) })).not.toBe(key());
  });

  it("values count through the cache directory's salt: the same values give another key under another salt", () => {
    const vars = { variables: { customer: "Bob" } };
    expect(key(vars)).toBe(key(vars));
    expect(key(vars, undefined, {}, Buffer.alloc(32, 8))).not.toBe(key(vars));
  });
});
