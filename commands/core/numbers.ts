/**
 * A number typed on the command line, read by one zod schema: a registry number flag (as commander parses it,
 * commands/registry/program.ts) and a command's own numeric word (`svc mouse move X Y`). A bad one is one
 * INVALID_ARGUMENT line naming it and its range.
 */
import { z } from "zod";
import { ServiceInvalidArgumentError } from "../../src/base.js";
import { rangedNumber } from "../../src/util/ranged-number.js";
import { type NumberRange, rangeText } from "./number-range.js";

const BYTE_UNITS: Readonly<Record<string, number>> = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** A number's text as a number (NaN when it is none; a size's K, M, G or T multiplied out). */
function numberOfText(r: NumberRange): (raw: string) => number {
  if (!r.size) return (raw) => (raw.trim() ? Number(raw) : NaN);
  return (raw) => {
    const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$/i.exec(raw);
    return m ? Math.round(Number(m[1]) * BYTE_UNITS[m[2]!.toLowerCase()]!) : NaN;
  };
}

/** Text → a number within `r` (zod's number refuses NaN and infinities). */
export function numberSchema(r: NumberRange): z.ZodType<number, string> {
  return z.string().transform(numberOfText(r)).pipe(rangedNumber(r));
}

/** A reader of `name`'s text (`--port`, `mouse move: X`): its number, or the error naming it and its range. */
export function numberReader(name: string, r: NumberRange, hint?: string): (raw: string | undefined) => number {
  const schema = numberSchema(r);
  return (raw) => {
    const parsed = raw === undefined ? undefined : schema.safeParse(raw);
    if (parsed?.success) return parsed.data;
    const got = raw === undefined ? "nothing" : JSON.stringify(raw.slice(0, 40));
    throw new ServiceInvalidArgumentError(`${name} must be ${rangeText(r)}, got ${got}`, hint === undefined ? {} : { hint });
  };
}
