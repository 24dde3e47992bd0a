/**
 * agentExecute's `cacheEntry`: Stagehand's version-1 agent cache entry, under the key that client computes for the
 * same run, so it replays the steps itself over CDP. A model equal to the session's counts as none, as the client
 * sends its default. A run with a step Stagehand cannot replay faithfully (percent scroll, dialog, coordinate click)
 * or a masked value gets no entry.
 */
import { createHash } from "node:crypto";
import type { AgentResult } from "../../index.js";

/** One stored step of svc's agent cache entry (AgentCache#get): a tool and its arguments. */
interface ReplayStep {
  tool: string;
  args: Record<string, unknown>;
}

export interface StagehandAgentEntry {
  cacheKey: string;
  entry: {
    version: 1;
    instruction: string;
    startUrl: string;
    options: { maxSteps?: number; highlightCursor?: boolean };
    configSignature: string;
    steps: Array<Record<string, unknown>>;
    result: unknown;
    timestamp: string;
  };
}

export interface EntryInput {
  instruction: string;
  startUrl: string;
  executeOptions: { maxSteps?: number | undefined; highlightCursor?: boolean | undefined; variables?: Record<string, unknown> | undefined };
  agentConfig: { model?: unknown; executionModel?: unknown; systemPrompt?: string | undefined; mode?: string | undefined; cua?: boolean | undefined };
  /** The session's model (sessions/start `modelName`) and system prompt. */
  sessionModel: string;
  sessionSystemPrompt: string | undefined;
  /** svc's stored steps (XPaths, %name% for variables), without `done`. */
  steps: readonly ReplayStep[];
  result: AgentResult;
  viewportHeight: number;
}

const SENSITIVE = new Set(["apikey", "api_key", "api-key"]);

/** Stagehand's serializeAgentModelForCache: a name, or `{modelName, options}` without keys. */
function modelForSignature(model: unknown, sessionModel: string): unknown {
  if (model === undefined || model === null) return null;
  if (typeof model === "string") return model === sessionModel ? null : model;
  const { modelName, ...rest } = model as { modelName?: string } & Record<string, unknown>;
  // The client's default model config (what it sends for an agent given none).
  if (modelName === sessionModel) return null;
  const options = Object.fromEntries(Object.entries(rest).filter(([k, v]) => !SENSITIVE.has(k.toLowerCase()) && v !== undefined));
  return Object.keys(options).length > 0 ? { modelName, options } : (modelName ?? null);
}

function configSignature(input: EntryInput): string {
  const c = input.agentConfig;
  const cua = c.mode !== undefined ? c.mode === "cua" : c.cua === true;
  return JSON.stringify({
    v3Model: input.sessionModel,
    systemPrompt: input.sessionSystemPrompt ?? "",
    agent: {
      cua,
      model: modelForSignature(c.model, input.sessionModel),
      executionModel: cua ? null : modelForSignature(c.executionModel, "\0"),
      systemPrompt: c.systemPrompt ?? null,
    },
  });
}

const NAME = /%([A-Za-z0-9_]+)%/g;

/**
 * svc's `fill` chooses the option of a native <select>; Stagehand's needs selectOptionFromDropdown for it.
 * svc's XPaths name each step's tag, so the last one says whether the target is a <select>.
 */
function fillMethod(method: string, xpath: string): string {
  return method === "fill" && /\/select(\[\d+\])?$/i.test(xpath) ? "selectOptionFromDropdown" : method;
}

/** One svc step as Stagehand's replay step, or undefined when it has none that does the same. */
function stagehandStep(step: ReplayStep, viewportHeight: number): Record<string, unknown> | undefined {
  const a = step.args;
  switch (step.tool) {
    case "perform": {
      const method = fillMethod(String(a.method), String(a.ref));
      const description = `${method} ${String(a.ref)}`;
      return { type: "act", instruction: description, actions: [{ selector: a.ref, description, method, arguments: a.arguments ?? [] }] };
    }
    case "fillForm": {
      const fields = (a.fields as Array<{ ref: string; value: string }>) ?? [];
      const actions = fields.map((f) => {
        const method = fillMethod("fill", f.ref);
        return { selector: f.ref, description: `${method} ${f.ref}`, method, arguments: [f.value] };
      });
      return { type: "fillForm", fields: actions.map((x) => ({ action: x.description })), actions };
    }
    case "goto":
      return { type: "goto", url: a.url, waitUntil: "load" };
    case "keys":
      return { type: "keys", instruction: `press ${String(a.key)}`, playwrightArguments: { method: "press", keys: a.key, times: 1 } };
    case "wait":
      return { type: "wait", timeMs: a.ms };
    case "back":
      return { type: "navback", waitUntil: "domcontentloaded" };
    case "scroll":
      if (a.percent !== undefined) return undefined;
      return { type: "scroll", deltaX: 0, deltaY: (a.direction === "up" ? -1 : 1) * viewportHeight };
    default:
      return undefined;
  }
}

/** Drops what a stored result needs not keep (screenshots), as the client does before writing. */
function pruned(result: AgentResult): unknown {
  return { ...result, actions: result.actions.map((a) => Object.fromEntries(Object.entries(a).filter(([k]) => k !== "image"))) };
}

/** The client's entry for this run, or undefined when the run has a step it could not replay faithfully. */
export function stagehandAgentEntry(input: EntryInput): StagehandAgentEntry | undefined {
  const variableKeys = Object.keys(input.executeOptions.variables ?? {}).sort();
  const steps: Array<Record<string, unknown>> = [];
  for (const s of input.steps) {
    const mapped = stagehandStep(s, input.viewportHeight);
    if (!mapped) return undefined;
    // A %name% the client's variables do not give would be typed as written.
    for (const m of JSON.stringify(s.args).matchAll(NAME)) if (!variableKeys.includes(m[1]!)) return undefined;
    steps.push(mapped);
  }
  steps.push({ type: "done" });
  const options: { maxSteps?: number; highlightCursor?: boolean } = {};
  if (typeof input.executeOptions.maxSteps === "number") options.maxSteps = input.executeOptions.maxSteps;
  if (typeof input.executeOptions.highlightCursor === "boolean") options.highlightCursor = input.executeOptions.highlightCursor;
  const instruction = input.instruction.trim();
  const signature = configSignature(input);
  const cacheKey = createHash("sha256")
    .update(JSON.stringify({ instruction, startUrl: input.startUrl, options, configSignature: signature, variableKeys }))
    .digest("hex");
  return {
    cacheKey,
    entry: { version: 1, instruction, startUrl: input.startUrl, options, configSignature: signature, steps, result: pruned(input.result), timestamp: new Date().toISOString() },
  };
}
