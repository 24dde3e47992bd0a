/**
 * Which model serves a call, and what happens when none can: a missing key names the variable (no request sent), an
 * environment key is used, a model not in provider/model form is InvalidAISDKModelFormatError, an unknown provider
 * UnsupportedModelError; a custom `llmClient` replaces the SDKs, while a per-call `model` still goes through them.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidAISDKModelFormatError, LLMResponseError, MissingLLMConfigurationError, ServiceInvalidArgumentError, UnsupportedModelError } from "../../src/errors.js";
import type { GenerateRequest, GenerateResult, LLMClient } from "../../src/model/types.js";
import { Service } from "../../src/service.js";
import { z } from "zod";
import { autoAnswer } from "../support/fake-model.js";
import { expectText, setEnv, useModelService, useModelWorld, useTempDirs, WIRES } from "../support/models.js";

const world = useModelWorld();
const tempDir = useTempDirs();

/** A custom client that answers like the fake server does, without any network; it records its calls. */
function customClient(): LLMClient & { calls: GenerateRequest[]; next: Array<string | Error> } {
  const calls: GenerateRequest[] = [];
  const next: Array<string | Error> = [];
  return {
    modelName: "custom/in-process",
    calls,
    next,
    async generate(req: GenerateRequest): Promise<GenerateResult> {
      calls.push(req);
      const scripted = next.shift();
      if (scripted instanceof Error) throw scripted;
      const text = scripted ?? JSON.stringify(autoAnswer({ operation: req.output.name, schema: req.output.schema, promptText: req.messages[0]!.content }));
      return { text, model: "in-process", usage: { inputTokens: 100, outputTokens: 10, reasoningTokens: 1, cachedInputTokens: 20, inferenceTimeMs: 5 } };
    },
  };
}

const client = customClient();
const env = useModelService(() => ({ llmClient: client }));
const page = () => env.svc.page;

let restoreEnv: () => void = () => {};
beforeEach(async () => {
  client.calls.length = 0;
  client.next.length = 0;
  // No key anywhere: not in the environment, not in a stored `svc config`.
  restoreEnv = setEnv({ OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined, SVC_CONFIG_DIR: tempDir() });
  await page().goto(world.server.url("forms.html"));
});
afterEach(() => restoreEnv());

describe("custom llmClient", () => {
  it("act, observe and extract go through it; nothing reaches the SDKs", async () => {
    const before = await env.svc.metrics;
    const res = await env.svc.act("please check the Subscribe to newsletter checkbox");
    expect(res.success).toBe(true);
    await expectText(page(), "#log", "subscribe: true");
    const found = await env.svc.observe("find the Email field");
    expect(found[0]!.selector).toBe("xpath=/html/body/form/p[2]/input");
    const help = await env.svc.extract("get the Help link", z.object({ url: z.url() }));
    expect(help.url).toBe(world.server.url("forms.html#help"));

    expect(client.calls.map((c) => c.output.name)).toEqual(["act", "observe", "extract"]);
    expect(client.calls[0]!.system).toMatch(/You operate a web browser/);
    expect(client.calls[0]!.messages[0]!.content).toMatch(/^Instruction: please check the Subscribe to newsletter checkbox\n/);
    expect(world.fake.requests).toHaveLength(0);

    // Its usage is counted like any model's.
    const after = await env.svc.metrics;
    for (const op of ["act", "observe", "extract"] as const) {
      expect(after[`${op}PromptTokens`] - before[`${op}PromptTokens`]).toBe(100);
      expect(after[`${op}CompletionTokens`] - before[`${op}CompletionTokens`]).toBe(10);
      expect(after[`${op}ReasoningTokens`] - before[`${op}ReasoningTokens`]).toBe(1);
      expect(after[`${op}CachedInputTokens`] - before[`${op}CachedInputTokens`]).toBe(20);
      expect(after[`${op}InferenceTimeMs`] - before[`${op}InferenceTimeMs`]).toBe(5);
    }
    expect(after.totalPromptTokens - before.totalPromptTokens).toBe(300);
  });

  it("its replies are checked like any model's: a non-JSON reply is retried, an exception is an LLMResponseError", async () => {
    client.next.push("not json at all");
    expect((await env.svc.act("please check the Subscribe to newsletter checkbox")).success).toBe(true);
    expect(client.calls).toHaveLength(2);
    expect(client.calls[1]!.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);

    client.next.push(new Error("backend exploded"));
    const err = await env.svc.observe("find the Email field").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LLMResponseError);
    expect((err as Error).message).toMatch(/the model call failed: backend exploded/);
  });

  it.each(WIRES)("a per-call model ($label) is used instead of the custom client", async (wire) => {
    const res = await env.svc.act("please check the Subscribe to newsletter checkbox", { model: wire.model(world.fake) });
    expect(res.success).toBe(true);
    expect(client.calls).toHaveLength(0);
    expect(world.fake.requests).toHaveLength(1);
    expect(world.fake.requests[0]!.format).toBe(wire.format);
  });

  it("an llmClient without generate() is rejected at construction", () => {
    expect(() => new Service({ llmClient: { modelName: "x" } })).toThrow(ServiceInvalidArgumentError);
  });
});

