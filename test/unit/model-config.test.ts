import { describe, expect, it } from "vitest";
import { InvalidAISDKModelFormatError, MissingLLMConfigurationError, ServiceInvalidArgumentError } from "../../src/errors.js";
import { ModelConfigSchema, fromLegacy, parseModelConfig, parseModelString } from "../../src/model/config.js";
import { MissingModelKeyError, keyOptional, resolveApiKey } from "../../src/model/keys.js";

const SA = { private_key: "-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n", client_email: "svc@proj.iam.gserviceaccount.com" };
const vertex = (over: Record<string, unknown> = {}) => ({
  modelName: "vertex/gemini-2.5-flash",
  provider: "vertex",
  auth: { type: "googleServiceAccount", credentials: { ...SA } },
  providerOptions: { vertex: { project: "proj", location: "us-central1" } },
  ...over,
});
const azure = (over: Record<string, unknown> = {}) => ({ modelName: "azure/my-deployment", provider: "azure", providerOptions: { azure: { resourceName: "res" } }, ...over });

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a throw");
}

describe("provider/model strings", () => {
  it("splits at the first slash and picks the provider's default wire format", () => {
    expect(parseModelConfig("openai/gpt-4.1-mini")).toEqual({ provider: "openai", model: "gpt-4.1-mini", modelName: "openai/gpt-4.1-mini", openaiEndpointFormat: "responses" });
    expect(parseModelConfig("google/gemini-2.5-flash")).toMatchObject({ provider: "google", model: "gemini-2.5-flash", openaiEndpointFormat: "chat" });
    expect(parseModelConfig("anthropic/claude-sonnet-4-5")).toMatchObject({ provider: "anthropic", model: "claude-sonnet-4-5" });
    expect(parseModelConfig("ollama/llama3.1:8b")).toMatchObject({ provider: "ollama", model: "llama3.1:8b", openaiEndpointFormat: "chat" });
    expect(parseModelConfig("openrouter/meta-llama/llama-3.3-70b")).toMatchObject({ provider: "openrouter", model: "meta-llama/llama-3.3-70b" });
    expect(parseModelConfig(" Microsoft/gpt-4o ")).toMatchObject({ provider: "azure", model: "gpt-4o" });
    expect(parseModelString("groq/llama-3.3-70b-versatile")).toEqual({ provider: "groq", model: "llama-3.3-70b-versatile" });
  });

  it.each(["gpt-4o", "", "openai/", "/gpt-4o", "openai/gpt 4o", "open ai/gpt"])("rejects %j with InvalidAISDKModelFormatError", (s) => {
    const e = thrown(() => parseModelConfig(s));
    expect(e).toBeInstanceOf(InvalidAISDKModelFormatError);
    expect(e.message).toContain("provider/model");
    expect(e.message).toMatch(/use "[a-z]+\/[^"]+"/);
  });

  it("hints at the likely full name", () => {
    expect(thrown(() => parseModelConfig("gpt-4o")).message).toContain('use "openai/gpt-4o"');
    expect(thrown(() => parseModelConfig("claude-3-5-sonnet-latest")).message).toContain('use "anthropic/claude-3-5-sonnet-latest"');
    expect(thrown(() => parseModelConfig("mystery")).message).toContain('use "openai/gpt-4.1-mini"');
  });

  it("names the field in the error", () => {
    expect(thrown(() => parseModelConfig("nope", "agent.model")).message).toMatch(/^agent\.model: "nope"/);
    expect(thrown(() => parseModelConfig(42))).toBeInstanceOf(ServiceInvalidArgumentError);
    expect(thrown(() => parseModelConfig(["openai/x"])).message).toMatch(/^model: expected a "provider\/model" string/);
  });
});

