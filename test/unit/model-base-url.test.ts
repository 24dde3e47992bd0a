/**
 * Base URLs as users write them (origin or /v1, trailing slash or not) reach the right path on each wire through the
 * real SDKs (never /v1/v1/messages); a malformed provider/model is refused the same either way; the operator's base
 * URL serves tenant configs naming no endpoint, with the operator's key, while a tenant's own baseURL gets only its
 * own key.
 */
import { describe, expect, it } from "vitest";
import { InvalidAISDKModelFormatError } from "../../src/errors.js";
import { fromLegacy, parseModelConfig } from "../../src/model/config.js";
import { planClient, wireBaseURL } from "../../src/model/endpoint.js";
import { createModelClient } from "../../src/model/factory.js";
import type { GenerateRequest } from "../../src/model/types.js";
import { rejection } from "../support/rejection.js";
import { useFakeModel } from "../support/use-fake-model.js";

const SCHEMA = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"], additionalProperties: false };
const REQUEST: GenerateRequest = { system: "s", messages: [{ role: "user", content: "Instruction: x" }], output: { name: "act", schema: SCHEMA, strict: true } };

const fake = useFakeModel();

describe("base URL + path, per wire", () => {
  const forms = (o: string) => [o, `${o}/`, `${o}/v1`, `${o}/v1/`];
  const wires: [string, Record<string, unknown>, string][] = [
    ["anthropic/claude-test-1", {}, "/v1/messages"],
    ["openai/gpt-4.1-mini", {}, "/v1/responses"],
    ["openai/gpt-4.1-mini", { openaiEndpointFormat: "chat" }, "/v1/chat/completions"],
    ["groq/llama-3.3-70b", {}, "/v1/chat/completions"],
  ];
  for (const [modelName, extra, path] of wires) {
    it(`${modelName} ${JSON.stringify(extra)} → ${path} from the origin, /v1, with and without a trailing slash`, async () => {
      for (const baseURL of forms(fake.origin)) {
        fake.reset();
        fake.script({ kind: "object", value: { ok: true } });
        const client = createModelClient(parseModelConfig({ modelName, baseURL, apiKey: "k-123456789", ...extra }), { env: {}, maxRetries: 0 });
        await client.generate(REQUEST);
        expect(fake.requests.map((r) => r.path), baseURL).toEqual([path]);
      }
    });
  }

  it("keeps any other path as given; only the trailing slash goes", () => {
    expect(wireBaseURL("https://generativelanguage.googleapis.com/v1beta/openai/", "openai")).toBe("https://generativelanguage.googleapis.com/v1beta/openai");
    expect(wireBaseURL("http://proxy.local/anthropic/v1/", "anthropic")).toBe("http://proxy.local/anthropic");
    expect(wireBaseURL("http://proxy.local/openai/v1", "openai")).toBe("http://proxy.local/openai/v1");
    expect(wireBaseURL("http://h:8080", "openai")).toBe("http://h:8080/v1");
    expect(wireBaseURL("http://h:8080/", "anthropic")).toBe("http://h:8080");
  });
});

describe("malformed provider/model strings, with or without a base URL", () => {
  for (const name of ["openai/", "/gpt", "openai/ gpt", "a b"]) {
    it(`${JSON.stringify(name)} is refused`, async () => {
      for (const baseURL of [undefined, fake.baseURL()]) {
        const e = await rejection(Promise.resolve().then(() => parseModelConfig({ modelName: name, ...(baseURL ? { baseURL } : {}) })));
        expect(e, String(baseURL)).toBeInstanceOf(InvalidAISDKModelFormatError);
        const legacy = await rejection(Promise.resolve().then(() => fromLegacy(name, baseURL ? { baseURL } : undefined)));
        expect(legacy, String(baseURL)).toBeInstanceOf(InvalidAISDKModelFormatError);
      }
    });
  }

  it("a bare name with no slash is still taken at a base URL (an OpenAI-compatible server's own names)", () => {
    expect(parseModelConfig({ modelName: "llama3.1:8b", baseURL: fake.baseURL() })).toMatchObject({ provider: "openai", model: "llama3.1:8b" });
    expect(parseModelConfig({ modelName: "meta-llama/Llama-3", baseURL: fake.baseURL() })).toMatchObject({ provider: "meta-llama", model: "Llama-3" });
  });
});

describe("the operator's base URL under an endpoint policy", () => {
  const env = { OPENAI_API_KEY: "sk-operator-0123456789", ANTHROPIC_API_KEY: "sk-ant-operator-0123456789" };
  const operator = "https://models.operator.example/v1";

  it("a config choosing no endpoint goes to it with the operator's key, outside the allow list and its fetch", () => {
    const fetch = () => Promise.reject(new Error("guarded"));
    const policy = { allow: ["https://other.example/v1"], fetch, baseURL: operator };
    const plan = planClient(parseModelConfig("openai/gpt-4.1-mini"), { env, endpointPolicy: policy });
    expect(plan).toMatchObject({ baseURL: operator, apiKey: env.OPENAI_API_KEY });
    expect(plan.foreignEndpoint).toBeUndefined();
    expect(plan.fetch).toBeUndefined();
    const anthropic = planClient(parseModelConfig("anthropic/claude-test-1"), { env, endpointPolicy: policy });
    expect(anthropic).toMatchObject({ baseURL: "https://models.operator.example", apiKey: env.ANTHROPIC_API_KEY });
  });

  it("a tenant's own baseURL is still the tenant's: its own key only, held to the allow list", async () => {
    const policy = { baseURL: operator };
    const own = planClient(parseModelConfig({ modelName: "openai/gpt-4.1-mini", baseURL: "https://tenant.example/v1" }), { env, endpointPolicy: policy });
    expect(own).toMatchObject({ baseURL: "https://tenant.example/v1", foreignEndpoint: true });
    expect(own.apiKey).toBeUndefined();
    const refused = await rejection(
      Promise.resolve().then(() =>
        planClient(parseModelConfig({ modelName: "openai/gpt-4.1-mini", baseURL: "https://tenant.example/v1" }), { env, endpointPolicy: { ...policy, allow: [operator] } }),
      ),
    );
    expect(refused.message).toMatch(/^model\.baseURL: https:\/\/tenant\.example\/v1 is not an allowed model endpoint/);
  });

  it("the allow list is checked against where requests go: an Anthropic /v1 entry admits …/v1/messages", () => {
    const plan = planClient(parseModelConfig({ modelName: "anthropic/claude-test-1", baseURL: "https://gw.example/v1", apiKey: "k-123456789" }), {
      env,
      endpointPolicy: { allow: ["https://gw.example/v1"] },
    });
    expect(plan.baseURL).toBe("https://gw.example");
  });
});
