/**
 * The CLI door's dialog answer (the `dialog` capability, src/capabilities/dialog.ts): dialogs are answered as they
 * open, by the running command or between commands by the host, so the answer is stored for the session
 * (store/dialog-answer.ts) and taken by whichever meets the next one. A dialog open while this command attaches is
 * answered at once.
 */
import type { DialogAnswered, DialogChoice } from "../../src/capabilities/index.js";
import type { HandledDialog } from "../../src/internal.js";
import { isCloud, ServiceInvalidArgumentError, sessionDialogAnswer, type StoredSession } from "../../src/base.js";
import type { GlobalOptions } from "../core/output.js";
import { stateRoot, withSession } from "../core/runtime.js";

/** How long an open dialog takes to be reported to a client that just attached. */
const OPEN_DIALOG_MS = 300;

/** Stores `answer` for the session, then attaches: a dialog open now is answered with it. */
export async function answerSessionDialog(g: GlobalOptions, session: StoredSession | undefined, answer: DialogChoice): Promise<DialogAnswered> {
  if (!session) throw new ServiceInvalidArgumentError("dialog: needs a session", { hint: "svc sessions start" });
  if (isCloud(session)) throw new ServiceInvalidArgumentError(`session ${session.id} runs on the cloud platform: svc dialog answers a local session's dialogs`);
  const store = sessionDialogAnswer(session.id, stateRoot());
  store.save(answer);
  return withSession(
    g,
    async ({ svc }) => {
      let answered: HandledDialog | undefined;
      const off = svc.context.dialogs.onDialog((d) => {
        if (d.by === "choice") answered ??= d;
      });
      await new Promise((r) => setTimeout(r, OPEN_DIALOG_MS));
      off();
      return { scope: `session ${session.id}`, ...(answered ? { answered } : {}), pending: !answered && store.peek() !== undefined };
    },
    {},
    session,
  );
}
