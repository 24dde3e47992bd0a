/**
 * `svc dialog accept|dismiss [text]`: the answer for the session's next JavaScript dialog. Dialogs are answered as
 * they open, by the running command or between commands by the host, so the answer is stored for the session
 * (store/dialog-answer.ts) and taken by whichever meets the next one. A dialog open while this command attaches is
 * answered at once.
 */
import { ServiceInvalidArgumentError } from "../../src/base.js";
import type { HandledDialog } from "../../src/internal.js";
import { isCloud, sessionDialogAnswer } from "../../src/base.js";
import type { GlobalOptions } from "../core/output.js";
import { resolveSession, stateRoot, withSession } from "../core/runtime.js";

/** How long an open dialog takes to be reported to a client that just attached. */
const OPEN_DIALOG_MS = 300;

export async function dialog(g: GlobalOptions, action: string, text: string | undefined): Promise<void> {
  if (action !== "accept" && action !== "dismiss") throw new ServiceInvalidArgumentError(`dialog: "${action}" is not accept or dismiss`, { hint: "svc dialog accept [text] | svc dialog dismiss" });
  if (text !== undefined && action === "dismiss") throw new ServiceInvalidArgumentError("dialog: a text is only for accept (what a prompt() returns)");
  if (text !== undefined && text.length > 10_000) throw new ServiceInvalidArgumentError("dialog: text is longer than 10000 characters");
  const root = stateRoot();
  const session = await resolveSession(root, g.session);
  if (isCloud(session)) throw new ServiceInvalidArgumentError(`session ${session.id} runs on the cloud platform: svc dialog answers a local session's dialogs`);
  const answer = { accept: action === "accept", ...(text !== undefined ? { promptText: text } : {}) };
  const store = sessionDialogAnswer(session.id, root);
  store.save(answer);
  await withSession(
    g,
    async ({ svc, out }) => {
      let answered: HandledDialog | undefined;
      const off = svc.context.dialogs.onDialog((d) => {
        if (d.by === "choice") answered ??= d;
      });
      await new Promise((r) => setTimeout(r, OPEN_DIALOG_MS));
      off();
      const pending = store.peek() !== undefined;
      const how = `${answer.accept ? "accept" : "dismiss"}${text !== undefined ? ` with ${JSON.stringify(text)}` : ""}`;
      if (answered) {
        const d = answered;
        out.result({ session: session.id, answered: { type: d.type, message: d.message, url: d.url, accepted: d.accepted, ...(d.promptText !== undefined ? { promptText: d.promptText } : {}) }, pending: false }, () =>
          `answered the open ${d.type} "${d.message}": ${d.accepted ? (d.promptText !== undefined ? `accepted with ${JSON.stringify(d.promptText)}` : "accepted") : "dismissed"}`,
        );
        return;
      }
      out.result({ session: session.id, answered: null, pending, next: answer }, () =>
        pending ? `no dialog is open; session ${session.id} will ${how} its next dialog` : `no dialog is open; the answer was already used`,
      );
    },
    {},
    session,
  );
}
