/**
 * The zod type of each kind of flag, and of a declaration's flags as a whole: what program.ts checks the
 * parsed flags against before a command runs. A number flag's text is read by core/numbers.ts's one schema as
 * commander reads it, so its action gets a number and a bad one is refused in one line naming the flag.
 */
import { z } from "zod";
import type { NumberRange } from "../core/number-range.js";
import { numberReader } from "../core/numbers.js";
import type { OptionDecl, OptionKind, Options } from "./types.js";

/** The flag's parser (commander's argParser): its number, or the one-line INVALID_ARGUMENT error naming it and its range. */
export function numberParser(d: OptionDecl & { range: NumberRange }): (raw: string) => number {
  return numberReader([...d.flags.matchAll(/--[\w-]+/g)].at(-1)?.[0] ?? d.flags, d.range);
}

const KINDS: Readonly<Record<OptionKind, (d: OptionDecl) => z.ZodType>> = {
  flag: () => z.boolean().optional(),
  negated: () => z.boolean(),
  value: () => z.string().optional(),
  defaulted: () => z.string(),
  choice: (d) => z.enum(d.choices as [string, ...string[]]).optional(),
  list: () => z.array(z.string()).optional(),
  "optional-value": () => z.union([z.boolean(), z.string()]).optional(),
  // Already read by numberParser as commander parsed it.
  number: (d) => (d.always ? z.number() : z.number().optional()),
};

export function schemaOf(d: OptionDecl): z.ZodType {
  return KINDS[d.kind](d);
}

/** A declaration's flags as one object (unknown keys pass: commander adds none that was not declared). */
export function flagsSchema(options: Options | undefined): z.ZodType {
  return z.looseObject(Object.fromEntries(Object.entries(options ?? {}).map(([k, d]) => [k, schemaOf(d)])));
}
