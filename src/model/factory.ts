/**
 * ResolvedModel → LLMClient. The configuration is checked and the key resolved now (so a missing key fails
 * at init, not mid-run); the SDK behind the chosen wire is loaded on the first call, so commands that never
 * reach a model don't pay for loading it.
 */
import type { ResolvedModel } from "./config.js";
import { contextWindowFor } from "./context-window.js";
import { type ModelClientOptions, planClient } from "./endpoint.js";
import { UnsupportedModelError } from "../errors.js";
import type { ComputerUseSession, ComputerUseSetup } from "./computer-use.js";
import type { GenerateRequest, GenerateResult, LLMClient } from "./types.js";

export type { ModelClientOptions } from "./endpoint.js";

export function createModelClient(resolved: ResolvedModel, opts: ModelClientOptions = {}): LLMClient {
  const plan = planClient(resolved, opts);
  let inner: Promise<LLMClient> | undefined;
  const load = (): Promise<LLMClient> => {
    inner ??=
      plan.wire === "anthropic"
        ? import("./anthropic.js").then((m) => m.createAnthropicClient(plan))
        : import("./openai.js").then((m) => m.createOpenAIClient(plan));
    return inner;
  };
  const window = contextWindowFor(resolved);
  return {
    modelName: plan.modelName,
    ...(window ? { contextWindow: window.tokens } : {}),
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      return (await load()).generate(request);
    },
    computerUse(setup: ComputerUseSetup): ComputerUseSession {
      if (plan.capabilities?.tools === false)
        throw new UnsupportedModelError(`${plan.modelName}: cua mode needs tool calls (the computer tool); this model's capabilities say tools: false`, {
          hint: 'use mode "dom" or "hybrid": their steps are JSON replies, no tools needed',
        });
      if (plan.wire === "openai" && plan.format === "chat")
        throw new UnsupportedModelError(`${plan.modelName}: cua mode needs the OpenAI Responses API (computer_use_preview); this model is set to Chat Completions`, {
          hint: 'use openaiEndpointFormat "responses", an OpenAI or Anthropic computer-use model, or mode "hybrid"',
        });
      let session: Promise<ComputerUseSession> | undefined;
      return {
        async next(input) {
          session ??=
            plan.wire === "anthropic"
              ? import("./computer-use-anthropic.js").then((m) => m.anthropicComputerUse(plan, setup))
              : import("./computer-use-openai.js").then((m) => m.openAIComputerUse(plan, setup));
          return (await session).next(input);
        },
      };
    },
  };
}
