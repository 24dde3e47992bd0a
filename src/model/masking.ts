/**
 * A model client whose every outgoing text (system prompt, messages but not images, computer-use task and tool
 * results) is masked by the session's secrets (util/secrets.ts). The service wraps each client once
 * (model-choice.ts), so every operation and agent step goes through it. Replies are untouched: the model answers
 * `%name%` and values are substituted locally.
 */
import type { Secrets } from "../util/secrets.js";
import type { LLMClient } from "./types.js";

export function maskingClient(client: LLMClient, secrets: Secrets): LLMClient {
  const cu = client.computerUse?.bind(client);
  return {
    modelName: client.modelName,
    ...(client.contextWindow !== undefined ? { contextWindow: client.contextWindow } : {}),
    generate: (req) =>
      client.generate({
        ...req,
        system: secrets.text(req.system),
        messages: req.messages.map((m) => ({ ...m, content: secrets.text(m.content) })),
      }),
    ...(cu
      ? {
          computerUse: (setup) => {
            const session = cu({ ...setup, system: secrets.text(setup.system), instruction: secrets.text(setup.instruction) });
            return { next: (input) => session.next({ ...input, results: secrets.deep(input.results) }) };
          },
        }
      : {}),
  };
}
