/**
 * The replay of a session-API session (`GET /v1/sessions/{id}/replay`): every operation in order, grouped
 * by the page URL it ran on, each with its own token usage (the Service's metrics before and after the
 * call). Official clients rebuild their `metrics` from these sums. Parameters name variables, never their
 * values; results are masked (`%name%`) the way the library masks its history.
 */
import type { Metrics } from "../index.js";

export type ReplayMethod = "act" | "extract" | "observe" | "navigate" | "agent";

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  cachedInputTokens: number;
  timeMs: number;
}

export interface ReplayAction {
  method: ReplayMethod;
  parameters: unknown;
  /** Any value when recorded; an object on the wire (replayResult). */
  result: unknown;
  /** Epoch ms. */
  timestamp: number;
  endTime: number;
  tokenUsage: TokenUsage;
}

export interface ReplayPage {
  url: string;
  timestamp: number;
  duration: number;
  actions: ReplayAction[];
}

/** Oldest pages are dropped past this many actions: a long-lived session must not grow without bound. */
const MAX_ACTIONS = 2000;

export function usageBetween(before: Metrics, after: Metrics): TokenUsage {
  return {
    inputTokens: after.totalPromptTokens - before.totalPromptTokens,
    outputTokens: after.totalCompletionTokens - before.totalCompletionTokens,
    reasoningTokens: after.totalReasoningTokens - before.totalReasoningTokens,
    cachedInputTokens: after.totalCachedInputTokens - before.totalCachedInputTokens,
    timeMs: after.totalInferenceTimeMs - before.totalInferenceTimeMs,
  };
}

export class ReplayLog {
  private readonly pages: ReplayPage[] = [];
  private count = 0;

  /** `url`: the page the operation ran on (before it ran). */
  add(url: string, recorded: ReplayAction): void {
    const action = { ...recorded, result: replayResult(recorded.result) };
    let page = this.pages.at(-1);
    if (!page || page.url !== url) {
      page = { url, timestamp: action.timestamp, duration: 0, actions: [] };
      this.pages.push(page);
    }
    page.actions.push(action);
    page.duration = Math.max(page.duration, action.endTime - page.timestamp);
    this.count++;
    while (this.count > MAX_ACTIONS && this.pages.length > 1) this.count -= this.pages.shift()!.actions.length;
  }

  toWire(): { pages: ReplayPage[] } {
    return { pages: this.pages.map((p) => ({ ...p, actions: [...p.actions] })) };
  }
}

/**
 * An action's `result` as the official clients' schema has it: always an object (`z.record`). observe's
 * list becomes `{actions: […]}`, nothing (a navigate without a response) `{}`, any other non-object
 * `{value}`; objects stay as they are.
 */
export function replayResult(result: unknown): Record<string, unknown> {
  if (result === null || result === undefined) return {};
  if (Array.isArray(result)) return { actions: result };
  if (typeof result === "object") return result as Record<string, unknown>;
  return { value: result };
}

type VariableValue = string | number | boolean | { value: string | number | boolean; description?: string };

/** value → `%name%` in every string of a JSON-like value; longer values first so one inside another stays masked. */
export function maskValues<T>(value: T, variables: Record<string, VariableValue> | undefined): T {
  const entries = Object.entries(variables ?? {})
    .map(([name, v]) => [name, String(typeof v === "object" ? v.value : v)] as const)
    .filter(([, v]) => v.length > 0)
    .sort((a, b) => b[1].length - a[1].length);
  if (!entries.length) return value;
  const maskText = (text: string) => entries.reduce((t, [name, v]) => t.split(v).join(`%${name}%`), text);
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === "string") return maskText(v);
    if (depth > 20 || v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, depth + 1)]));
  };
  return walk(value, 0) as T;
}
