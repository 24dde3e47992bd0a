/**
 * The real openai and @anthropic-ai/sdk clients against the fake model server on loopback: what is sent
 * (body shape, headers, auth), how usage is mapped, how final failures become ServiceErrors, and that no
 * key, token or header value ever shows up in an error message.
 */
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { LLMResponseError, MissingLLMConfigurationError, ServiceAbortedError, ServiceError, UnsupportedModelError } from "../../src/errors.js";
import { parseModelConfig } from "../../src/model/config.js";
import { planClient } from "../../src/model/endpoint.js";
import { createModelClient } from "../../src/model/factory.js";
import type { GenerateRequest } from "../../src/model/types.js";
import { addUsage, sumUsage } from "../../src/model/usage.js";
import { useFakeModel } from "../support/use-fake-model.js";

const KEY = "sk-test-SECRETKEY-0123456789abcdef";
const HEADER_SECRET = "hdr-secret-value-42";
const SCHEMA = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"], additionalProperties: false };

const request = (over: Partial<GenerateRequest> = {}): GenerateRequest => ({
  system: "You drive a browser.",
  messages: [{ role: "user", content: "Instruction: click login" }],
  output: { name: "act", schema: SCHEMA, strict: true },
  ...over,
});

const fake = useFakeModel();

async function rejection(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (e) {
    return e as ServiceError;
  }
  throw new Error("expected a rejection");
}

describe("OpenAI Responses", () => {
  it("sends instructions, input and a json_schema format; maps usage", async () => {
    const client = createModelClient(
      parseModelConfig({ modelName: "openai/gpt-4.1-mini", apiKey: KEY, baseURL: fake.baseURL("responses"), headers: { "x-team": "t1" } }),
      { env: {} },
    );
    expect(client.modelName).toBe("openai/gpt-4.1-mini");
    fake.script({ kind: "object", value: { ok: true }, usage: { input: 120, output: 30, cached: 100, reasoning: 7 } });
    const r = await client.generate(request({ maxOutputTokens: 200, temperature: 0 }));
    expect(JSON.parse(r.text)).toEqual({ ok: true });
    expect(r.model).toBe("gpt-4.1-mini");
    expect(r.usage).toMatchObject({ inputTokens: 120, outputTokens: 30, cachedInputTokens: 100, reasoningTokens: 7 });
    expect(r.usage.inferenceTimeMs).toBeGreaterThanOrEqual(0);
    const [sent] = fake.requests;
    expect(sent!.path).toBe("/v1/responses");
    expect(sent!.body).toMatchObject({
      model: "gpt-4.1-mini",
      instructions: "You drive a browser.",
      input: [{ role: "user", content: "Instruction: click login" }],
      text: { format: { type: "json_schema", name: "act", schema: SCHEMA, strict: true } },
      max_output_tokens: 200,
      temperature: 0,
    });
    expect(sent!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent!.headers["x-team"]).toBe("t1");
  });

  it("applies older-generation defaults and leaves unset knobs out", async () => {
    const resolved = { ...parseModelConfig({ modelName: "openai/gpt-4o", baseURL: fake.baseURL() }), temperature: 0.3, maxTokens: 99 };
    await createModelClient(resolved, { env: {} }).generate(request({ output: { name: "extract data!", schema: SCHEMA, strict: false } }));
    expect(fake.requests[0]!.body).toMatchObject({ temperature: 0.3, max_output_tokens: 99, text: { format: { name: "extract_data_", strict: false } } });
    fake.reset();
    await createModelClient(parseModelConfig({ modelName: "openai/gpt-4o", baseURL: fake.baseURL() }), { env: {} }).generate(request());
    expect(fake.requests[0]!.body).not.toHaveProperty("temperature");
    expect(fake.requests[0]!.body).not.toHaveProperty("max_output_tokens");
  });
});

