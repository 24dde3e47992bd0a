/**
 * act(instruction): one model call picks ref + method + arguments; the deterministic path runs it. A
 * custom dropdown takes a second call after it opens (twoStep). With selfHeal, an element that fails under
 * the chosen action (gone, hidden, covered, disabled) gets one fresh snapshot and one more model call.
 */
import { z } from "zod";
import { ServiceError } from "../errors.js";
import { MODEL_ACTION_METHODS, type ActResult, type Action } from "./action.js";
import { checkRef, toAction, type OperationContext } from "./context.js";
import { infer } from "./inference.js";
import { performAction } from "./perform.js";
import { ACT_OUTPUT, actSystemPrompt, userMessage } from "./prompts.js";
import { promptVariables, resolveArgument } from "./variables.js";
import { snapshotLimit } from "./budget.js";

const Reply = z.object({
  ref: z.string(),
  method: z.enum(MODEL_ACTION_METHODS),
  arguments: z.array(z.string()),
  description: z.string(),
  twoStep: z.boolean(),
});

/**
 * Errors that mean "this element, now" failed: worth a fresh look at the page. CLICK_FAILED includes an
 * element that never became actionable: covered (`<div id="veil"> intercepts pointer events`), hidden,
 * disabled, moving; the model is told which, and may first deal with what covers it.
 */
export const HEALABLE: ReadonlySet<string> = new Set(["ELEMENT_NOT_FOUND", "CLICK_FAILED", "STALE_REF", "XPATH_UNRESOLVED", "IFRAME_UNRESOLVED", "CONTENT_FRAME_NOT_FOUND", "SHADOW_ROOT_MISSING", "EVAL_FAILED"]);

/**
 * With a way out (a heal left, or a model to ask after a cached replay) an action waits at most this long
 * for its element, or half the time the operation has left: long enough for a popup to fade or a panel to
 * open, short enough that the fallback still has time.
 */
const FALLBACK_WAIT_MS = 2_000;

/** The deadline of one action's wait for its element when a fallback follows it. */
export function fallbackDeadline(deadline: number | undefined): number {
  const now = Date.now();
  return Math.min(now + FALLBACK_WAIT_MS, deadline === undefined ? Infinity : now + (deadline - now) / 2);
}

export interface ModelActOptions {
  selfHeal: boolean;
}

/** What the chosen element was (role and accessible name): lets a cache replay check it is still the same. */
export interface TargetIdentity {
  role: string;
  name: string;
}

export async function actWithModel(ctx: OperationContext, instruction: string, options: ModelActOptions): Promise<{ result: ActResult; targets: TargetIdentity[] }> {
  const done: Action[] = [];
  const targets: TargetIdentity[] = [];
  let note: string | undefined;
  let heals = options.selfHeal ? 1 : 0;
  let extraSteps = 1; // one follow-up for a two-step dropdown
  for (;;) {
    const snap = await ctx.snapshots.take(ctx.page, snapshotLimit(ctx, actSystemPrompt(ctx.systemPrompt), instruction, note, ACT_OUTPUT.schema));
    const reply = await infer(ctx.inference, {
      system: actSystemPrompt(ctx.systemPrompt),
      // The client masks the session's secrets (model/masking.ts): the page or the note may show a value.
      user: userMessage({ instruction, variables: promptVariables(ctx.variables), url: ctx.page.url(), snapshot: snap.text, ...(note ? { note } : {}) }),
      output: ACT_OUTPUT,
      validate: (v) => {
        const r = Reply.parse(v);
        checkRef(snap.refs, r.ref, true);
        return r;
      },
    });
    if (reply.ref === "") {
      return { result: { success: false, message: `no element fits: ${reply.description}`, actionDescription: instruction, actions: done }, targets };
    }
    let action: Action;
    try {
      // Acting on the ref (not a freshly computed XPath) saves a resolution; perform records the XPath.
      const args = reply.method === "dragAndDrop" ? (await toAction(ctx.page, snap.refs, reply)).arguments : reply.arguments;
      const deadline = heals > 0 ? fallbackDeadline(ctx.deadline) : ctx.deadline;
      const wait = { ...(deadline !== undefined ? { deadline } : {}), ...(ctx.inference.signal ? { signal: ctx.inference.signal } : {}) };
      const performed = await performAction(ctx.page, { selector: reply.ref, description: reply.description, method: reply.method, arguments: args.map((a) => resolveArgument(a, ctx.variables, ctx.secrets)) }, snap.refs, wait);
      action = { ...performed.actions[0]!, arguments: args };
    } catch (e) {
      if (!(e instanceof ServiceError) || !HEALABLE.has(e.code) || heals === 0) throw e;
      heals--;
      note = `Note: the previous attempt (${reply.method} on "${reply.description}") failed: ${e.message}. The page has been read again; choose again.`;
      continue;
    }
    done.push(action);
    const t = snap.refs.get(reply.ref)!;
    targets.push({ role: t.role, name: t.name });
    if (reply.twoStep && extraSteps > 0) {
      extraSteps--;
      note = `Note: the previous step (${reply.method} on "${reply.description}") opened a dropdown. Now choose the option that completes the instruction; set twoStep to false.`;
      continue;
    }
    return { result: { success: true, message: `${reply.method} succeeded: ${reply.description}`, actionDescription: instruction, actions: done }, targets };
  }
}
