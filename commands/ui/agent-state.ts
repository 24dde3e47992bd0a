/**
 * What the `svc agent` terminal view shows, folded from the RunEvent stream by a pure reducer (no ink or
 * react here, so it is easy to test and the view stays a function of this state). Events are already
 * masked by the library: nothing here ever sees a variable's value.
 */
import type { AgentMode, AgentResultData, RunEvent } from "../../src/index.js";

export interface StepView {
  step: number;
  tool: string;
  /** The target / arguments in one short line (`click e5`, a URL, an instruction). */
  target: string;
  reasoning: string;
  cached: boolean;
  status: "running" | "ok" | "error";
  /** The tool's one-line result. */
  result?: string;
  timeMs?: number;
}

export interface AgentViewState {
  instruction: string;
  mode: AgentMode | undefined;
  model: string | undefined;
  maxSteps: number | undefined;
  /** Finished steps, oldest first (they never change again). */
  steps: StepView[];
  /** The step in progress: the model is thinking (no call yet) or its tool is running. */
  current: { step: number; call: StepView | undefined } | undefined;
  url: string | undefined;
  tokens: { input: number; output: number };
  /** `elapsedMs` of the latest event (the view adds the time since, while a run is going). */
  elapsedMs: number;
  /** Time from the view's start to the run's (browser launch, model set-up): part of the elapsed time shown. */
  startupMs: number;
  /** Warnings and errors logged by the run (the last few). */
  logs: string[];
  result: AgentResultData | undefined;
}

export function initialState(instruction = ""): AgentViewState {
  return { instruction, mode: undefined, model: undefined, maxSteps: undefined, steps: [], current: undefined, url: undefined, tokens: { input: 0, output: 0 }, elapsedMs: 0, startupMs: 0, logs: [], result: undefined };
}

/** The elapsed time a view shows: start-up, then the run's own time. */
export function shownElapsedMs(state: AgentViewState): number {
  return state.startupMs + state.elapsedMs;
}

export function truncate(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, Math.max(0, max - 1))}…` : flat;
}

const short = (v: unknown, max = 40): string => truncate(typeof v === "string" ? v : (JSON.stringify(v) ?? String(v)), max);

/** A tool call's arguments as one short line: what it acts on, not its whole JSON. */
export function summarizeArgs(args: unknown): string {
  if (!args || typeof args !== "object" || Array.isArray(args)) return args === undefined ? "" : short(args, 70);
  const a = args as Record<string, unknown>;
  if (typeof a.method === "string" && typeof a.ref === "string") {
    const rest = Array.isArray(a.arguments) && a.arguments.length ? ` ${a.arguments.map((x) => short(JSON.stringify(x), 30)).join(", ")}` : "";
    return `${a.method} ${a.ref}${rest}`;
  }
  if (typeof a.url === "string") return truncate(a.url, 70);
  if (typeof a.instruction === "string") return `"${truncate(a.instruction, 60)}"`;
  if (Array.isArray(a.fields)) return `${a.fields.length} field${a.fields.length === 1 ? "" : "s"}`;
  if (typeof a.message === "string") return `"${truncate(a.message, 60)}"`;
  if (typeof a.x === "number" && typeof a.y === "number") return `(${a.x}, ${a.y})${typeof a.text === "string" ? ` "${truncate(a.text, 30)}"` : ""}`;
  const parts = Object.entries(a).map(([k, v]) => `${k}=${short(v, 30)}`);
  return truncate(parts.join(" "), 70);
}

/** `sinceViewStartMs`: when the event arrived, counted from the view's start (the run's start-up is the difference). */
export function reduce(state: AgentViewState, event: RunEvent, sinceViewStartMs?: number): AgentViewState {
  const s: AgentViewState = { ...state, elapsedMs: Math.max(state.elapsedMs, event.elapsedMs) };
  switch (event.type) {
    case "run_start":
      return { ...s, ...(sinceViewStartMs !== undefined ? { startupMs: Math.max(0, sinceViewStartMs - event.elapsedMs) } : {}), instruction: event.instruction, mode: event.mode, model: event.model, maxSteps: event.maxSteps, url: event.url || s.url };
    case "step_start":
      return { ...s, current: { step: event.step, call: undefined } };
    case "tool_call": {
      const call: StepView = { step: event.step, tool: event.tool, target: summarizeArgs(event.args), reasoning: event.reasoning, cached: Boolean(event.cached), status: "running" };
      return { ...s, current: { step: event.step, call } };
    }
    case "tool_result": {
      const base = s.current?.call && s.current.step === event.step ? s.current.call : { step: event.step, tool: event.tool, target: "", reasoning: "", cached: false };
      const done: StepView = { ...base, status: event.ok ? "ok" : "error", result: event.summary, timeMs: event.timeMs };
      return { ...s, steps: [...s.steps, done], current: undefined };
    }
    case "page":
      return { ...s, url: event.url };
    case "usage":
      return { ...s, tokens: { input: event.totals.input_tokens, output: event.totals.output_tokens } };
    case "log":
      return event.level === "warn" || event.level === "error" ? { ...s, logs: [...s.logs, `${event.level}: ${event.message}`].slice(-3) } : s;
    case "loop":
      return { ...s, logs: [...s.logs, `warn: ${event.message}`].slice(-3) };
    case "ask_human":
      return { ...s, logs: [...s.logs, `the agent asks you: ${event.message} (press Enter to continue)`].slice(-3) };
    case "human_reply":
      return { ...s, logs: [...s.logs, event.answered ? "you answered; the agent goes on" : "nobody answered in time; the agent goes on"].slice(-3) };
    case "run_end": {
      const u = event.result.usage;
      return { ...s, current: undefined, result: event.result, ...(u ? { tokens: { input: u.input_tokens, output: u.output_tokens } } : {}) };
    }
    default:
      return s;
  }
}

export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const m = Math.floor(ms / 60_000);
  return `${m}m${String(Math.floor((ms % 60_000) / 1000)).padStart(2, "0")}s`;
}

export function formatTokens(t: { input: number; output: number }): string {
  return `${t.input.toLocaleString("en-US")} in / ${t.output.toLocaleString("en-US")} out tokens`;
}
