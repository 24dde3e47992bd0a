/**
 * agent() on a session API: execute() posts an AgentExecuteRequest and streams the run back, every RunEvent as a log
 * line, so subscribers see the same events as for a local run. Aborting drops the stream, which aborts the run on the
 * server. `onStepEnd` runs as each step's tool_result arrives, awaited before execute() returns; the server's run
 * cannot wait for it.
 */
import { randomUUID } from "node:crypto";
import type { Agent } from "../agent/agent.js";
import { resolveAgentConfig, resolveExecuteOptions, STEP_HOOK_TIMEOUT_MS, type AgentExecuteOptions } from "../agent/options.js";
import { runEventHub } from "../agent/listeners.js";
import { DEFAULT_LOOP_DETECTION } from "../agent/loop-detect.js";
import { AgentResultSchema } from "../agent/result.js";
import type { Page } from "../browser/page.js";
import { errorMessage, LLMResponseError, ServiceAbortedError, ServiceInvalidArgumentError } from "../errors.js";
import type { AgentResultData, RunEvent } from "../events.js";
import type { Logger } from "../log.js";
import type { ModelRegistry } from "../model-choice.js";
import type { SessionApi } from "../platform/session-api.js";
import { Cancellation } from "../util/abort.js";
import type { Secrets } from "../util/secrets.js";
import { forwardLog } from "./log.js";

export interface RemoteAgentDeps {
  api: SessionApi;
  sessionId: string;
  models: ModelRegistry;
  page(): Page;
  log: Logger;
  /** The session's secrets: the run's variables join them; events are masked with them here too. */
  secrets: Secrets;
  /** A history entry; the backend masks what it records. */
  record(parameters: unknown, result: unknown): void;
}

function isRunEvent(v: unknown): v is RunEvent {
  return !!v && typeof v === "object" && typeof (v as RunEvent).type === "string" && typeof (v as RunEvent).runId === "string";
}

/** A model config for the wire: the key travels inside the object (the agent may use two providers). */
function wireModel(models: ModelRegistry, model: unknown, field: string): { model: unknown; apiKey: string | undefined } {
  const w = models.wire(model, field);
  if (!w.apiKey) return w;
  return { model: typeof w.model === "string" ? { modelName: w.model, apiKey: w.apiKey } : { ...w.model, apiKey: w.apiKey }, apiKey: w.apiKey };
}

export function createRemoteAgent(deps: RemoteAgentDeps, configInput?: unknown): Agent {
  const config = resolveAgentConfig(configInput);
  const { emit, subscribe } = runEventHub();

  async function execute(input: string | AgentExecuteOptions): Promise<AgentResultData> {
    const o = resolveExecuteOptions(input);
    if (o.output) throw new ServiceInvalidArgumentError("execute.output: a structured-output schema cannot be sent over the session API", { hint: 'use extract() after the run, or env "LOCAL"' });
    const loop = o.loopDetection;
    if (loop === false || loop.repeats !== DEFAULT_LOOP_DETECTION.repeats || loop.maxWarnings !== DEFAULT_LOOP_DETECTION.maxWarnings)
      throw new ServiceInvalidArgumentError("execute.loopDetection: cannot be sent over the session API (the server's agent detects loops with the defaults)", { hint: 'leave it out, or use env "LOCAL"' });
    if (o.askHuman) throw new ServiceInvalidArgumentError("execute.askHuman: a person cannot be asked over the session API (the agent runs on the server)", { hint: 'use env "LOCAL"' });
    const main = wireModel(deps.models, config.model, "agent.model");
    const agentConfig = {
      mode: config.mode,
      ...(config.model !== undefined || main.apiKey ? { model: main.model } : {}),
      ...(config.executionModel !== undefined && config.executionModel !== config.model ? { executionModel: wireModel(deps.models, config.executionModel, "agent.executionModel").model } : {}),
      ...(config.systemPrompt ? { systemPrompt: config.systemPrompt } : {}),
    };
    const executeOptions = {
      instruction: o.instruction,
      maxSteps: o.maxSteps,
      highlightCursor: o.highlightCursor,
      useSearch: o.useSearch,
      toolTimeout: o.toolTimeout,
      ...(Object.keys(o.variables).length ? { variables: o.variables } : {}),
      ...(o.maxTokens !== undefined ? { maxTokens: o.maxTokens } : {}),
      ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
    };
    deps.secrets.remember(o.variables);
    const parameters = { instruction: o.instruction, mode: config.mode, maxSteps: o.maxSteps, variables: Object.keys(o.variables), remote: true };
    const runId = randomUUID();
    let sawEnd = false;
    let hooks = Promise.resolve();
    const stepEnd = (e: Extract<RunEvent, { type: "tool_result" }>) => {
      const hook = o.onStepEnd;
      if (!hook) return;
      hooks = hooks.then(async () => {
        const cancel = new Cancellation({ signal: o.signal, timeout: STEP_HOOK_TIMEOUT_MS, what: `the onStepEnd hook of step ${e.step}` });
        await cancel.run(async (signal) => hook({ step: e.step, tool: e.tool, ok: e.ok, url: deps.page().url(), signal }), 0).catch((x: unknown) => deps.log.warn("agent", errorMessage(x)));
      });
    };
    try {
      const out = await deps.api.run<AgentResultData>(
        deps.sessionId,
        "agentExecute",
        { agentConfig, executeOptions, frameId: deps.page().targetId },
        {
          modelApiKey: main.apiKey,
          ...(o.cache ? {} : { cache: false }),
          ...(o.signal ? { signal: o.signal } : {}),
          onLog: (line) => {
            const event = line.auxiliary?.event;
            if (isRunEvent(event)) {
              if (event.type === "run_end") sawEnd = true;
              emit(deps.secrets.deep(event));
              if (event.type === "tool_result") stepEnd(event);
            } else forwardLog(deps.log, line);
          },
        },
      );
      await hooks;
      const parsed = AgentResultSchema.safeParse(out.result);
      if (!parsed.success) throw new LLMResponseError("agentExecute: the server's result is not an AgentResult");
      deps.record(parameters, parsed.data);
      return parsed.data as AgentResultData;
    } catch (e) {
      if (o.signal?.aborted || e instanceof ServiceAbortedError) {
        // Like a local run: an abort ends the run with completed: false, it does not throw.
        const result: AgentResultData = { success: false, completed: false, message: "aborted", actions: [], metadata: { stopReason: "aborted", remote: true } };
        if (!sawEnd) emit({ type: "run_end", runId, elapsedMs: 0, result });
        deps.record(parameters, result);
        return result;
      }
      deps.record(parameters, { error: errorMessage(e) });
      if (e instanceof Error) e.message = deps.secrets.text(e.message);
      throw e;
    }
  }

  return {
    config,
    execute,
    subscribe,
  };
}
