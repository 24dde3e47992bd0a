/**
 * A session's replay (`GET /v1/sessions/{id}/replay`): every operation in order, grouped by page URL, each with its
 * token usage, which official clients sum into their `metrics`. Parameters name variables, never values; URLs,
 * parameters and results are masked by the session's secrets, as its history is.
 */
import type { Metrics } from "../../index.js";

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
