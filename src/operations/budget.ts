/**
 * The snapshot's share of a model's context window (model/context-window.ts): the window less a margin for tokenizers
 * that count up to ~25% more than svc's o200k estimate, less the rest of the prompt and room for the answer. The
 * renderer fits the outline by shortening and dropping text lines, never a ref line, so the server never cuts the
 * prompt.
 */
import { z } from "zod";
import { estimateTokens } from "../snapshot/index.js";
import type { OperationContext } from "./context.js";

/** Tokens kept free for the model's answer: an eighth of the window, at most this many. */
const ANSWER_RESERVE_TOKENS = 1024;
/** The window is divided by this before anything is counted against it. */
const TOKENIZER_MARGIN = 1.25;
/** A snapshot is never budgeted below this (an outline of a few refs): a tiny window then fails loudly, at the server. */
export const MIN_SNAPSHOT_TOKENS = 256;

/** What is left for the snapshot of a `contextWindow`-token model, the rest of the prompt costing `promptTokens`. */
export function snapshotBudget(contextWindow: number | undefined, promptTokens: number): number | undefined {
  if (contextWindow === undefined) return undefined;
  const answer = Math.min(ANSWER_RESERVE_TOKENS, Math.floor(contextWindow / 8));
  return Math.max(MIN_SNAPSHOT_TOKENS, Math.floor(contextWindow / TOKENIZER_MARGIN) - promptTokens - answer);
}

/** Tokens of the non-snapshot parts of a prompt: texts as they are, objects (JSON schemas) as JSON. */
export function promptTokens(parts: ReadonlyArray<string | object | undefined>): number {
  return parts.reduce<number>((n, p) => n + (p === undefined ? 0 : estimateTokens(typeof p === "string" ? p : JSON.stringify(p))), 0);
}

/** A zod schema as the JSON Schema a model is shown ("" when it cannot be expressed: the operation says so itself). */
export function schemaText(schema: z.ZodType | undefined): string {
  if (!schema) return "";
  try {
    return JSON.stringify(z.toJSONSchema(schema, { unrepresentable: "any" }));
  } catch {
    return "";
  }
}

/** The take() option of one operation call: the context's fixed budget when set, else what the model's window leaves. */
export function snapshotLimit(ctx: OperationContext, ...prompt: Array<string | object | undefined>): { maxTokens?: number } {
  // The page's URL goes with the outline (`Page: …`), and may be long.
  const budget = ctx.maxSnapshotTokens ?? snapshotBudget(ctx.inference.client.contextWindow, promptTokens([...prompt, ctx.page.url()]));
  return budget !== undefined ? { maxTokens: budget } : {};
}
