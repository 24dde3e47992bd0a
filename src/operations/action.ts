/** The Action record (docs/wire-formats.md "Records"): one schema for the library, the CLI and (later) HTTP bodies. */
import { z } from "zod";
import { ServiceInvalidArgumentError } from "../errors.js";
import { describeIssue } from "../util/zod.js";

/**
 * The methods a model may choose (act, observe, the agent): every method but setInputFiles, whose arguments are
 * paths on this machine — a page's text must never decide which local file gets uploaded.
 */
export const MODEL_ACTION_METHODS = [
  "click",
  "fill",
  "type",
  "press",
  "hover",
  "doubleClick",
  "selectOptionFromDropdown",
  "scrollTo",
  "nextChunk",
  "prevChunk",
  "dragAndDrop",
  "check",
  "uncheck",
  "focus",
] as const;
/** Every method an Action may name: the model's, and setInputFiles (a caller's own Action only). */
export const ACTION_METHODS = [...MODEL_ACTION_METHODS, "setInputFiles"] as const;
export type ActionMethod = (typeof ACTION_METHODS)[number];

export const ActionSchema = z.object({
  selector: z.string(),
  description: z.string(),
  method: z.string().min(1),
  arguments: z.array(z.string()),
});
export type Action = z.infer<typeof ActionSchema>;

export const ActResultSchema = z.object({
  success: z.boolean(),
  message: z.string(),
  actionDescription: z.string(),
  actions: z.array(ActionSchema),
  cacheStatus: z.enum(["HIT", "MISS"]).optional(),
  /** "none": a literal instruction (literal.ts) was performed with no model call. */
  model: z.string().optional(),
});
export type ActResult = z.infer<typeof ActResultSchema>;

/** Validates an Action from outside (JSON, HTTP); the error names the field and what was expected. */
export function parseAction(input: unknown): Action & { method: ActionMethod } {
  const parsed = ActionSchema.safeParse(input);
  if (!parsed.success) throw new ServiceInvalidArgumentError(`action ${describeIssue(parsed.error)}`);
  const action = parsed.data;
  if (!(ACTION_METHODS as readonly string[]).includes(action.method)) {
    throw new ServiceInvalidArgumentError(`action.method: unknown method "${action.method}"`, { hint: `one of ${ACTION_METHODS.join(", ")}` });
  }
  return action as Action & { method: ActionMethod };
}
