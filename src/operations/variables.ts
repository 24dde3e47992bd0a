/**
 * Variables (docs/wire-formats.md "Variables"): `%name%` in instructions and action arguments. The model sees names and
 * descriptions only; values are substituted locally, right before the browser gets them. Masking them back
 * out of what leaves for a model and what is written down is the session's Secrets (util/secrets.ts).
 */
import { z } from "zod";
import { LLMResponseError, ServiceInvalidArgumentError } from "../errors.js";
import { describeIssue } from "../util/zod.js";
import type { PromptVariable } from "./prompts.js";

const Primitive = z.union([z.string(), z.number(), z.boolean()]);
const VariableValueSchema = z.union([Primitive, z.strictObject({ value: Primitive, description: z.string().optional() })]);
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

const PLACEHOLDER = /%([A-Za-z_][A-Za-z0-9_.-]*)%/g;

/** `%name%` → value, for the browser only. Unknown names are left as written. */
export function substitute(text: string, vars: Variables): string {
  return text.replace(PLACEHOLDER, (m, name: string) => (name in vars ? valueOf(vars[name]!) : m));
}

/** The session's masked values by name (util/secrets.ts): what a `%name%` svc wrote for the model stands for. */
export interface SecretLookup {
  valueFor(name: string): string | undefined;
}

/**
 * An argument a model wrote (or a cached action holds) → what the browser gets: each `%name%` is a call variable or
 * else a value the session masked as `%name%`. One that is neither is never typed: typing the placeholder would
 * report a success that did not happen.
 */
export function resolveArgument(text: string, vars: Variables, secrets: SecretLookup | undefined): string {
  return text.replace(PLACEHOLDER, (m, name: string) => {
    if (name in vars) return valueOf(vars[name]!);
    const secret = secrets?.valueFor(name);
    if (secret !== undefined) return secret;
    throw new LLMResponseError(`the action's argument holds ${m}, which is no variable of this call and no value this session masked: refusing to type a placeholder`, {
      hint: `pass it as a variable (variables: {${name}: …}) or write the text itself`,
    });
  });
}
