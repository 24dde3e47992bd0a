/**
 * Context windows: the published table (src/model/context-window.ts), `model.contextWindow` validated and
 * carried to the client, a local server's default assumed when none is stated, and the snapshot budget
 * arithmetic (src/operations/budget.ts).
 */
import { describe, expect, it } from "vitest";
import { ServiceInvalidArgumentError } from "../../src/errors.js";
import { parseModelConfig } from "../../src/model/config.js";
import { LOCAL_SERVER_DEFAULT_CONTEXT, contextWarning, contextWindowFor, knownContextWindow } from "../../src/model/context-window.js";
import { createModelClient } from "../../src/model/factory.js";
import { maskingClient } from "../../src/model/masking.js";
import { MIN_SNAPSHOT_TOKENS, snapshotBudget } from "../../src/operations/budget.js";
import { Secrets } from "../../src/util/secrets.js";

describe("published context windows", () => {
  it.each([
    ["gpt-4.1-mini", 1_047_576],
    ["gpt-4o-mini", 128_000],
    ["o4-mini", 200_000],
    ["claude-sonnet-4-20250514", 200_000],
    ["gemini-2.5-flash", 1_048_576],
    ["llama3.1:8b", 131_072],
    ["meta-llama/Llama-3.3-70B-Instruct", 131_072],
    ["llama3:8b", 8_192],
    ["qwen2.5:7b", 32_768],
    ["Qwen/Qwen2.5-7B-Instruct", 32_768],
    ["mistral:7b", 32_768],
    ["mistralai/Mistral-7B-Instruct-v0.3", 32_768],
  ])("%s → %i", (model, tokens) => expect(knownContextWindow(model)).toBe(tokens));

  it("unknown names have none (no guess); mistral-large is not taken for Mistral 7B", () => {
    expect(knownContextWindow("my-finetune")).toBeUndefined();
    expect(knownContextWindow("mistral-large-latest")).toBeUndefined();
  });
});

describe("model.contextWindow", () => {
  it("a stated window wins; local servers get their default; vLLM and hosted models the published one", () => {
    expect(contextWindowFor(parseModelConfig({ modelName: "ollama/llama3.1", contextWindow: 16_384 }))).toEqual({ tokens: 16_384, source: "config" });
    expect(contextWindowFor(parseModelConfig("ollama/llama3.1"))).toEqual({ tokens: LOCAL_SERVER_DEFAULT_CONTEXT, source: "server-default" });
    expect(contextWindowFor(parseModelConfig("llamacpp/whatever"))).toEqual({ tokens: 4096, source: "server-default" });
    expect(contextWindowFor(parseModelConfig("vllm/Qwen/Qwen2.5-7B-Instruct"))).toEqual({ tokens: 32_768, source: "published" });
    expect(contextWindowFor(parseModelConfig("openai/gpt-4o"))).toEqual({ tokens: 128_000, source: "published" });
    expect(contextWindowFor(parseModelConfig({ modelName: "custom-model", baseURL: "http://10.0.0.5:9000/v1" }))).toBeUndefined();
  });

  it("is validated (the field named) and reaches the client through the masking wrapper", () => {
    expect(() => parseModelConfig({ modelName: "ollama/m", contextWindow: 100 })).toThrow(ServiceInvalidArgumentError);
    expect(() => parseModelConfig({ modelName: "ollama/m", contextWindow: 100 })).toThrow(/model\.contextWindow/);
    expect(() => parseModelConfig({ modelName: "ollama/m", contextWindow: "8k" })).toThrow(/model\.contextWindow/);
    const client = maskingClient(createModelClient(parseModelConfig({ modelName: "ollama/m", contextWindow: 8192 }), { env: {} }), new Secrets());
    expect(client.contextWindow).toBe(8192);
  });

  it("the warning is said only when svc assumes a server default", () => {
    expect(contextWarning("ollama/m", "ollama", contextWindowFor(parseModelConfig("ollama/m")))).toContain("cannot set num_ctx per request");
    expect(contextWarning("ollama/m", "ollama", contextWindowFor(parseModelConfig({ modelName: "ollama/m", contextWindow: 8192 })))).toBeUndefined();
    expect(contextWarning("openai/gpt-4o", "openai", contextWindowFor(parseModelConfig("openai/gpt-4o")))).toBeUndefined();
  });
});

describe("snapshot budget", () => {
  it("window / 1.25, less the rest of the prompt and the answer's room (an eighth of the window, at most 1024)", () => {
    expect(snapshotBudget(undefined, 500)).toBeUndefined();
    expect(snapshotBudget(8192, 1000)).toBe(Math.floor(8192 / 1.25) - 1000 - 1024);
    expect(snapshotBudget(2048, 300)).toBe(Math.floor(2048 / 1.25) - 300 - 256);
    expect(snapshotBudget(2048, 5000)).toBe(MIN_SNAPSHOT_TOKENS);
  });
});
