/**
 * AgentConfig and AgentExecuteOptions (docs/wire-formats.md "Agent request") plus svc's budgets, validated once with
 * defaults applied once. Defaults (also in docs/agent.md):
 * - maxSteps: 20 model steps per run;
 * - toolTimeout: 30 000 ms per tool call (an overrun is reported to the model; the run goes on);
 * - maxTokens / timeoutMs: no limit unless given.
 */
import { z } from "zod";
import { ServiceInvalidArgumentError } from "../errors.js";
import type { AgentMode } from "../events.js";
import { ModelConfigSchema, parseModelConfig } from "../model/config.js";
import { VariablesSchema, parseVariables, type Variables } from "../operations/variables.js";
import { describeIssue } from "../util/zod.js";
import { DEFAULT_LOOP_DETECTION, type LoopDetectionOptions } from "./loop-detect.js";

export const DEFAULT_MAX_STEPS = 20;
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
/** How long the run waits for `onStepEnd` before it goes on (the hook's signal aborts then). */
export const STEP_HOOK_TIMEOUT_MS = 10_000;

/** What `onStepEnd` is told: the step that just ended, on the page as that step left it. */
export interface AgentStepEnd {
  step: number;
  tool: string;
  ok: boolean;
  url: string;
  /** Aborts when the hook overruns STEP_HOOK_TIMEOUT_MS or the run stops. */
  signal: AbortSignal;
}
export type StepEndHook = (step: AgentStepEnd) => void | Promise<void>;

/** What the agent asks of a person, and how the wait for them ends. */
export interface AskHumanRequest {
  message: string;
  step: number;
  timeoutMs: number;
  /** Aborted when the wait ends (answered elsewhere, timed out, or the run stopped). */
  signal: AbortSignal;
}
/** Resolves when the person answered: `reply` is what they typed, if anything. */
export type AskHumanHandler = (request: AskHumanRequest) => Promise<{ reply?: string | undefined } | void>;

/** How long askHuman waits for a person by default. */
export const DEFAULT_ASK_HUMAN_TIMEOUT_MS = 600_000;

/** The legacy `provider` field: combined with a bare `model` name as `provider/model`. */
const AGENT_PROVIDERS = ["openai", "anthropic", "google", "microsoft", "bedrock"] as const;

export const AgentConfigSchema = z.strictObject({
  provider: z.enum(AGENT_PROVIDERS).optional(),
  model: ModelConfigSchema.optional(),
  executionModel: ModelConfigSchema.optional(),
  systemPrompt: z.string().optional(),
  cua: z.boolean().optional(),
  mode: z.enum(["dom", "hybrid", "cua"]).optional(),
});
export type AgentConfig = z.input<typeof AgentConfigSchema>;

function isZodSchema(v: unknown): v is z.ZodType {
  return !!v && typeof v === "object" && typeof (v as z.ZodType).safeParse === "function";
}

export const AgentExecuteOptionsSchema = z.strictObject({
  instruction: z.string().trim().min(1, "the instruction is empty"),
  maxSteps: z.number().int().positive().optional(),
  highlightCursor: z.boolean().optional(),
  useSearch: z.boolean().optional(),
  toolTimeout: z.number().positive().optional(),
  variables: VariablesSchema.optional(),
  signal: z.custom<AbortSignal>((v) => v instanceof AbortSignal, "expected an AbortSignal").optional(),
  /** Hard limit on input + output tokens of every model call of the run. */
  maxTokens: z.number().int().positive().optional(),
  /** Hard limit on the run's wall time, in ms. */
  timeoutMs: z.number().positive().optional(),
  /** A zod schema for `done`'s structured output (returned in `metadata.output`). */
  output: z.custom<z.ZodType>(isZodSchema, "expected a zod schema").optional(),
  /** false: neither read nor write the agent cache for this run (default: use it when there is one). */
  cache: z.boolean().optional(),
  /**
   * Awaited after each step's tool ran (after its tool_result event), before the next step starts, so the
   * page is still as that step left it (e.g. a screenshot per step). Bounded by STEP_HOOK_TIMEOUT_MS; a hook
   * that fails or overruns is a warning `log` event and the run goes on.
   */
  onStepEnd: z.custom<StepEndHook>((v) => typeof v === "function", "expected a function").optional(),
  /**
   * Stuck-agent detection (loop-detect.ts): `repeats` identical steps on an unchanged page warn the model,
   * and after `maxWarnings` warnings the run stops (stopReason "loop"). Default { repeats: 3, maxWarnings: 2 }; false: off.
   */
  /**
   * Gives the agent the askHuman tool: with it the agent pauses and says what it needs of a person (log in,
   * solve a check), and the run waits until this handler resolves (the person pressed Continue, with an
   * optional reply) or askHumanTimeoutMs passes. The handler's signal aborts when the wait ends either way.
   */
  askHuman: z.custom<AskHumanHandler>((v) => typeof v === "function", "expected a function").optional(),
  /** How long askHuman waits for a person (ms; default 10 minutes, at most 1 hour). */
  askHumanTimeoutMs: z.number().int().min(1000).max(3_600_000).optional(),
  loopDetection: z
    .union([z.literal(false), z.strictObject({ repeats: z.number().int().min(2).max(100).optional(), maxWarnings: z.number().int().min(0).max(100).optional() })])
    .optional(),
});
export type AgentExecuteOptions = z.input<typeof AgentExecuteOptionsSchema>;

