/**
 * The zod type of each kind of flag, and of a declaration's flags as a whole: what program.ts checks the
 * parsed flags against before a command runs. Imported only then (zod is not loaded for `--help`).
 */
import { z } from "zod";
import type { OptionDecl, OptionKind, Options } from "./types.js";

const KINDS: Readonly<Record<OptionKind, (d: OptionDecl) => z.ZodType>> = {
  flag: () => z.boolean().optional(),
  negated: () => z.boolean(),
  value: () => z.string().optional(),
  defaulted: () => z.string(),
  choice: (d) => z.enum(d.choices as [string, ...string[]]).optional(),
  list: () => z.array(z.string()).optional(),
  "optional-value": () => z.union([z.boolean(), z.string()]).optional(),
};

export function schemaOf(d: OptionDecl): z.ZodType {
  return KINDS[d.kind](d);
}

/** A declaration's flags as one object (unknown keys pass: commander adds none that was not declared). */
export function flagsSchema(options: Options | undefined): z.ZodType {
  return z.looseObject(Object.fromEntries(Object.entries(options ?? {}).map(([k, d]) => [k, schemaOf(d)])));
}
