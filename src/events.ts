/**
 * The one RunEvent stream of an agent run (types only): the Ink view, JSON lines, SSE and history all subscribe to
 * it. Events are synchronous and ordered, run_end always last (docs/agent.md has the order); variable values never
 * appear. The result shapes live here so `run_end` can carry them without this base module depending on the agent
 * (src/agent/result.ts checks them).
 */

export type AgentMode = "dom" | "hybrid" | "cua";

/** AgentUsageOutput (docs/wire-formats.md "Agent result"): every model call of the run, the agent's own steps and its tools' calls. */
export interface AgentUsage {
  input_tokens: number;
  output_tokens: number;
  reasoning_tokens?: number;
  cached_input_tokens?: number;
  inference_time_ms: number;
}

/** AgentAction (docs/wire-formats.md "Agent result"); additional properties allowed: svc adds `args`, `ok`, `result`, `cached`. */
export interface AgentAction {
  /** The tool name (`goto`, `perform`, `extract`, `done`, …). */
  type: string;
  reasoning?: string;
  taskCompleted?: boolean;
  /** What was done, one line (`click e5 link "Boston Fern"`). */
  action?: string;
  timeMs?: number;
  pageText?: string;
  pageUrl?: string;
  instruction?: string;
  [extra: string]: unknown;
}

/** AgentResultDataOutput (docs/wire-formats.md "Agent result"), no other properties. */
export interface AgentResultData {
  success: boolean;
  message: string;
  actions: AgentAction[];
  completed: boolean;
  metadata?: Record<string, unknown>;
  usage?: AgentUsage;
}

/** Why a run ended (in `metadata.stopReason`). */
export type AgentStopReason = "done" | "maxSteps" | "maxTokens" | "timeout" | "aborted" | "error" | "loop";

export type LogLevel = "debug" | "info" | "warn" | "error";

interface EventBase {
  /** One id per execute() call. */
  runId: string;
  /** Milliseconds since the run started. */
  elapsedMs: number;
}

export type RunEvent = EventBase &
  (
    | { type: "run_start"; instruction: string; mode: AgentMode; maxSteps: number; model: string; url: string }
    /** The model is asked for the next step (a view shows a spinner until tool_call). */
    | { type: "step_start"; step: number }
    | { type: "tool_call"; step: number; tool: string; args: unknown; reasoning: string; cached?: boolean }
    | { type: "tool_result"; step: number; tool: string; ok: boolean; summary: string; timeMs: number }
    /** The page's URL changed (or is first known). */
    | { type: "page"; step: number; url: string }
    /** One model call: its own tokens and the run's totals so far. `operation`: agent, act, extract, observe. */
    | { type: "usage"; step: number; operation: string; input: number; output: number; reasoning: number; cached: number; inferenceMs: number; totals: AgentUsage }
    | { type: "log"; level: LogLevel; message: string }
    /**
     * The agent repeated a step on an unchanged page (src/agent/loop-detect.ts): `count` identical steps,
     * warning number `warning`; `stopped`: the run ends here (stopReason "loop"). `message` says it in words.
     */
    | { type: "loop"; step: number; tool: string; args: unknown; count: number; warning: number; stopped: boolean; message: string }
    /** The agent asks the person watching to do something (askHuman): the run waits up to `timeoutMs` for the answer. */
    | { type: "ask_human"; step: number; message: string; timeoutMs: number }
    /** The person answered (`answered`, with their optional reply) or nobody did within the time. */
    | { type: "human_reply"; step: number; answered: boolean; reply?: string }
    | { type: "run_end"; result: AgentResultData }
  );

export type RunEventType = RunEvent["type"];

export type RunEventListener = (event: RunEvent) => void;