describe("missing keys", () => {
  it("no apiKey and no OPENAI_API_KEY: MissingLLMConfigurationError naming OPENAI_API_KEY, nothing sent", async () => {
    const err = await env.svc.act("please check the Subscribe to newsletter checkbox", { model: "openai/gpt-4.1-mini" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MissingLLMConfigurationError);
    expect((err as Error).message).toContain("OPENAI_API_KEY");
    expect(world.fake.requests).toHaveLength(0);
    expect(client.calls).toHaveLength(0);
  });

  it("the same for Anthropic (ANTHROPIC_API_KEY), and for observe and extract", async () => {
    for (const call of [
      () => env.svc.act("please click the Help link", { model: "anthropic/claude-sonnet-4-5" }),
      () => env.svc.observe("find the Email field", { model: "anthropic/claude-sonnet-4-5" }),
      () => env.svc.extract("what does the help text say", { model: { modelName: "anthropic/claude-sonnet-4-5" } }),
    ]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MissingLLMConfigurationError);
      expect((err as Error).message).toContain("ANTHROPIC_API_KEY");
    }
  });

  it("a key in the environment is used when the config has none", async () => {
    setEnv({ OPENAI_API_KEY: "sk-from-the-environment" });
    const res = await env.svc.act("please click the Help link", { model: { modelName: "openai/gpt-test", baseURL: world.fake.baseURL() } });
    expect(res.success).toBe(true);
    expect(world.fake.requests[0]!.headers.authorization).toBe("Bearer sk-from-the-environment");
  });

  it("constructing a Service whose model has no key does not fail: the first model call does", () => {
    // No init(): no browser is started, so none is left to close.
    expect(new Service({ model: "openai/gpt-4.1-mini", verbose: 0 })).toBeInstanceOf(Service);
  });
});

describe("model names", () => {
  it('"gpt-4o" is not provider/model: InvalidAISDKModelFormatError at construction', () => {
    expect(() => new Service({ model: "gpt-4o" })).toThrow(InvalidAISDKModelFormatError);
    expect(() => new Service({ model: { modelName: "gpt-4o", apiKey: "sk-x" } })).toThrow(InvalidAISDKModelFormatError);
    try {
      new Service({ model: "gpt-4o" });
    } catch (e) {
      expect((e as Error).message).toMatch(/"gpt-4o" is not in provider\/model form/);
      expect((e as Error).message).toMatch(/openai\/gpt-4o/);
    }
  });

  it("the same per call, before any request", async () => {
    const err = await env.svc.act("please click the Help link", { model: "gpt-4o" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidAISDKModelFormatError);
    expect(world.fake.requests).toHaveLength(0);
  });

  it("an unknown provider without a baseURL: UnsupportedModelError", async () => {
    const err = await env.svc.act("please click the Help link", { model: "nosuchprovider/some-model" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsupportedModelError);
    expect(world.fake.requests).toHaveLength(0);
  });
});