describe("GenericModelConfigObject", () => {
  it("accepts every field", () => {
    const r = parseModelConfig({
      modelName: "openai/gpt-4.1",
      apiKey: "sk-test",
      baseURL: "https://proxy.example.com/v1",
      headers: { "x-team": "a" },
      openaiEndpointFormat: "chat",
      provider: "openai",
    });
    expect(r).toEqual({
      provider: "openai",
      model: "gpt-4.1",
      modelName: "openai/gpt-4.1",
      apiKey: "sk-test",
      baseURL: "https://proxy.example.com/v1",
      headers: { "x-team": "a" },
      openaiEndpointFormat: "chat",
    });
  });

  it("rejects unknown properties, naming them", () => {
    const e = thrown(() => parseModelConfig({ modelName: "openai/gpt-4.1", apikey: "x" }));
    expect(e).toBeInstanceOf(ServiceInvalidArgumentError);
    expect(e.message).toBe('model: unknown option "apikey"');
  });

  it.each([
    [{ modelName: "openai/x", baseURL: "not a url" }, "model.baseURL: expected an http(s) URL"],
    [{ modelName: "openai/x", baseURL: "ftp://example.com" }, "model.baseURL: expected an http(s) URL"],
    [{ modelName: "openai/x", headers: { a: 1 } }, "model.headers.a:"],
    [{ modelName: "openai/x", openaiEndpointFormat: "completions" }, "model.openaiEndpointFormat:"],
    [{ modelName: "openai/x", provider: "cohere" }, "model.provider:"],
    [{ modelName: 5 }, "model.modelName:"],
    [{ modelName: "" }, "model.modelName:"],
    [{ apiKey: "k" }, "model.modelName:"],
  ])("rejects %j", (input, msg) => {
    const e = thrown(() => parseModelConfig(input));
    expect(e).toBeInstanceOf(ServiceInvalidArgumentError);
    expect(e.message.startsWith(msg)).toBe(true);
  });

  it("lets provider or baseURL stand in for the prefix", () => {
    expect(parseModelConfig({ modelName: "gemini-2.5-flash", provider: "google" })).toMatchObject({ provider: "google", model: "gemini-2.5-flash" });
    expect(parseModelConfig({ modelName: "gpt-4o", provider: "microsoft", baseURL: "https://r.openai.azure.com/openai" })).toMatchObject({ provider: "azure", model: "gpt-4o" });
    expect(parseModelConfig({ modelName: "qwen2.5", baseURL: "http://localhost:8000/v1" })).toMatchObject({ provider: "openai", model: "qwen2.5", openaiEndpointFormat: "responses" });
    expect(parseModelConfig({ modelName: "meta-llama/Llama-3", provider: "openai" })).toMatchObject({ provider: "openai", model: "meta-llama/Llama-3" });
    expect(thrown(() => parseModelConfig({ modelName: "gpt-4o" }))).toBeInstanceOf(InvalidAISDKModelFormatError);
    expect(thrown(() => parseModelConfig({ modelName: "anthropic/claude", provider: "openai" })).message).toMatch(/^model\.provider: "openai" does not match/);
  });
});

describe("VertexModelConfigObject", () => {
  it("accepts a full config and merges headers", () => {
    const r = parseModelConfig(
      vertex({
        headers: { a: "1" },
        auth: { type: "googleServiceAccount", credentials: { ...SA, type: "service_account", token_uri: "https://oauth2.googleapis.com/token" }, scopes: ["s1"], projectId: "p", universeDomain: "googleapis.com" },
        providerOptions: { vertex: { project: "proj", location: "global", baseURL: "https://vertex.example.com/v1", headers: { b: "2" } } },
      }),
    );
    expect(r).toMatchObject({ provider: "vertex", model: "gemini-2.5-flash", baseURL: "https://vertex.example.com/v1", headers: { a: "1", b: "2" }, openaiEndpointFormat: "chat" });
    expect(r.vertex).toMatchObject({ project: "proj", location: "global" });
    expect(r.auth).toMatchObject({ type: "googleServiceAccount", scopes: ["s1"] });
    expect(parseModelConfig(vertex({ modelName: "google/gemini-2.5-pro" })).model).toBe("google/gemini-2.5-pro");
  });

  it.each([
    [vertex({ providerOptions: { vertex: { project: "p" } } }), "model.providerOptions.vertex.location:"],
    [vertex({ providerOptions: {} }), "model.providerOptions.vertex:"],
    [vertex({ providerOptions: { vertex: { project: "p", location: "l", region: "x" } } }), 'model.providerOptions.vertex: unknown option "region"'],
    [vertex({ auth: undefined }), "model.auth:"],
    [vertex({ auth: { type: "oauth", credentials: SA } }), "model.auth.type:"],
    [vertex({ auth: { type: "googleServiceAccount", credentials: { client_email: "x" } } }), "model.auth.credentials.private_key:"],
    [vertex({ auth: { type: "googleServiceAccount", credentials: { ...SA, extra: 1 } } }), 'model.auth.credentials: unknown option "extra"'],
    [vertex({ auth: { type: "googleServiceAccount", credentials: { ...SA, token_uri: "nope" } } }), "model.auth.credentials.token_uri: expected an http(s) URL"],
    [vertex({ auth: { type: "googleServiceAccount", credentials: { ...SA, type: "user" } } }), "model.auth.credentials.type:"],
    [vertex({ auth: { type: "googleServiceAccount", credentials: SA, scopes: 3 } }), "model.auth.scopes:"],
    [vertex({ auth: { type: "googleServiceAccount", credentials: SA, keyFile: "/x" } }), 'model.auth: unknown option "keyFile"'],
    [vertex({ openaiEndpointFormat: "chat" }), 'model: unknown option "openaiEndpointFormat"'],
    [vertex({ baseURL: "vertex" }), "model.baseURL:"],
  ])("rejects case %#", (input, msg) => {
    const e = thrown(() => parseModelConfig(input));
    expect(e).toBeInstanceOf(ServiceInvalidArgumentError);
    expect(e.message.startsWith(msg)).toBe(true);
  });
});

