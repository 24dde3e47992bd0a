/**
 * Fake-model modes that behave like small local servers (issue 14: context windows and loops). Each is a
 * reply function: queue it for as many requests as the test makes (`scriptTimes`), or call it from a
 * FakeReplyFn.
 *
 * - `truncatingModel(limit)`: a server with a small context window that silently drops the START of a
 *   prompt beyond `limit` tokens, as Ollama did with its long-time 2,048-token default. The reply is the
 *   automatic answer to what the model actually "saw" (the tail), and the usage reports at most `limit`
 *   input tokens. Tokens are counted pessimistically (3.5 characters each, like a 32k-vocabulary
 *   tokenizer), so a prompt that svc budgeted with its o200k estimate and safety margin must still fit.
 * - `loopingModel(pick)`: an agent model that answers the same step every time (a model stuck on a
 *   button that does nothing).
 */
import type { FakeReplyFn, FakeRequest } from "../fake-model.js";
import { autoAnswer } from "./auto.js";
import { parseSnapshot } from "./snapshot.js";

/** Characters per token of the fake's local "tokenizer" (fewer than o200k's ~4: the pessimistic case). */
export const LOCAL_CHARS_PER_TOKEN = 3.5;

export function localTokens(text: string): number {
  return Math.ceil(text.length / LOCAL_CHARS_PER_TOKEN);
}

/** The whole prompt as a chat template lays it out: system, then each message. */
function fullPrompt(req: FakeRequest): string {
  return [req.systemText, ...req.messages.map((m) => m.text)].join("\n");
}

export interface Truncation {
  /** Tokens of the prompt as sent. */
  sent: number;
  /** Tokens the model saw (≤ limit). */
  seen: number;
  /** The text the model saw: the prompt's tail. */
  text: string;
}

/** What a server with a `limit`-token window keeps of a request's prompt. */
export function truncate(req: FakeRequest, limit: number): Truncation {
  const text = fullPrompt(req);
  const sent = localTokens(text);
  if (sent <= limit) return { sent, seen: sent, text };
  const kept = text.slice(text.length - Math.floor(limit * LOCAL_CHARS_PER_TOKEN));
  return { sent, seen: limit, text: kept };
}

/**
 * A server whose context window is `limit` tokens (default 2,048): beyond it the start of the prompt is
 * dropped without a word, and the model answers from what is left.
 */
export function truncatingModel(limit = 2048): FakeReplyFn {
  return (req) => {
    const t = truncate(req, limit);
    // The tail still holds the last user message's layout when the cut fell inside the system prompt;
    // when it fell inside the user message, the Instruction line (and the page's start) are gone.
    const value = autoAnswer({ operation: req.operation, schema: req.schema, promptText: t.text });
    return { kind: "object", value, usage: { input: t.seen } };
  };
}

/**
 * An agent model that always answers `perform click` on the element named `name` (any role) of the
 * page it is shown — or, when absent, the same step it answered last.
 */
export function loopingModel(name: string): FakeReplyFn {
  let last: unknown;
  return (req) => {
    const line = parseSnapshot(req.snapshot).find((l) => l.ref && l.name === name);
    if (line?.ref) last = { reasoning: `click ${name}`, tool: "perform", args: { ref: line.ref, method: "click", arguments: [] } };
    return { kind: "object", value: last ?? { reasoning: "nothing to do", tool: "done", args: { message: `no ${name} on the page`, success: false } } };
  };
}
