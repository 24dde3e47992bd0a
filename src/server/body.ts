/** Reading request bodies: JSON or nothing; anything else is a 400 naming what was expected. */
import type { Context } from "hono";
import type { ZodType } from "zod";
import { HttpError, parseWith } from "./http-error.js";

/** The JSON body, `{}` when there is none. */
export async function jsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (!text.trim()) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, "body: expected a JSON document");
  }
}

/** The body validated with a library schema (400 naming the field). */
export async function parseBody<T>(c: Context, schema: ZodType<T>, where = ""): Promise<T> {
  return parseWith(schema, await jsonBody(c), where);
}
