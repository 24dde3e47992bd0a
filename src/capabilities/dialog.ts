/**
 * Answering a JavaScript dialog: the one open now, else the next one. Dialogs are answered as they open, by
 * whichever client meets them, so each door keeps the answer its own way (`ctx.answerDialog`: the CLI session's
 * stored answer, MCP's browser); the words, the check and the report are here.
 */
import { z } from "zod";
import { ServiceInvalidArgumentError } from "../errors.js";
import type { HandledDialog } from "../internal.js";
import { acts, type Capability, capability, type DialogAnswered, type DialogChoice, type Report } from "./declare.js";

/** `accept [text]` or `dismiss`: the CLI's words as the input's properties. */
function answerWords(args: readonly string[]): Record<string, unknown> {
  const [action, text] = args;
  if (action !== "accept" && action !== "dismiss") throw new ServiceInvalidArgumentError(`dialog: ${JSON.stringify(String(action).slice(0, 40))} is not accept or dismiss`, { hint: "svc dialog accept [text] | svc dialog dismiss" });
  return { accept: action === "accept", ...(text !== undefined ? { promptText: text } : {}) };
}

function answeredLine(d: HandledDialog): string {
  const how = d.accepted ? (d.promptText !== undefined ? `accepted with ${JSON.stringify(d.promptText)}` : "accepted") : "dismissed";
  return `answered the open ${d.type} "${d.message}": ${how}`;
}

function report(answer: DialogChoice, done: DialogAnswered): Report {
  const d = done.answered;
  if (d) {
    const answered = { type: d.type, message: d.message, url: d.url, accepted: d.accepted, ...(d.promptText !== undefined ? { promptText: d.promptText } : {}) };
    return { kind: "report", text: answeredLine(d), data: { answered, pending: false } };
  }
  const how = `${answer.accept ? "accept" : "dismiss"}${answer.promptText !== undefined ? ` with ${JSON.stringify(answer.promptText)}` : ""}`;
  const text = done.pending ? `no dialog is open; ${done.scope} will ${how} its next dialog` : "no dialog is open; the answer was already used";
  return { kind: "report", text, data: { answered: null, pending: done.pending, next: answer } };
}

export const dialog = capability({
  name: "dialog",
  description: "Answer the page's next dialog (alert, confirm, prompt)",
  input: {
    accept: z.boolean().describe("accept (OK) or dismiss (Cancel)"),
    promptText: z.string().max(10_000, "is longer than 10000 characters").optional().describe("with accept: the text a prompt() returns"),
  },
  mcp: { cap: "forms", annotations: acts("Answer a dialog") },
  cli: {
    verb: "dialog",
    args: "<action> [promptText]",
    usage: "accept [promptText] | dismiss",
    positional: answerWords,
    fills: ["accept", "promptText"],
    description: "answer the session's JavaScript dialog: the one open now, else the next one (a prompt() accepted returns TEXT)",
    examples: ['svc dialog accept "Ada"', "svc dialog dismiss"],
    hosted: false,
  },
  // The answer is the session's (or the browser's): the door stores it before it attaches to any page.
  needs: "session",
  check: (i, spell) => (i.promptText !== undefined && !i.accept ? `${spell("promptText")} is only for accept (what an accepted prompt() returns)` : undefined),
  run: async (ctx, i) => {
    const answer: DialogChoice = { accept: i.accept, ...(i.promptText !== undefined ? { promptText: i.promptText } : {}) };
    return report(answer, await ctx.answerDialog(answer));
  },
});

export const DIALOG_CAPABILITIES: readonly Capability[] = [dialog] as readonly Capability[];
