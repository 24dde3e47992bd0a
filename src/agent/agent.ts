/**
 * service.agent(config?) → an agent: `execute()` runs a task to an AgentResult; `subscribe()` sees every RunEvent of
 * every run, in order. Modes, models, budgets and search: docs/agent.md. Variable values join the session's secrets
 * (util/secrets.ts), so no model request, event, history entry or cache file holds them; execute() returns the result
 * unmasked, like act.
 */
import { randomUUID } from "node:crypto";
import { errorMessage } from "../errors.js";
import type { AgentResultData, RunEvent, RunEventListener } from "../events.js";
import type { AgentCache } from "./cache.js";
import { modelLabel } from "./cache.js";
import { runEventHub } from "./listeners.js";
import { resolveAgentConfig, resolveExecuteOptions, type AgentExecuteOptions, type ResolvedAgentConfig } from "./options.js";
import { runAgent, type AgentHost, type EventBody } from "./run.js";
import type { Secrets } from "../util/secrets.js";

export interface AgentServices extends AgentHost {
  cache: AgentCache | undefined;
  /** The service's default model name (for cache keys and history when the config names none). */
  defaultModelName(): string;
  /** A history entry (method "agent"); the service masks what it records. */
  record(parameters: unknown, result: unknown): void;
}

export interface Agent {
  readonly config: Readonly<ResolvedAgentConfig>;
  execute(input: string | AgentExecuteOptions): Promise<AgentResultData>;
  /** Listens to every run's events; returns the function that stops listening. */
  subscribe(listener: RunEventListener): () => void;
}

/** Screenshots stay out of the history (they would bloat it); the result keeps them. */
function withoutImages(result: AgentResultData): AgentResultData {
  return { ...result, actions: result.actions.map(({ image: _image, ...a }) => a) };
}

export function createAgent(services: AgentServices, configInput?: unknown): Agent {
  const config = resolveAgentConfig(configInput);
  const hub = runEventHub();

  async function execute(input: string | AgentExecuteOptions): Promise<AgentResultData> {
    const options = resolveExecuteOptions(input);
    services.secrets.remember(options.variables);
    const mask = services.secrets.mask;
    const runId = randomUUID();
    const t0 = performance.now();
    const emit = (body: EventBody) => {
      hub.emit(mask({ ...body, runId, elapsedMs: Math.round(performance.now() - t0) }) as RunEvent);
    };
    const page = services.page();
    const cache = !options.cache ? undefined : services.cache?.session(services.cache.key(page.url(), config, options, services.defaultModelName()), options.instruction, page.url(), options.variables, mask);
    const parameters = {
      instruction: options.instruction,
      mode: config.mode,
      maxSteps: options.maxSteps,
      ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      variables: Object.keys(options.variables),
      model: modelLabel(config.model) ?? services.defaultModelName(),
      ...(config.executionModel !== undefined ? { executionModel: modelLabel(config.executionModel) } : {}),
    };
    try {
      // The run is one operation on its page: acts and navigations sent meanwhile wait for it (its own tools go through).
      const result = await page.operations.run(() => runAgent({ host: services, config, options, emit, ...(cache ? { cache } : {}) }));
      services.record(parameters, withoutImages(result));
      return result;
    } catch (e) {
      services.record(parameters, { error: errorMessage(e) });
      if (e instanceof Error) e.message = services.secrets.text(e.message);
      throw e;
    }
  }

  return {
    config,
    execute,
    subscribe: hub.subscribe,
  };
}
