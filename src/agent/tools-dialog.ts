/**
 * The agent's say over JavaScript dialogs. svc answers every dialog the moment it opens (the Service's
 * dialogPolicy: dismiss by default), and the step after one tells the model what the page showed; with
 * this tool the model chooses how the NEXT alert/confirm/prompt is answered (accept, with a prompt's text,
 * or dismiss). beforeunload is always accepted, so leaving a page never hangs.
 */
import { z } from "zod";
import type { DialogAnswer, HandledDialog } from "../browser/dialogs.js";
import { defineTool } from "./tools.js";

/** What the agent needs of the browser's dialog handler (src/browser/dialogs.ts). */
export interface DialogControl {
  answerNext(answer: DialogAnswer | undefined): void;
  onDialog(listener: (d: HandledDialog) => void): () => void;
}

export const dialogTool = defineTool({
  name: "dialog",
  description:
    "choose how the page's NEXT JavaScript dialog (alert, confirm, prompt) is answered: accept (OK; promptText is what a prompt returns) or dismiss (Cancel). " +
    "Dialogs are answered the moment they open (dismissed unless chosen otherwise) and the next step says what they showed; call this before the step that makes the page ask",
  input: z.object({
    action: z.enum(["accept", "dismiss"]),
    promptText: z.string().max(1000).optional().describe("for a prompt() being accepted"),
  }),
  describe: (a) => `dialog ${a.action}${a.promptText !== undefined ? ` ${JSON.stringify(a.promptText)}` : ""}`,
  async run(env, a) {
    if (!env.dialogs) return { ok: false, summary: "this browser has no dialog handler" };
    env.dialogs.answerNext({ accept: a.action === "accept", ...(a.promptText !== undefined ? { promptText: a.promptText } : {}) });
    return { ok: true, summary: `the next dialog will be ${a.action === "accept" ? "accepted" : "dismissed"}`, replay: [{ tool: "dialog", args: a }] };
  },
});
