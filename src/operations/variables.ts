/**
 * Variables (docs/wire-formats.md "Variables"): `%name%` in instructions and action arguments. The model sees names and
 * descriptions only; values are substituted locally, right before the browser gets them. Masking them back
 * out of what leaves for a model and what is written down is the session's Secrets (util/secrets.ts).
 */
import { z } from "zod";
import { ServiceInvalidArgumentError } from "../errors.js";
import { describeIssue } from "../util/zod.js";
import type { PromptVariable } from "./prompts.js";

const Primitive = z.union([z.string(), z.number(), z.boolean()]);
export const VariableValueSchema = z.union([Primitive, z.strictObject({ value: Primitive, description: z.string().optional() })]);
export const VariablesSchema = z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, "variable names are letters, digits, _ . -"), VariableValueSchema);
export type Variables = z.infer<typeof VariablesSchema>;

export function parseVariables(input: unknown, field = "variables"): Variables {
  if (input === undefined) return {};
  const parsed = VariablesSchema.safeParse(input);
  if (!parsed.success) throw new ServiceInvalidArgumentError(describeIssue(parsed.error, field));
  return parsed.data;
}

function valueOf(v: Variables[string]): string {
  return String(typeof v === "object" ? v.value : v);
}

export function promptVariables(vars: Variables): PromptVariable[] {
  return Object.entries(vars).map(([name, v]) => (typeof v === "object" && v.description ? { name, description: v.description } : { name }));
}

/** `%name%` → value, for the browser only. Unknown names are left as written. */
export function substitute(text: string, vars: Variables): string {
  return text.replace(/%([A-Za-z_][A-Za-z0-9_.-]*)%/g, (m, name: string) => (name in vars ? valueOf(vars[name]!) : m));
}
