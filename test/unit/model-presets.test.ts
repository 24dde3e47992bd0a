/**
 * Local-server presets (`ollama/…`, `lmstudio/…`, `vllm/…`, `llamacpp/…`): each resolves to its server's
 * default local base URL with no key; a baseURL overrides it; and under an endpoint policy (svc serve's
 * tenants) the loopback URL is not theirs to reach: it must be listed in `allow`, and the operator's
 * baseURL is the only way a preset goes somewhere without that check.
 */
import { describe, expect, it } from "vitest";
import { ServiceInvalidArgumentError } from "../../src/errors.js";
import { parseModelConfig } from "../../src/model/config.js";
import { checkModelEndpoint, planClient } from "../../src/model/endpoint.js";
import { presetEndpoint } from "../../src/model/endpoint-policy.js";
import { resolveKeyFor } from "../../src/model/keys.js";

const PRESETS: Array<[string, string]> = [
  ["ollama/llama3.1:8b", "http://localhost:11434/v1"],
  ["lmstudio/qwen2.5-7b-instruct", "http://localhost:1234/v1"],
  ["vllm/Qwen/Qwen2.5-7B-Instruct", "http://localhost:8000/v1"],
  ["llamacpp/any", "http://localhost:8080/v1"],
];

describe("local model presets", () => {
  it.each(PRESETS)("%s resolves to %s with no key and Chat Completions", (name, url) => {
    const plan = planClient(parseModelConfig(name), { env: {} });
    expect(plan.baseURL).toBe(url);
    expect(plan.apiKey).toBeUndefined();
    expect(plan.format).toBe("chat");
    expect(plan.model).toBe(name.slice(name.indexOf("/") + 1));
  });

  it("spellings users reach for fold into the preset; a baseURL overrides the default", () => {
    expect(parseModelConfig("llama.cpp/m").provider).toBe("llamacpp");
    expect(parseModelConfig("llama-cpp/m").provider).toBe("llamacpp");
    expect(parseModelConfig("lm-studio/m").provider).toBe("lmstudio");
    const plan = planClient(parseModelConfig({ modelName: "ollama/llama3.2", baseURL: "http://gpu-box:11434/v1" }), { env: {} });
    expect(plan.baseURL).toBe("http://gpu-box:11434/v1");
  });

  it("under a policy a preset's loopback URL is refused unless allowed; the operator's baseURL takes it elsewhere", () => {
    const preset = parseModelConfig("ollama/llama3.1");
    expect(presetEndpoint(preset)).toBe("http://localhost:11434/v1");
    const e = (() => {
      try {
        checkModelEndpoint("ollama/llama3.1", { allow: ["https://api.openai.com/v1"] }, "options.model", {});
      } catch (err) {
        return err as Error;
      }
      return undefined;
    })();
    expect(e).toBeInstanceOf(ServiceInvalidArgumentError);
    expect(e!.message).toContain("options.model: http://localhost:11434/v1 is not an allowed model endpoint (allowed: https://api.openai.com/v1)");
    expect(e!.message).toContain("ollama/ means a server on this machine");
    // Allowed explicitly by the operator: fine, and it is a foreign endpoint (the guarded fetch applies).
    const plan = planClient(preset, { env: {}, endpointPolicy: { allow: ["http://localhost:11434/v1"] } });
    expect(plan.foreignEndpoint).toBe(true);
    // The operator's own endpoint: the preset goes there, unchecked.
    const op = planClient(preset, { env: {}, endpointPolicy: { allow: [], baseURL: "http://10.0.0.5:11434/v1" } });
    expect(op.baseURL).toBe("http://10.0.0.5:11434/v1");
    expect(op.foreignEndpoint).toBeUndefined();
    // The process owner's OLLAMA_API_KEY never goes with a tenant's preset.
    expect(resolveKeyFor(preset, { OLLAMA_API_KEY: "owner-key" }, undefined, {})).toBeUndefined();
    expect(resolveKeyFor(preset, { OLLAMA_API_KEY: "owner-key" }, undefined, undefined)).toBe("owner-key");
  });
});
