/**
 * Variables (spec/seed.md §2.5): `%name%` in instructions and action arguments. The model sees names and
 * descriptions only; values are substituted locally, right before the browser gets them, and are masked
 * back out of anything recorded (history, logs, cache, results).
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

/** value → `%name%`, for anything recorded. Longer values first so one value inside another stays masked. */
export function mask(text: string, vars: Variables): string {
  const entries = Object.entries(vars)
    .map(([name, v]) => [name, valueOf(v)] as const)
    .filter(([, value]) => value.length > 0)
    .sort((a, b) => b[1].length - a[1].length);
  let out = text;
  for (const [name, value] of entries) out = out.split(value).join(`%${name}%`);
  return out;
}

/**
 * value → `%name%` in a prompt: the page may show a value (a field's value, text echoing what was typed)
 * and an error in a self-heal note may quote it. Values under 4 characters are left alone there: masking
 * them would mangle refs (e12) and ordinary words of the outline.
 */
export function maskPrompt(text: string, vars: Variables): string {
  return mask(text, Object.fromEntries(Object.entries(vars).filter(([, v]) => valueOf(v).length >= 4)));
}

/** Deeply masks every string in a JSON-like value. */
export function maskDeep<T>(value: T, vars: Variables): T {
  if (Object.keys(vars).length === 0) return value;
  if (typeof value === "string") return mask(value, vars) as T;
  if (Array.isArray(value)) return value.map((v) => maskDeep(v, vars)) as T;
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskDeep(v, vars)])) as T;
  return value;
}