describe("Chat Completions", () => {
  it("puts the system message first and asks for json_schema", async () => {
    const client = createModelClient(parseModelConfig({ modelName: "openai/gpt-4.1", apiKey: KEY, baseURL: fake.baseURL("chat"), openaiEndpointFormat: "chat" }), { env: {} });
    fake.script({ kind: "object", value: { ok: false }, usage: { input: 50, output: 5, cached: 10, reasoning: 2 } });
    const r = await client.generate(request({ maxOutputTokens: 64 }));
    expect(JSON.parse(r.text)).toEqual({ ok: false });
    expect(r.usage).toMatchObject({ inputTokens: 50, outputTokens: 5, cachedInputTokens: 10, reasoningTokens: 2 });
    const [sent] = fake.requests;
    expect(sent!.path).toBe("/v1/chat/completions");
    expect(sent!.body.messages).toEqual([
      { role: "system", content: "You drive a browser." },
      { role: "user", content: "Instruction: click login" },
    ]);
    expect(sent!.body.response_format).toEqual({ type: "json_schema", json_schema: { name: "act", schema: SCHEMA, strict: true } });
    expect(sent!.body.max_completion_tokens).toBe(64);
  });

  it("serves OpenAI-compatible providers (max_tokens) and keyless local servers", async () => {
    await createModelClient(parseModelConfig({ modelName: "groq/llama-3.3-70b", baseURL: fake.baseURL() }), { env: { GROQ_API_KEY: "gsk-groq-key" } }).generate(request({ maxOutputTokens: 10 }));
    await createModelClient(parseModelConfig({ modelName: "ollama/llama3.1:8b", baseURL: fake.baseURL() }), { env: {} }).generate(request());
    await createModelClient(parseModelConfig({ modelName: "gemini-2.5-flash", provider: "google", baseURL: fake.baseURL() }), { env: { GEMINI_API_KEY: "AIza-gem" } }).generate(request());
    const [groq, ollama, google] = fake.requests;
    expect(groq!.format).toBe("chat");
    expect(groq!.body).toMatchObject({ model: "llama-3.3-70b", max_tokens: 10 });
    expect(groq!.headers.authorization).toBe("Bearer gsk-groq-key");
    expect(ollama!.body.model).toBe("llama3.1:8b");
    expect(google!.format).toBe("chat");
    expect(google!.headers.authorization).toBe("Bearer AIza-gem");
  });

  it("reports a refusal as LLMResponseError", async () => {
    const refusal = { id: "c1", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: null, refusal: "I can't help with that." } }] };
    fake.script({ kind: "status", status: 200, body: refusal });
    const e = await rejection(createModelClient(parseModelConfig({ modelName: "ollama/m", baseURL: fake.baseURL() }), { env: {} }).generate(request()));
    expect(e).toBeInstanceOf(LLMResponseError);
    expect(e.message).toContain("refused: I can't help with that.");
  });
});

describe("Anthropic Messages", () => {
  it("forces one tool whose input is the reply; maps cache reads into usage", async () => {
    const client = createModelClient(parseModelConfig({ modelName: "anthropic/claude-test-1", apiKey: KEY, baseURL: fake.baseURL("anthropic"), headers: { "x-team": "t2" } }), { env: {} });
    fake.script({ kind: "object", value: { ok: true }, usage: { input: 100, output: 12, cached: 60 } });
    const r = await client.generate(request());
    expect(JSON.parse(r.text)).toEqual({ ok: true });
    expect(r.usage).toMatchObject({ inputTokens: 100, outputTokens: 12, cachedInputTokens: 60, reasoningTokens: 0 });
    const [sent] = fake.requests;
    expect(sent!.path).toBe("/v1/messages");
    expect(sent!.body).toMatchObject({
      model: "claude-test-1",
      system: "You drive a browser.",
      messages: [{ role: "user", content: "Instruction: click login" }],
      max_tokens: 4096,
      tools: [{ name: "act", input_schema: SCHEMA }],
      tool_choice: { type: "tool", name: "act" },
    });
    expect(sent!.headers["x-team"]).toBe("t2");
    expect(JSON.stringify(sent!.headers)).toContain(KEY);
  });

  it("returns the text when the model answered without the tool", async () => {
    fake.script({ kind: "malformed", text: "not json" });
    const r = await createModelClient(parseModelConfig({ modelName: "anthropic/claude-x", baseURL: fake.baseURL("anthropic") }), { env: {} }).generate(request());
    expect(r.text).toBe("not json");
  });
});

