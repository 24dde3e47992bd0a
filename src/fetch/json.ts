/**
 * The json format: the body must parse as JSON; it is returned pretty-printed, and when the caller gave
 * a JSON Schema, it must satisfy it (the schema is turned into zod by zod itself: src/util/json-schema.ts).
 */
import { z } from "zod";
import { ServiceFetchError, ServiceInvalidArgumentError } from "../errors.js";
import { fromJsonSchema } from "../util/json-schema.js";

/** A JSON Schema object → a zod schema; an unusable one is the caller's mistake (checked before any request). */
export function compileSchema(schema: unknown): z.ZodType {
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) throw new ServiceInvalidArgumentError("schema: expected a JSON Schema object");
  try {
    return fromJsonSchema(schema);
  } catch (e) {
    throw new ServiceInvalidArgumentError(`schema: not a JSON Schema zod can use: ${(e as Error).message.split("\n")[0]}`);
  }
}

function describeIssues(error: z.ZodError): string {
  const shown = error.issues.slice(0, 5).map((i) => `${i.path.length ? i.path.join(".") : "(root)"}: ${i.message}`);
  const more = error.issues.length > shown.length ? `; and ${error.issues.length - shown.length} more` : "";
  return shown.join("; ") + more;
}

/**
 * The body as pretty JSON. `what` names the response for messages ("http://x/data (text/html)").
 * Not JSON → ServiceFetchError; JSON that does not match the schema → ServiceFetchError listing the issues.
 */
export function jsonContent(text: string, what: string, schema: z.ZodType | undefined): string {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (e) {
    const why = (e as Error).message.split("\n")[0];
    throw new ServiceFetchError(`${what} is not JSON (${why})`, { hint: "use format markdown, text or raw for other content" });
  }
  if (schema) {
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw new ServiceFetchError(`${what}: the JSON does not match the schema: ${describeIssues(parsed.error)}`);
  }
  return JSON.stringify(value, null, 2);
}
