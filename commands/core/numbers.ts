/** Whole numbers typed on the command line, refused in one line naming their flag. */
import { ServiceInvalidArgumentError } from "../../src/base.js";

/** `--timeout MS`: a positive whole number of milliseconds. */
export function parseTimeout(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!raw.trim() || !Number.isInteger(n) || n <= 0) throw new ServiceInvalidArgumentError(`--timeout must be a positive number of milliseconds, got "${raw}"`);
  return n;
}

export function positiveInt(raw: string | undefined, flag: string, unit = ""): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!raw.trim() || !Number.isInteger(n) || n <= 0) throw new ServiceInvalidArgumentError(`${flag} must be a positive integer${unit}, got "${raw}"`);
  return n;
}
