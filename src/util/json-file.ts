/** A JSON object from a file a command line names (`--var-file`, `--schema`); each message names the flag and the file. */
import { readFileSync } from "node:fs";
import { ServiceInvalidArgumentError } from "../errors.js";

/** `what`: what the object must be, for the message (`a JSON Schema object`). */
export function readJsonObject(file: string, flag: string, what: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ServiceInvalidArgumentError(`cannot read ${flag} ${file}: ${code === "ENOENT" ? "no such file" : (e as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ServiceInvalidArgumentError(`${flag} ${file} is not valid JSON: ${(e as Error).message.split("\n")[0]}`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new ServiceInvalidArgumentError(`${flag} ${file} must hold ${what}`);
  return parsed as Record<string, unknown>;
}
