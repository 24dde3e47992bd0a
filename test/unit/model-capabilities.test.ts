/**
 * Local-model plumbing without a browser: JSON read out of wrapped replies, the servers' refusal wordings,
 * `model.capabilities` validation, and the step-downs the real openai / @anthropic-ai/sdk clients take
 * against the fake model server (the request log shows what each costs).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { ServiceInvalidArgumentError } from "../../src/errors.js";
import { adaptTo, forgetLearned, learn, learnedFor, rejectedFeatures } from "../../src/model/capabilities.js";
import { fromLegacy, parseModelConfig } from "../../src/model/config.js";
import { createModelClient } from "../../src/model/factory.js";
import type { GenerateRequest } from "../../src/model/types.js";
import { jsonFromText, stripReasoning } from "../../src/util/json-text.js";
import { REFUSALS, localServer, wrapJson } from "../support/fake-model/local-servers.js";
import { useFakeModel } from "../support/use-fake-model.js";

const fake = useFakeModel();
beforeEach(() => forgetLearned());

const SCHEMA = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"], additionalProperties: false };
const request = (over: Partial<GenerateRequest> = {}): GenerateRequest => ({
  system: "You drive a browser.",
  messages: [{ role: "user", content: "Instruction: click login" }],
  output: { name: "act", schema: SCHEMA, strict: true },
  ...over,
});

describe("jsonFromText", () => {
  const value = { ref: "e5", method: "click", arguments: ["a } b"], description: 'the "Go" button' };
  const json = JSON.stringify(value);

  it.each([
    ["plain", json],
    ["fenced", wrapJson(json, ["fence"])],
    ["prose around", wrapJson(json, ["prose"])],
    ["<think> holding JSON-looking text first", wrapJson(json, ["think"])],
    ["all of them", wrapJson(json, ["fence", "prose", "think"])],
    ["<reasoning> block", `<reasoning>{"ref": "e1"}</reasoning>${json}`],
    ["only the closing tag (the template opened the block)", `I should click {"ref": "e1"}.</think>\n\n${json}`],
    ["an unnamed fence", `\`\`\`\n${json}\n\`\`\``],
  ])("%s", (_label, text) => {
    expect(jsonFromText(text)).toEqual({ value });
  });

  it("finds nothing in prose without JSON, or in a reply cut off mid-object (nothing is repaired)", () => {
    expect(jsonFromText("I cannot find that element.")).toBeUndefined();
    expect(jsonFromText(json.slice(0, -5))).toBeUndefined();
    expect(jsonFromText("<think>still thinking, no answer yet")).toBeUndefined();
    expect(jsonFromText(`Here: {"a": {"b": 1}, oops} and then`)).toBeUndefined();
  });

  it("a bare JSON value is taken as it is (arrays, strings: validation decides)", () => {
    expect(jsonFromText("[1,2]")).toEqual({ value: [1, 2] });
    expect(stripReasoning("<THINK>x</THINK> y")).toBe("y");
  });
});

describe("refusal wordings", () => {
  const messageOf = (body: unknown): string => {
    const e = (body as { error: unknown }).error;
    return typeof e === "string" ? e : (e as { message: string }).message;
  };
  it.each([
    ["llamacppJsonSchema", "structuredOutput"],
    ["vllmJsonSchema", "schema"],
    ["proxyResponseFormat", "structuredOutput"],
    ["lmstudioJsonObject", "structuredOutput"],
    ["llamacppTools", "tools"],
    ["ollamaTools", "tools"],
    ["llamacppImages", "imageInput"],
    ["stringContent", "imageInput"],
  ] as const)("%s → %s", (name, feature) => {
    expect(rejectedFeatures(400, messageOf(REFUSALS[name].body))).toContain(feature);
  });

  it("OpenAI's max_tokens wording; other statuses are never a refused feature", () => {
    expect(rejectedFeatures(400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.")[0]).toBe("max_tokens");
    expect(rejectedFeatures(500, "response_format failed")).toEqual([]);
    expect(rejectedFeatures(400, "model not loaded")).toEqual([]);
    // A provider's complaint about one image or one tool's schema switches nothing off for the endpoint.
    expect(rejectedFeatures(400, "messages.0.content.1.image.source.base64: image exceeds 5 MB maximum")).toEqual([]);
    expect(rejectedFeatures(400, "tools.0.custom.input_schema: JSON schema is invalid")).toEqual(["schema"]);
    expect(adaptTo(["schema"], { tools: true, images: false }, undefined)).toEqual({ change: { tools: false }, remember: false });
  });

  it("only a feature that was sent and not stated is stepped down", () => {
    const sent = { structuredOutput: "json_schema" as const, tools: false, images: false };
    expect(adaptTo(["tools", "structuredOutput"], sent, undefined)).toEqual({ change: { structuredOutput: "json_object" }, remember: true });
    expect(adaptTo(["schema", "structuredOutput"], sent, undefined)).toEqual({ change: { structuredOutput: "json_object" }, remember: false });
    expect(adaptTo(["structuredOutput"], { ...sent, structuredOutput: "prompt" }, undefined)).toBeUndefined();
    expect(adaptTo(["structuredOutput"], sent, { structuredOutput: "json_schema" })).toBeUndefined();
    expect(adaptTo(["imageInput"], sent, undefined)).toBeUndefined();
  });
});

describe("learned steps", () => {
  it("a structured-output level never goes back up (refusals reported out of order by concurrent calls)", () => {
    learn("k", { structuredOutput: "prompt" });
    learn("k", { structuredOutput: "json_object", imageInput: false });
    expect(learnedFor("k")).toEqual({ structuredOutput: "prompt", imageInput: false });
  });
});

describe("model.capabilities", () => {
  it("is accepted on every config kind and checked field by field", () => {
    expect(parseModelConfig({ modelName: "ollama/qwen3", capabilities: { structuredOutput: "prompt", tools: false } }).capabilities).toEqual({ structuredOutput: "prompt", tools: false });
    expect(() => parseModelConfig({ modelName: "ollama/qwen3", capabilities: { structuredOutput: "xml" } })).toThrow(ServiceInvalidArgumentError);
    expect(() => parseModelConfig({ modelName: "ollama/qwen3", capabilities: { structuredOutput: "xml" } })).toThrow(/^model\.capabilities\.structuredOutput/);
    expect(() => parseModelConfig({ modelName: "ollama/qwen3", capabilities: { arrayContent: false } })).toThrow(/model\.capabilities.*arrayContent/);
  });
});

describe("step-downs against the fake (the request log counts their cost)", () => {
  const local = (name = "qwen3") => createModelClient(parseModelConfig({ modelName: `vllm/${name}`, baseURL: fake.baseURL() }));

  it("json_schema → json_object → prompt: two refused requests, once; the schema is written into the prompt", async () => {
    const check = { name: "check", schema: SCHEMA, strict: true };
    fake.mode = localServer({ jsonSchema: REFUSALS.proxyResponseFormat, jsonObject: REFUSALS.proxyResponseFormat, wrap: ["prose"] });
    const client = local();
    const first = await client.generate(request({ output: check }));
    expect(jsonFromText(first.text)).toEqual({ value: { ok: expect.any(Boolean) } });
    await client.generate(request({ output: check }));
    expect(fake.requests.map((r) => [r.response?.status, r.body.response_format?.type ?? "none"])).toEqual([
      [400, "json_schema"],
      [400, "json_object"],
      [200, "none"],
      [200, "none"],
    ]);
    const system = fake.requests[2]!.body.messages[0];
    expect(system.role).toBe("system");
    expect(system.content).toContain(`for "check" that follows this JSON Schema:\n${JSON.stringify(SCHEMA)}`);
    // Another client for the same endpoint starts where the first left off.
    fake.reset();
    fake.mode = localServer({ jsonSchema: REFUSALS.proxyResponseFormat, jsonObject: REFUSALS.proxyResponseFormat });
    await local().generate(request({ output: check }));
    expect(fake.requests).toHaveLength(1);
  });

  it("a refusal of one schema (OpenAI's `Invalid schema for response_format`) steps down for that schema only", async () => {
    const body = { error: { message: "Invalid schema for response_format 'check': In context=(), 'additionalProperties' is required to be supplied and to be false.", type: "invalid_request_error", param: "response_format", code: null } };
    const odd = { type: "object", properties: { ok: { type: "boolean" } } };
    fake.mode = (req) => (req.body.response_format?.type === "json_schema" && !req.body.response_format.json_schema.schema.required ? { kind: "status", status: 400, body } : { kind: "auto" });
    const client = local("gpt-ish");
    await client.generate(request({ output: { name: "check", schema: odd, strict: true } }));
    await client.generate(request({ output: { name: "check", schema: odd, strict: true } }));
    await client.generate(request({ output: { name: "check", schema: SCHEMA, strict: true } }));
    expect(fake.requests.map((r) => `${r.response?.status} ${r.body.response_format?.type}`)).toEqual(["400 json_schema", "200 json_object", "200 json_object", "200 json_schema"]);
  });

  it("max_tokens refused in OpenAI's words → max_completion_tokens, one extra request", async () => {
    const body = { error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", type: "invalid_request_error", param: "max_tokens", code: "unsupported_parameter" } };
    fake.mode = (req) => (req.body.max_tokens !== undefined ? { kind: "status", status: 400, body } : { kind: "auto" });
    // A server's config maxTokens (modelClientOptions.maxTokens) goes out on every request.
    const chat = createModelClient(fromLegacy("vllm/o3-mini", { baseURL: fake.baseURL(), maxTokens: 500 }));
    await chat.generate(request());
    expect(fake.requests.map((r) => [r.response?.status, "max_tokens" in r.body ? "max_tokens" : "max_completion_tokens" in r.body ? "max_completion_tokens" : "none"])).toEqual([
      [400, "max_tokens"],
      [200, "max_completion_tokens"],
    ]);
  });

  it("a 400 in unknown words is reported with how to state the capability", async () => {
    fake.mode = { kind: "status", status: 400, body: { error: { message: "Invalid request.", type: "invalid_request_error" } } };
    await expect(local("other").generate(request())).rejects.toThrow(/rejected the request \(400\): Invalid request\..*hint: .*structuredOutput: "json_object"/);
    expect(fake.requests).toHaveLength(1);
  });

  it("the stated maxTokensField is sent from the start", async () => {
    const chat = createModelClient(parseModelConfig({ modelName: "vllm/m", baseURL: fake.baseURL(), capabilities: { maxTokensField: "max_completion_tokens" } }));
    await chat.generate(request({ maxOutputTokens: 100 }));
    expect(fake.requests[0]!.body.max_completion_tokens).toBe(100);
    expect(fake.requests[0]!.body.max_tokens).toBeUndefined();
  });

  it("tools: false refuses cua mode up front, naming what to use instead", () => {
    const client = createModelClient(parseModelConfig({ modelName: "ollama/qwen3", capabilities: { tools: false } }));
    expect(() => client.computerUse!({ display: { width: 800, height: 600 }, system: "", tools: [] } as never)).toThrow(/cua mode needs tool calls.*capabilities say tools: false/);
  });
});