describe("Vertex, Azure, Bedrock", () => {
  const vertexConfig = (baseURL?: string) => ({
    modelName: "gemini-2.5-flash",
    provider: "vertex",
    auth: { type: "googleServiceAccount", credentials: { private_key: "k", client_email: "e@p.iam.gserviceaccount.com" } },
    providerOptions: { vertex: { project: "proj", location: "us-central1", ...(baseURL ? { baseURL } : {}), headers: { "x-vertex": "v" } } },
  });

  it("Vertex: a Google access token as Bearer, google/<model>, chat format", async () => {
    let calls = 0;
    const tokenProvider = async () => `ya29.fake-token-${++calls}`;
    const client = createModelClient(parseModelConfig(vertexConfig(fake.baseURL())), { env: {}, tokenProvider });
    await client.generate(request());
    await client.generate(request());
    const [a, b] = fake.requests;
    expect(a!.format).toBe("chat");
    expect(a!.body.model).toBe("google/gemini-2.5-flash");
    expect(a!.headers.authorization).toBe("Bearer ya29.fake-token-1");
    expect(b!.headers.authorization).toBe("Bearer ya29.fake-token-2");
    expect(a!.headers["x-vertex"]).toBe("v");
  });

  it("Vertex: derives the OpenAI-compatible endpoint; a token failure passes through", async () => {
    expect(planClient(parseModelConfig(vertexConfig()), { env: {} }).baseURL).toBe("https://us-central1-aiplatform.googleapis.com/v1/projects/proj/locations/us-central1/endpoints/openapi");
    const global = { ...vertexConfig(), providerOptions: { vertex: { project: "p 1", location: "global" } } };
    expect(planClient(parseModelConfig(global), { env: {} }).baseURL).toBe("https://aiplatform.googleapis.com/v1/projects/p%201/locations/global/endpoints/openapi");
    expect(planClient(parseModelConfig("vertex/gemini-2.5-pro"), { env: { GOOGLE_CLOUD_PROJECT: "envproj" } }).baseURL).toContain("/projects/envproj/locations/us-central1/");
    expect(() => planClient(parseModelConfig("vertex/gemini-2.5-pro"), { env: {} })).toThrow(MissingLLMConfigurationError);
    const failing = async (): Promise<string> => {
      throw new MissingLLMConfigurationError("no token");
    };
    const e = await rejection(createModelClient(parseModelConfig(vertexConfig(fake.baseURL())), { env: {}, tokenProvider: failing, maxRetries: 0 }).generate(request()));
    expect(e).toBeInstanceOf(MissingLLMConfigurationError);
    expect(fake.requests).toHaveLength(0);
  });

  it("Vertex: real Google auth with unusable credentials fails before any request, without the key", async () => {
    const pem = "-----BEGIN PRIVATE KEY-----\nNOT-A-REAL-KEY-SECRETSTUFF\n-----END PRIVATE KEY-----\n";
    const cfg = { ...vertexConfig(fake.baseURL()), auth: { type: "googleServiceAccount", credentials: { private_key: pem, client_email: "e@p.iam.gserviceaccount.com" } } };
    const e = await rejection(createModelClient(parseModelConfig(cfg), { env: {}, maxRetries: 0 }).generate(request()));
    expect(e).toBeInstanceOf(LLMResponseError);
    expect(e.message).toMatch(/^vertex\/gemini-2\.5-flash: could not get an access token: .+hint: check the service account credentials/);
    expect(e.message).not.toContain("SECRETSTUFF");
    expect(fake.requests).toHaveLength(0);
  });

  it("Azure v1: key as Bearer and api-key; Responses at /openai/v1", async () => {
    const cfg = { modelName: "azure/my-dep", provider: "azure", apiKey: KEY, providerOptions: { azure: { baseURL: `${fake.origin}/openai` } } };
    await createModelClient(parseModelConfig(cfg), { env: {} }).generate(request());
    const [sent] = fake.requests;
    expect(sent!.path).toBe("/openai/v1/responses");
    expect(sent!.body.model).toBe("my-dep");
    expect(sent!.headers["api-key"]).toBe(KEY);
    expect(sent!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(planClient(parseModelConfig({ ...cfg, providerOptions: { azure: { resourceName: "res" } } }), { env: {} }).baseURL).toBe("https://res.openai.azure.com/openai/v1");
    expect(() => planClient(parseModelConfig({ ...cfg, providerOptions: { azure: {} } }), { env: {} })).toThrow(/AZURE_RESOURCE_NAME/);
  });

  it("Azure deployments: Entra token as Bearer, /deployments/{name}/chat/completions?api-version", async () => {
    const cfg = {
      modelName: "my-dep",
      provider: "azure",
      auth: { type: "azureEntraId", token: "entra-token-abcdef" },
      providerOptions: { azure: { baseURL: `${fake.origin}/openai`, useDeploymentBasedUrls: true, apiVersion: "2024-10-21" } },
    };
    await createModelClient(parseModelConfig(cfg), { env: { AZURE_API_KEY: "ignored" } }).generate(request());
    const [sent] = fake.requests;
    expect(sent!.path).toBe("/openai/deployments/my-dep/chat/completions");
    expect(sent!.query["api-version"]).toBe("2024-10-21");
    expect(sent!.headers.authorization).toBe("Bearer entra-token-abcdef");
    expect(sent!.headers["api-key"]).toBeUndefined();
  });

  it("Bedrock: its OpenAI-compatible endpoint with the Bedrock API key as Bearer", async () => {
    await createModelClient(parseModelConfig({ modelName: "bedrock/openai.gpt-oss-20b-1:0", baseURL: fake.baseURL() }), { env: { AWS_BEARER_TOKEN_BEDROCK: "bedrock-key-xyz" } }).generate(request());
    expect(fake.requests[0]!.format).toBe("chat");
    expect(fake.requests[0]!.headers.authorization).toBe("Bearer bedrock-key-xyz");
    expect(planClient(parseModelConfig("bedrock/openai.gpt-oss-20b-1:0"), { env: { AWS_REGION: "eu-west-1", AWS_BEARER_TOKEN_BEDROCK: "k" } }).baseURL).toBe("https://bedrock-runtime.eu-west-1.amazonaws.com/openai/v1");
    expect(planClient(parseModelConfig("bedrock/x"), { env: { AWS_BEARER_TOKEN_BEDROCK: "k" } }).baseURL).toBe("https://bedrock-runtime.us-east-1.amazonaws.com/openai/v1");
  });
});

describe("failures", () => {
  const openai = (over: Record<string, unknown> = {}) =>
    parseModelConfig({ modelName: "openai/gpt-4.1", apiKey: KEY, baseURL: fake.baseURL(), headers: { "x-secret": HEADER_SECRET }, ...over });
  const anthropic = () => parseModelConfig({ modelName: "anthropic/claude-x", apiKey: KEY, baseURL: fake.baseURL("anthropic"), headers: { "x-secret": HEADER_SECRET } });
  const clean = (e: Error) => {
    expect(e.message).not.toContain(KEY);
    expect(e.message).not.toContain(KEY.slice(-8));
    expect(e.message).not.toContain(HEADER_SECRET);
    expect(JSON.stringify(e)).not.toContain(KEY);
    expect(e.cause).toBeUndefined();
  };

  it("missing key and unknown provider fail at creation", () => {
    expect(() => createModelClient(parseModelConfig("openai/gpt-4.1"), { env: {} })).toThrow("set OPENAI_API_KEY");
    expect(() => createModelClient(parseModelConfig("openai/gpt-4.1"), { env: {}, stored: () => "sk-stored" })).not.toThrow();
    expect(() => createModelClient(parseModelConfig("acme/m1"), { env: { ACME_API_KEY: "x" } })).toThrow(UnsupportedModelError);
    expect(() => createModelClient(parseModelConfig("acme/m1"), { env: { ACME_API_KEY: "x" } })).toThrow(/supported providers: openai, anthropic, google/);
    expect(() => createModelClient(parseModelConfig({ modelName: "acme/m1", baseURL: fake.baseURL() }), { env: {} })).not.toThrow();
  });

  it.each(["openai", "anthropic"] as const)("%s: 401 → 'rejected the API key', without the key", async (wire) => {
    const body =
      wire === "openai"
        ? { error: { message: `Incorrect API key provided: ${KEY}. Header ${HEADER_SECRET}`, type: "invalid_request_error", code: "invalid_api_key", param: null } }
        : { type: "error", error: { type: "authentication_error", message: `invalid x-api-key ${KEY}` } };
    fake.script({ kind: "status", status: 401, body });
    const e = await rejection(createModelClient(wire === "openai" ? openai() : anthropic(), { env: {} }).generate(request()));
    expect(e).toBeInstanceOf(LLMResponseError);
    expect(e.message).toContain("the provider rejected the API key (401)");
    expect(e.message).toContain(wire === "openai" ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY");
    clean(e);
    expect(fake.requests).toHaveLength(1);
  });

  it.each(["openai", "anthropic"] as const)("%s: 429 with retry-after 0, then success", async (wire) => {
    fake.script({ kind: "status", status: 429, headers: { "retry-after": "0" } }, { ok: true });
    const r = await createModelClient(wire === "openai" ? openai() : anthropic(), { env: {} }).generate(request());
    expect(JSON.parse(r.text)).toEqual({ ok: true });
    expect(fake.requests).toHaveLength(2);
  });

  it.each(["openai", "anthropic"] as const)("%s: 429 on every attempt → rate limited", async (wire) => {
    fake.script(...Array.from({ length: 3 }, () => ({ kind: "status" as const, status: 429 })));
    const e = await rejection(createModelClient(wire === "openai" ? openai() : anthropic(), { env: {}, maxRetries: 2 }).generate(request()));
    expect(e).toBeInstanceOf(LLMResponseError);
    expect(e.message).toMatch(/rate limited \(429\) after 3 attempts/);
    expect(fake.requests).toHaveLength(3);
    clean(e);
  });

  it.each(["openai", "anthropic"] as const)("%s: 500 until retries run out", async (wire) => {
    const body = wire === "openai" ? { error: { message: `upstream broke for key ${KEY} and ${HEADER_SECRET}`, type: "server_error" } } : { type: "error", error: { type: "api_error", message: `boom ${KEY}` } };
    fake.script(...Array.from({ length: 2 }, () => ({ kind: "status" as const, status: 500, body })));
    const e = await rejection(createModelClient(wire === "openai" ? openai() : anthropic(), { env: {}, maxRetries: 1 }).generate(request()));
    expect(e).toBeInstanceOf(LLMResponseError);
    expect(e.message).toMatch(/the provider failed \(500\) after 2 attempts: (upstream broke|boom)/);
    expect(e.message).toContain("***");
    expect(fake.requests).toHaveLength(2);
    clean(e);
  });

  it("400 carries the provider's reason, redacted", async () => {
    fake.script({ kind: "status", status: 400, body: { error: { message: `schema invalid near 'Bearer ${KEY}'`, type: "invalid_request_error" } } });
    const e = await rejection(createModelClient(openai(), { env: {} }).generate(request()));
    expect(e.message).toMatch(/rejected the request \(400\): schema invalid/);
    clean(e);
  });

  it("a network failure → LLMResponseError naming the host", async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const e = await rejection(createModelClient(openai({ baseURL: `http://127.0.0.1:${port}/v1` }), { env: {}, maxRetries: 0 }).generate(request()));
    expect(e).toBeInstanceOf(LLMResponseError);
    expect(e.message).toContain(`could not reach 127.0.0.1:${port}`);
    clean(e);
  });

  it("a timeout → LLMResponseError; an abort → ServiceAbortedError", async () => {
    fake.script({ kind: "delay", ms: 2000 });
    const t = await rejection(createModelClient(openai(), { env: {}, maxRetries: 0, timeoutMs: 100 }).generate(request()));
    expect(t).toBeInstanceOf(LLMResponseError);
    expect(t.message).toContain("did not answer within 100 ms");

    for (const cfg of [openai(), anthropic()]) {
      fake.reset();
      fake.script({ kind: "delay", ms: 2000 });
      const ac = new AbortController();
      // Abort once the request is at the server (a fixed delay races a slow start: an aborted request still
      // on its way could reach the fake after the next reset and take the reply scripted for the next one).
      const arrived = setInterval(() => fake.requests.length > 0 && (clearInterval(arrived), ac.abort()), 5);
      const a = await rejection(createModelClient(cfg, { env: {} }).generate(request({ signal: ac.signal })));
      clearInterval(arrived);
      expect(a).toBeInstanceOf(ServiceAbortedError);
    }
  });
});

describe("usage helpers", () => {
  it("adds usages", () => {
    const u = { inputTokens: 1, outputTokens: 2, reasoningTokens: 3, cachedInputTokens: 4, inferenceTimeMs: 5 };
    expect(addUsage(u, u)).toEqual({ inputTokens: 2, outputTokens: 4, reasoningTokens: 6, cachedInputTokens: 8, inferenceTimeMs: 10 });
    expect(sumUsage([u, u, u]).inferenceTimeMs).toBe(15);
    expect(sumUsage([])).toEqual({ inputTokens: 0, outputTokens: 0, reasoningTokens: 0, cachedInputTokens: 0, inferenceTimeMs: 0 });
  });
});
