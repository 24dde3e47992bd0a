/** observe(instruction?): one model call over the snapshot → candidate Actions, best first. */
import { z } from "zod";
import { MODEL_ACTION_METHODS, type Action } from "./action.js";
import { checkRef, toAction, type OperationContext } from "./context.js";
import { infer } from "./inference.js";
import { OBSERVE_OUTPUT, observeSystemPrompt, userMessage } from "./prompts.js";
import { promptVariables } from "./variables.js";
import { snapshotLimit } from "./budget.js";

const Choice = z.object({
  ref: z.string(),
  method: z.enum(MODEL_ACTION_METHODS),
  arguments: z.array(z.string()),
  description: z.string(),
});
const Reply = z.object({ elements: z.array(Choice) });

export async function observe(ctx: OperationContext, instruction: string | undefined, options: { selector?: string } = {}): Promise<Action[]> {
  const snap = await ctx.snapshots.take(ctx.page, {
    ...(options.selector ? { selector: options.selector } : {}),
    ...snapshotLimit(ctx, observeSystemPrompt(ctx.systemPrompt), instruction, OBSERVE_OUTPUT.schema),
  });
  const reply = await infer(ctx.inference, {
    system: observeSystemPrompt(ctx.systemPrompt),
    // The client masks the session's secrets (model/masking.ts): the page may show a value.
    user: userMessage({ instruction, variables: promptVariables(ctx.variables), url: ctx.page.url(), snapshot: snap.text }),
    output: OBSERVE_OUTPUT,
    validate: (v) => {
      const r = Reply.parse(v);
      for (const e of r.elements) checkRef(snap.refs, e.ref, false);
      return r;
    },
  });
  const actions: Action[] = [];
  for (const choice of reply.elements) actions.push(await toAction(ctx.page, snap.refs, choice));
  return actions;
}