describe("AzureModelConfigObject", () => {
  it("accepts the API-key kind and the Entra kind", () => {
    expect(parseModelConfig(azure({ apiKey: "k", headers: { a: "1" }, providerOptions: { azure: { resourceName: "res", apiVersion: "2025-04-01-preview", useDeploymentBasedUrls: true, headers: { b: "2" } } } }))).toMatchObject({
      provider: "azure",
      model: "my-deployment",
      apiKey: "k",
      headers: { a: "1", b: "2" },
      azure: { resourceName: "res", useDeploymentBasedUrls: true },
      openaiEndpointFormat: "chat",
    });
    const entra = parseModelConfig(azure({ auth: { type: "azureEntraId", token: "eyJ.tok" }, baseURL: "https://res.openai.azure.com/openai" }));
    expect(entra).toMatchObject({ auth: { type: "azureEntraId", token: "eyJ.tok" }, baseURL: "https://res.openai.azure.com/openai" });
    expect(entra.apiKey).toBeUndefined();
    expect(parseModelConfig(azure({ providerOptions: { azure: {} } }))).toMatchObject({ azure: {}, openaiEndpointFormat: "responses" });
  });

  it.each([
    [azure({ auth: { type: "azureEntraId", token: "" } }), "model.auth.token:"],
    [azure({ auth: { type: "azureEntraId" } }), "model.auth.token:"],
    [azure({ auth: { type: "azureEntraId", token: "t" }, apiKey: "k" }), "model: give either auth"],
    [azure({ providerOptions: undefined }), "model.providerOptions:"],
    [azure({ providerOptions: { azure: { deployment: "x" } } }), 'model.providerOptions.azure: unknown option "deployment"'],
    [azure({ providerOptions: { azure: { useDeploymentBasedUrls: "yes" } } }), "model.providerOptions.azure.useDeploymentBasedUrls:"],
    [azure({ providerOptions: { azure: { baseURL: "res.openai.azure.com" } } }), "model.providerOptions.azure.baseURL: expected an http(s) URL"],
    [azure({ providerOptions: { vertex: { project: "p", location: "l" } } }), "model.providerOptions"],
  ])("rejects case %#", (input, msg) => {
    const e = thrown(() => parseModelConfig(input));
    expect(e).toBeInstanceOf(ServiceInvalidArgumentError);
    expect(e.message.startsWith(msg)).toBe(true);
  });
});

describe("ModelConfigSchema", () => {
  it("is the string | object union", () => {
    expect(ModelConfigSchema.safeParse("openai/gpt-4.1").success).toBe(true);
    expect(ModelConfigSchema.safeParse({ modelName: "openai/gpt-4.1" }).success).toBe(true);
    expect(ModelConfigSchema.safeParse(vertex()).success).toBe(true);
    expect(ModelConfigSchema.safeParse(azure({ auth: { type: "azureEntraId", token: "t" } })).success).toBe(true);
    expect(ModelConfigSchema.safeParse({ modelName: "openai/gpt-4.1", nope: 1 }).success).toBe(false);
  });
});