/** AgentExecuteOptions as JSON carries them (docs/wire-formats.md "Agent request"): no signal, zod schema or svc-only switches. */
export const AgentExecuteOptionsWireSchema = AgentExecuteOptionsSchema.omit({ signal: true, output: true, cache: true, onStepEnd: true, loopDetection: true, askHuman: true, askHumanTimeoutMs: true });

/** AgentExecuteRequest (docs/wire-formats.md "Agent request"): the body of POST /v1/sessions/{id}/agentExecute. */
export const AgentExecuteRequestSchema = z.strictObject({
  agentConfig: AgentConfigSchema,
  executeOptions: AgentExecuteOptionsWireSchema,
  frameId: z.string().nullable().optional(),
  streamResponse: z.boolean().optional(),
  shouldCache: z.boolean().optional(),
});
export type AgentExecuteRequest = z.input<typeof AgentExecuteRequestSchema>;

export interface ResolvedAgentConfig {
  mode: AgentMode;
  /** undefined: the service's model. */
  model: unknown;
  /** undefined: inherits `model`. */
  executionModel: unknown;
  systemPrompt: string | undefined;
}

export interface ResolvedExecuteOptions {
  instruction: string;
  maxSteps: number;
  highlightCursor: boolean;
  useSearch: boolean;
  toolTimeout: number;
  variables: Variables;
  signal: AbortSignal | undefined;
  maxTokens: number | undefined;
  timeoutMs: number | undefined;
  output: z.ZodType | undefined;
  cache: boolean;
  onStepEnd: StepEndHook | undefined;
  /** false: off. */
  loopDetection: LoopDetectionOptions | false;
  askHuman: AskHumanHandler | undefined;
  askHumanTimeoutMs: number;
}

function withProvider(model: unknown, provider: string | undefined): unknown {
  if (!provider) return model;
  if (typeof model === "string" && !model.includes("/")) return `${provider}/${model}`;
  if (model && typeof model === "object" && typeof (model as { modelName?: unknown }).modelName === "string" && !(model as { modelName: string }).modelName.includes("/")) {
    return { ...(model as object), modelName: `${provider}/${(model as { modelName: string }).modelName}` };
  }
  return model;
}

export function resolveAgentConfig(input: unknown): ResolvedAgentConfig {
  const parsed = AgentConfigSchema.safeParse(input ?? {});
  if (!parsed.success) throw new ServiceInvalidArgumentError(describeIssue(parsed.error, "agent"));
  const c = parsed.data;
  // `mode` wins over the deprecated `cua` flag (docs/wire-formats.md "Agent request").
  const mode: AgentMode = c.mode ?? (c.cua ? "cua" : "dom");
  const model = withProvider(c.model, c.provider);
  const executionModel = withProvider(c.executionModel, c.provider);
  // Shape errors surface now, not at the first step; keys are still looked up at the first call.
  if (model !== undefined) parseModelConfig(model, "agent.model");
  if (executionModel !== undefined) parseModelConfig(executionModel, "agent.executionModel");
  return { mode, model, executionModel: executionModel ?? model, systemPrompt: c.systemPrompt };
}

export function resolveExecuteOptions(input: unknown): ResolvedExecuteOptions {
  const raw = typeof input === "string" ? { instruction: input } : input;
  if (!raw || typeof raw !== "object") throw new ServiceInvalidArgumentError("agent.execute: expected an instruction string or options");
  const parsed = AgentExecuteOptionsSchema.safeParse(raw);
  if (!parsed.success) throw new ServiceInvalidArgumentError(describeIssue(parsed.error, "execute"));
  const o = parsed.data;
  return {
    instruction: o.instruction,
    maxSteps: o.maxSteps ?? DEFAULT_MAX_STEPS,
    highlightCursor: o.highlightCursor ?? false,
    useSearch: o.useSearch ?? false,
    toolTimeout: o.toolTimeout ?? DEFAULT_TOOL_TIMEOUT_MS,
    variables: parseVariables(o.variables, "execute.variables"),
    signal: o.signal,
    maxTokens: o.maxTokens,
    timeoutMs: o.timeoutMs,
    output: o.output,
    cache: o.cache ?? true,
    askHuman: o.askHuman,
    askHumanTimeoutMs: o.askHumanTimeoutMs ?? DEFAULT_ASK_HUMAN_TIMEOUT_MS,
    onStepEnd: o.onStepEnd,
    loopDetection: o.loopDetection === false ? false : { ...DEFAULT_LOOP_DETECTION, ...o.loopDetection },
  };
}
