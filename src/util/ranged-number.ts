/**
 * A number within bounds as one zod schema: `svc serve`'s options (server/config.ts) and the CLI's number flags
 * (commands/core/numbers.ts) read theirs with it, so a bound means the same on both. Loads zod only.
 */
import { z } from "zod";

/** `whole`: a whole number; `above`: greater than, not equal. */
export interface NumberBounds {
  whole?: boolean;
  min?: number;
  above?: number;
  max?: number;
}

export function rangedNumber(r: NumberBounds): z.ZodNumber {
  let n = z.number();
  if (r.whole) n = n.int();
  if (r.min !== undefined) n = n.min(r.min);
  if (r.above !== undefined) n = n.gt(r.above);
  if (r.max !== undefined) n = n.max(r.max);
  return n;
}
