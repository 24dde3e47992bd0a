/**
 * The model endpoint policy: a config choosing its own endpoint gets only its own key; `allow` pins where it may
 * point (compared as URLs); through the real SDKs against the fake server no credential of this process reaches such
 * an endpoint, and an address policy refusing its host is a ServiceInvalidArgumentError naming it, with no request
 * sent.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MissingLLMConfigurationError, ServiceInvalidArgumentError } from "../../src/errors.js";
import { parseModelConfig } from "../../src/model/config.js";
import { checkModelEndpoint, planClient } from "../../src/model/endpoint.js";
import { choosesEndpoint, underPrefix } from "../../src/model/endpoint-policy.js";
import { createModelClient } from "../../src/model/factory.js";
import { resolveKeyFor } from "../../src/model/keys.js";
import type { GenerateRequest } from "../../src/model/types.js";
import { AddressPolicy } from "../../src/util/address-policy.js";
import { guardedFetch } from "../../src/util/guarded-fetch.js";
import { type FakeModel, startFakeModel } from "../support/fake-model.js";

const OPERATOR = "sk-operator-SECRET-0123456789abcdef";
const OWN = "sk-own-key-of-the-tenant-42";
const ENV = { OPENAI_API_KEY: OPERATOR, ANTHROPIC_API_KEY: OPERATOR, AZURE_API_KEY: OPERATOR };
const stored = () => "sk-stored-operator-key-0987654321";
const policy = {};

const SCHEMA = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"], additionalProperties: false };
const request: GenerateRequest = { system: "s", messages: [{ role: "user", content: "Instruction: click" }], output: { name: "act", schema: SCHEMA, strict: true } };

describe("which key a config gets", () => {
  it("a chosen endpoint gets only its own key under a policy; the provider's endpoint keeps env and stored keys", () => {
    const chosen = parseModelConfig({ modelName: "openai/gpt-4.1-mini", baseURL: "https://llm.tenant.example/v1" });
    expect(choosesEndpoint(chosen)).toBe(true);
    expect(resolveKeyFor(chosen, ENV, stored, policy)).toBeUndefined();
    expect(resolveKeyFor(chosen, {}, stored, policy)).toBeUndefined();
    expect(resolveKeyFor({ ...chosen, apiKey: OWN }, ENV, stored, policy)).toBe(OWN);
    // Without a policy (the CLI, the library on one's own machine) the usual resolution applies.
    expect(resolveKeyFor(chosen, ENV, stored, undefined)).toBe(OPERATOR);

    const provider = parseModelConfig("openai/gpt-4.1-mini");
    expect(choosesEndpoint(provider)).toBe(false);
    expect(resolveKeyFor(provider, ENV, stored, policy)).toBe(OPERATOR);
    expect(resolveKeyFor(provider, {}, stored, policy)).toBe("sk-stored-operator-key-0987654321");
  });

  it("an Azure resource or Vertex project the config names is a chosen endpoint; Azure without its own credential is refused", () => {
    const azure = parseModelConfig({ modelName: "gpt-4o", provider: "azure", providerOptions: { azure: { resourceName: "tenant-resource" } } });
    expect(choosesEndpoint(azure)).toBe(true);
    expect(() => planClient(azure, { env: ENV, endpointPolicy: policy, field: "options.model" })).toThrow(MissingLLMConfigurationError);
    expect(() => planClient(azure, { env: ENV, endpointPolicy: policy, field: "options.model" })).toThrow(/options\.model: a azure config that chooses its own endpoint needs its own credential/);
    const own = planClient({ ...azure, apiKey: OWN }, { env: ENV, endpointPolicy: policy });
    expect(own.apiKey).toBe(OWN);
    expect(own.secrets).not.toContain(OPERATOR);
    // The operator's resource (AZURE_RESOURCE_NAME) is the operator's endpoint: the operator's key goes there.
    const operators = planClient(parseModelConfig("azure/gpt-4o"), { env: { ...ENV, AZURE_RESOURCE_NAME: "operator-resource" }, endpointPolicy: policy });
    expect(operators.apiKey).toBe(OPERATOR);
    expect(operators.baseURL).toBe("https://operator-resource.openai.azure.com/openai/v1");
  });

  it("a chosen endpoint's plan carries no key, no operator secret, and a hint naming the config's apiKey", () => {
    const plan = planClient(parseModelConfig({ modelName: "openai/gpt-4.1-mini", baseURL: "https://llm.tenant.example/v1" }), { env: ENV, stored, endpointPolicy: policy, field: "options.model" });
    expect(plan.apiKey).toBeUndefined();
    expect(plan.secrets).toEqual([]);
    expect(plan.foreignEndpoint).toBe(true);
    expect(plan.keyHint).toBe("options.model.apiKey");
  });
});

describe("allowed endpoints", () => {
  it("compares as URLs: scheme, host, port and whole path segments", () => {
    const p = "https://api.openai.com/v1";
    expect(underPrefix("https://api.openai.com/v1", p)).toBe(true);
    expect(underPrefix("https://api.openai.com/v1/", p)).toBe(true);
    expect(underPrefix("https://API.openai.com:443/v1/x", p)).toBe(true);
    expect(underPrefix("https://api.openai.com/v10", p)).toBe(false);
    expect(underPrefix("https://api.openai.com.evil.example/v1", p)).toBe(false);
    expect(underPrefix("https://api.openai.com@evil.example/v1", p)).toBe(false);
    expect(underPrefix("https://user:pw@api.openai.com/v1", p)).toBe(false);
    expect(underPrefix("http://api.openai.com/v1", p)).toBe(false);
    expect(underPrefix("https://api.openai.com:8443/v1", p)).toBe(false);
    expect(underPrefix("http://10.0.0.5:11434/v1", "http://10.0.0.5:11434/")).toBe(true);
    expect(underPrefix("not a url", p)).toBe(false);
  });

  it("checkModelEndpoint: a chosen endpoint outside `allow` throws naming the field and what is allowed; provider names pass", () => {
    const allow = { allow: ["https://api.openai.com/v1", "http://10.0.0.5:11434/v1"] };
    expect(() => checkModelEndpoint({ modelName: "openai/gpt-4.1-mini", baseURL: "https://llm.tenant.example/v1" }, allow, "options.model", ENV)).toThrow(ServiceInvalidArgumentError);
    expect(() => checkModelEndpoint({ modelName: "openai/gpt-4.1-mini", baseURL: "https://llm.tenant.example/v1" }, allow, "options.model", ENV)).toThrow(
      /^options\.model\.baseURL: https:\/\/llm\.tenant\.example\/v1 is not an allowed model endpoint \(allowed: https:\/\/api\.openai\.com\/v1, http:\/\/10\.0\.0\.5:11434\/v1\)/,
    );
    expect(() => checkModelEndpoint({ modelName: "llama3", baseURL: "http://10.0.0.5:11434/v1" }, allow, "options.model", ENV)).not.toThrow();
    expect(() => checkModelEndpoint("openai/gpt-4.1-mini", allow, "options.model", ENV)).not.toThrow();
    expect(() => checkModelEndpoint(undefined, allow, "options.model", ENV)).not.toThrow();
    // The Azure URL a resource name makes is what is checked (a name can even smuggle a host).
    expect(() =>
      checkModelEndpoint({ modelName: "gpt-4o", provider: "azure", apiKey: OWN, providerOptions: { azure: { resourceName: "evil.example/x#" } } }, allow, "agentConfig.model", ENV),
    ).toThrow(/^agentConfig\.model\.providerOptions\.azure\.resourceName: https:\/\/evil\.example\/x#/);
    // Vertex: the URL its project and location make; the field named is where the endpoint came from.
    const vertex = (vertexOptions: Record<string, unknown>) => ({
      modelName: "gemini-2.5-flash",
      provider: "vertex",
      auth: { type: "googleServiceAccount", credentials: { private_key: "k", client_email: "sa@p.iam.gserviceaccount.com" } },
      providerOptions: { vertex: { project: "p", location: "us-central1", ...vertexOptions } },
    });
    expect(() => checkModelEndpoint(vertex({}), allow, "options.model", ENV)).toThrow(/^options\.model\.providerOptions\.vertex: https:\/\/us-central1-aiplatform\.googleapis\.com\/v1\/projects\/p\//);
    expect(() => checkModelEndpoint(vertex({ baseURL: "https://llm.tenant.example/v1" }), allow, "options.model", ENV)).toThrow(/^options\.model\.providerOptions\.vertex\.baseURL: /);
    expect(() => checkModelEndpoint(vertex({}), { allow: ["https://us-central1-aiplatform.googleapis.com/v1/projects/p"] }, "options.model", ENV)).not.toThrow();
    // Long input is quoted as a short prefix only.
    const long = `https://llm.tenant.example/${"a".repeat(5000)}`;
    let message = "";
    try {
      checkModelEndpoint({ modelName: "openai/x", baseURL: long }, allow, "options.model", ENV);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message.length).toBeLessThan(400);
  });
});

describe("what reaches a chosen endpoint (real SDKs, fake model server)", () => {
  let fake: FakeModel;
  const saved: Record<string, string | undefined> = {};
  const SDK_ENV = { OPENAI_API_KEY: OPERATOR, OPENAI_ORG_ID: "org-operator", OPENAI_PROJECT_ID: "proj-operator", OPENAI_ADMIN_KEY: `${OPERATOR}-admin`, ANTHROPIC_API_KEY: OPERATOR, ANTHROPIC_AUTH_TOKEN: `${OPERATOR}-token` };
  beforeAll(async () => {
    fake = await startFakeModel();
  });
  afterAll(async () => {
    await fake.close();
  });
  // The SDKs read these themselves: set in the real environment, as an operator's would be.
  beforeEach(() => {
    fake.reset();
    for (const [k, v] of Object.entries(SDK_ENV)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
  });
  afterEach(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  const sentHeaders = () => fake.requests.map((r) => JSON.stringify(r.headers)).join("\n");

  it("openai wire, no own key: no Authorization and nothing of the operator's (key, admin key, organization, project)", async () => {
    for (const format of ["responses", "chat"] as const) {
      fake.reset();
      await createModelClient(parseModelConfig({ modelName: "openai/gpt-4.1-mini", baseURL: fake.baseURL(), openaiEndpointFormat: format }), { endpointPolicy: policy, stored }).generate(request);
      expect(fake.requests).toHaveLength(1);
      expect(fake.requests[0]!.headers.authorization).toBeUndefined();
      expect(fake.requests[0]!.headers["openai-organization"]).toBeUndefined();
      expect(fake.requests[0]!.headers["openai-project"]).toBeUndefined();
      expect(sentHeaders()).not.toContain("operator");
    }
  });

  it("openai wire, own key: exactly that key", async () => {
    await createModelClient(parseModelConfig({ modelName: "openai/gpt-4.1-mini", baseURL: fake.baseURL(), apiKey: OWN }), { endpointPolicy: policy, stored }).generate(request);
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${OWN}`);
    expect(sentHeaders()).not.toContain("operator");
  });

  it("anthropic wire, no own key: no x-api-key and no Authorization (ANTHROPIC_AUTH_TOKEN is not read)", async () => {
    await createModelClient(parseModelConfig({ modelName: "anthropic/claude-x", baseURL: fake.baseURL("anthropic") }), { endpointPolicy: policy, stored }).generate(request);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.headers["x-api-key"]).toBeUndefined();
    expect(fake.requests[0]!.headers.authorization).toBeUndefined();
    expect(sentHeaders()).not.toContain("operator");
  });

  it("a policy's fetch that refuses the host: ServiceInvalidArgumentError naming the host; nothing reaches it", async () => {
    const guarded = guardedFetch((host, addresses, port) => new AddressPolicy([]).refusal(host, addresses, port));
    try {
      for (const baseURL of [fake.baseURL(), fake.baseURL().replace("127.0.0.1", "localhost")]) {
        const client = createModelClient(parseModelConfig({ modelName: "openai/gpt-4.1-mini", baseURL, apiKey: OWN }), {
          endpointPolicy: { fetch: (input, init) => guarded.fetch(new URL(String(input)), init ?? {}) },
          maxRetries: 0,
        });
        const error = await client.generate(request).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ServiceInvalidArgumentError);
        expect((error as Error).message).toMatch(new RegExp(`the model endpoint ${new URL(baseURL).host.replace(/\./g, "\\.")} is not reachable from here: .*loopback`));
      }
      expect(fake.requests).toHaveLength(0);
    } finally {
      await guarded.close();
    }
  });
});
