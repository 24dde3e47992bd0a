/**
 * The zod type of each kind of flag, and of a declaration's flags as a whole: what program.ts checks the
 * parsed flags against before a command runs. A number flag's text is read by one schema (numberSchema) as
 * commander reads it, so its action gets a number and a bad one is refused in one line naming the flag.
 */
import { z } from "zod";
import { ServiceInvalidArgumentError } from "../../src/base.js";
import { type NumberRange, type OptionDecl, type OptionKind, type Options, rangeText } from "./types.js";

const BYTE_UNITS: Readonly<Record<string, number>> = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** A number's text as a number (NaN when it is none; a size's K, M, G or T multiplied out). */
function numberOfText(r: NumberRange): (raw: string) => number {
  if (!r.size) return (raw) => (raw.trim() ? Number(raw) : NaN);
  return (raw) => {
    const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$/i.exec(raw);
    return m ? Math.round(Number(m[1]) * BYTE_UNITS[m[2]!.toLowerCase()]!) : NaN;
  };
}

/** A number flag's text → its number within `r` (zod's number refuses NaN and infinities). */
export function numberSchema(r: NumberRange): z.ZodType<number, string> {
  let n = z.number();
  if (r.whole) n = n.int();
  if (r.min !== undefined) n = n.min(r.min);
  if (r.above !== undefined) n = n.gt(r.above);
  if (r.max !== undefined) n = n.max(r.max);
  return z.string().transform(numberOfText(r)).pipe(n);
}

/** The flag's parser (commander's argParser): its number, or the one-line INVALID_ARGUMENT error naming it and its range. */
export function numberParser(d: OptionDecl & { range: NumberRange }): (raw: string) => number {
  const schema = numberSchema(d.range);
  const flag = [...d.flags.matchAll(/--[\w-]+/g)].at(-1)?.[0] ?? d.flags;
  return (raw) => {
    const parsed = schema.safeParse(raw);
    if (parsed.success) return parsed.data;
    throw new ServiceInvalidArgumentError(`${flag} must be ${rangeText(d.range)}, got ${JSON.stringify(raw.slice(0, 40))}`);
  };
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
