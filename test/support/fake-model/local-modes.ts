/**
 * Fake-model modes that behave like small local servers, as reply functions (queue with `scriptTimes`).
 * `truncatingModel(limit)` silently drops a prompt's START beyond `limit` tokens, as Ollama's old 2,048 default did,
 * counting pessimistically (3.5 characters a token) so a prompt svc budgeted must still fit. `loopingModel(pick)`
 * answers the same step every time.
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