describe("API keys", () => {
  const openai = parseModelConfig("openai/gpt-4.1-mini");

  it("prefers the config, then the environment, then the stored key", () => {
    const stored = (p: string) => (p === "openai" ? "sk-stored" : undefined);
    expect(resolveApiKey({ ...openai, apiKey: "sk-config" }, { OPENAI_API_KEY: "sk-env" }, stored)).toBe("sk-config");
    expect(resolveApiKey(openai, { OPENAI_API_KEY: "sk-env" }, stored)).toBe("sk-env");
    expect(resolveApiKey(openai, {}, stored)).toBe("sk-stored");
    expect(resolveApiKey(parseModelConfig("google/gemini-2.5-flash"), { GEMINI_API_KEY: "g" })).toBe("g");
    expect(resolveApiKey(parseModelConfig("google/gemini-2.5-flash"), { GOOGLE_API_KEY: "a", GEMINI_API_KEY: "b" })).toBe("a");
    expect(resolveApiKey(parseModelConfig("bedrock/openai.gpt-oss-120b-1:0"), { AWS_BEARER_TOKEN_BEDROCK: "b" })).toBe("b");
    expect(resolveApiKey(parseModelConfig("azure/dep"), { AZURE_API_KEY: "z" })).toBe("z");
    expect(resolveApiKey(parseModelConfig("acme/m1"), { ACME_API_KEY: "x" })).toBe("x");
  });

  it("fails naming the variable to set", () => {
    const e = thrown(() => resolveApiKey(openai, {}));
    expect(e).toBeInstanceOf(MissingLLMConfigurationError);
    expect(e).toBeInstanceOf(MissingModelKeyError);
    expect(e.message).toBe("no API key for openai: set OPENAI_API_KEY, pass model.apiKey, or run svc config set openai.apiKey <key>");
    expect((e as MissingModelKeyError).variable).toBe("OPENAI_API_KEY");
    expect((e as MissingLLMConfigurationError).code).toBe("MISSING_LLM_CONFIGURATION");
    expect(thrown(() => resolveApiKey(parseModelConfig("google/gemini-2.5-flash"), {})).message).toContain("set GOOGLE_API_KEY (or GEMINI_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY)");
    expect(thrown(() => resolveApiKey(parseModelConfig("anthropic/claude-x"), {})).message).toContain("set ANTHROPIC_API_KEY");
    expect(thrown(() => resolveApiKey(parseModelConfig("acme/m1"), {})).message).toContain("set ACME_API_KEY");
    expect(thrown(() => resolveApiKey(openai, { OPENAI_API_KEY: "  " }))).toBeInstanceOf(MissingLLMConfigurationError);
  });

  it("needs no key for local servers and token auth", () => {
    expect(resolveApiKey(parseModelConfig("ollama/llama3"), {})).toBeUndefined();
    expect(resolveApiKey(parseModelConfig("lmstudio/qwen"), {})).toBeUndefined();
    expect(resolveApiKey(parseModelConfig({ modelName: "openai/x", baseURL: "http://127.0.0.1:9999/v1" }), {})).toBeUndefined();
    expect(resolveApiKey(parseModelConfig({ modelName: "vllm/x", baseURL: "http://gpu-box:8000/v1" }), {})).toBeUndefined();
    expect(resolveApiKey(parseModelConfig(vertex()), {})).toBeUndefined();
    expect(resolveApiKey(parseModelConfig(azure({ auth: { type: "azureEntraId", token: "t" } })), {})).toBeUndefined();
    expect(keyOptional(parseModelConfig({ modelName: "openai/x", baseURL: "https://api.example.com/v1" }))).toBe(false);
    // A key that is there is still used, even where it is optional.
    expect(resolveApiKey(parseModelConfig("ollama/llama3"), { OLLAMA_API_KEY: "o" })).toBe("o");
  });
});

describe("older-generation modelName + modelClientOptions", () => {
  it("maps api_base, temperature and maxTokens and infers the provider of a bare name", () => {
    expect(fromLegacy("gpt-4o", { apiKey: "sk-x", api_base: "https://proxy.example.com/v1", temperature: 0.2, maxTokens: 800 })).toEqual({
      provider: "openai",
      model: "gpt-4o",
      modelName: "openai/gpt-4o",
      apiKey: "sk-x",
      baseURL: "https://proxy.example.com/v1",
      temperature: 0.2,
      maxTokens: 800,
      openaiEndpointFormat: "responses",
    });
    expect(fromLegacy("claude-3-5-sonnet-latest")).toMatchObject({ provider: "anthropic", model: "claude-3-5-sonnet-latest" });
    expect(fromLegacy("gemini-2.0-flash")).toMatchObject({ provider: "google" });
    expect(fromLegacy("o4-mini")).toMatchObject({ provider: "openai" });
    expect(fromLegacy("groq-llama-3.3-70b-versatile")).toMatchObject({ provider: "groq", model: "llama-3.3-70b-versatile" });
    expect(fromLegacy("anthropic/claude-sonnet-4-5", { baseURL: "http://localhost:1/" })).toMatchObject({ provider: "anthropic", baseURL: "http://localhost:1/" });
    expect(fromLegacy("local-model", { api_base: "http://localhost:1234/v1" })).toMatchObject({ provider: "openai", model: "local-model" });
    // Other keys went straight to a vendor SDK in the older generation; they are ignored.
    expect(fromLegacy("gpt-4o", { organization: "org", dangerouslyAllowBrowser: true })).toMatchObject({ provider: "openai" });
  });

  it("rejects unknowable names and bad option types", () => {
    expect(thrown(() => fromLegacy("mystery-model"))).toBeInstanceOf(InvalidAISDKModelFormatError);
    expect(thrown(() => fromLegacy("mystery-model")).message).toMatch(/^modelName: "mystery-model" is not in provider\/model form/);
    const e = thrown(() => fromLegacy("gpt-4o", { temperature: "hot" }));
    expect(e).toBeInstanceOf(ServiceInvalidArgumentError);
    expect(e.message).toMatch(/^modelClientOptions\.temperature:/);
    expect(thrown(() => fromLegacy("gpt-4o", { api_base: "nope" })).message).toMatch(/^modelClientOptions\.api_base:/);
    expect(thrown(() => fromLegacy("gpt-4o", { maxTokens: -1 })).message).toMatch(/^modelClientOptions\.maxTokens:/);
  });
});
