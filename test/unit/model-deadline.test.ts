/**
 * The deadline of one model request: an endpoint that accepts the connection and never answers (or sends
 * its headers and stalls the body) is given up on after the config's timeoutMs (default 60 s), retried as
 * the SDKs retry, and fails as LLMResponseError naming the deadline — through the real SDK clients, against
 * the fake model server.
 */
import { describe, expect, it } from "vitest";
import { LLMResponseError, ServiceInvalidArgumentError } from "../../src/errors.js";
import { parseModelConfig } from "../../src/model/config.js";
import { DEFAULT_MODEL_TIMEOUT_MS, formatDeadline } from "../../src/model/deadline.js";
import { planClient } from "../../src/model/endpoint.js";
import { failureToError } from "../../src/model/errors.js";
import { createModelClient } from "../../src/model/factory.js";
import type { GenerateRequest } from "../../src/model/types.js";
import { useFakeModel } from "../support/use-fake-model.js";
import { rejection } from "../support/rejection.js";

const SCHEMA = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"], additionalProperties: false };
const request: GenerateRequest = { system: "s", messages: [{ role: "user", content: "Instruction: x" }], output: { name: "act", schema: SCHEMA, strict: true } };

const fake = useFakeModel();

const configs = () => [
  { label: "OpenAI Responses", config: { modelName: "openai/gpt-test", apiKey: "sk-test", baseURL: fake.baseURL() } },
  { label: "Chat Completions", config: { modelName: "openai/gpt-test", apiKey: "sk-test", baseURL: fake.baseURL(), openaiEndpointFormat: "chat" as const } },
  { label: "Anthropic Messages", config: { modelName: "anthropic/claude-test", apiKey: "sk-ant-test", baseURL: fake.baseURL("anthropic") } },
];

describe("a model endpoint that never answers", () => {
  for (const i of [0, 1, 2]) {
    it(`fails after timeoutMs per attempt, retried, as LLMResponseError naming the deadline (${["OpenAI Responses", "Chat Completions", "Anthropic Messages"][i]})`, async () => {
      const { config } = configs()[i]!;
      fake.script({ kind: "hang" }, { kind: "hang" });
      const client = createModelClient(parseModelConfig({ ...config, timeoutMs: 300 }), { env: {}, maxRetries: 1 });
      const t0 = Date.now();
      const e = await rejection(client.generate(request));
      expect(e).toBeInstanceOf(LLMResponseError);
      expect(e.message).toMatch(/: the model endpoint did not answer within 300 ms after 2 attempts \(hint: /);
      expect(e.hint).toMatch(/timeoutMs/);
      expect(fake.requests).toHaveLength(2);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(550);
      expect(Date.now() - t0).toBeLessThan(10_000);
    });
  }

  it("headers, then a body that never ends: the same deadline (the SDKs' own timer stops at the headers)", async () => {
    for (const { config } of configs()) {
      fake.reset();
      fake.script({ kind: "hang", afterHeaders: true }, { kind: "object", value: { ok: true } });
      // One retry: the stalled attempt times out, the second answers.
      const ok = await createModelClient(parseModelConfig({ ...config, timeoutMs: 400 }), { env: {}, maxRetries: 1 }).generate(request);
      expect(JSON.parse(ok.text)).toEqual({ ok: true });
      expect(fake.requests).toHaveLength(2);

      fake.reset();
      fake.script({ kind: "hang", afterHeaders: true });
      const e = await rejection(createModelClient(parseModelConfig({ ...config, timeoutMs: 300 }), { env: {}, maxRetries: 0 }).generate(request));
      expect(e).toBeInstanceOf(LLMResponseError);
      expect(e.message).toMatch(/did not answer within 300 ms \(hint: /);
    }
  });

  it("an answer within the deadline is untouched", async () => {
    fake.script({ kind: "delay", ms: 100, then: { kind: "object", value: { ok: true } } });
    const r = await createModelClient(parseModelConfig({ ...configs()[0]!.config, timeoutMs: 2000 }), { env: {}, maxRetries: 0 }).generate(request);
    expect(JSON.parse(r.text)).toEqual({ ok: true });
  });
});

describe("timeoutMs in a model config", () => {
  it("defaults to 60 s per request; a config's own value wins", () => {
    expect(DEFAULT_MODEL_TIMEOUT_MS).toBe(60_000);
    expect(planClient(parseModelConfig({ modelName: "openai/gpt-test", apiKey: "k" }), { env: {} }).timeoutMs).toBe(60_000);
    expect(planClient(parseModelConfig({ modelName: "openai/gpt-test", apiKey: "k", timeoutMs: 5000 }), { env: {} }).timeoutMs).toBe(5000);
    const azure = { modelName: "gpt", provider: "azure", apiKey: "k", timeoutMs: 7000, providerOptions: { azure: { resourceName: "r" } } };
    expect(planClient(parseModelConfig(azure), { env: {} }).timeoutMs).toBe(7000);
  });

  it("is validated, naming the field", () => {
    for (const bad of [0, -5, 1.5, "60", 3_600_001]) {
      expect(() => parseModelConfig({ modelName: "openai/gpt-test", timeoutMs: bad }, "options.model")).toThrow(ServiceInvalidArgumentError);
      expect(() => parseModelConfig({ modelName: "openai/gpt-test", timeoutMs: bad }, "options.model")).toThrow(/options\.model\.timeoutMs/);
    }
  });

  it("the message says the deadline as people do", () => {
    expect(formatDeadline(60_000)).toBe("60 s");
    expect(formatDeadline(1500)).toBe("1.5 s");
    expect(formatDeadline(250)).toBe("250 ms");
    const e = failureToError({ kind: "timeout" }, { modelName: "openai/gpt-4.1-mini", provider: "openai", maxRetries: 2, timeoutMs: 60_000, secrets: [] });
    expect(e).toBeInstanceOf(LLMResponseError);
    expect(e.message).toMatch(/^openai\/gpt-4.1-mini: the model endpoint did not answer within 60 s after 3 attempts \(hint: /);
  });
});
