/**
 * Reading request bodies: bounded before parsing, JSON or nothing, else a 4xx naming what was expected. V8's
 * JSON.parse builds a value nested 100,000 deep without complaint, and the first recursive walk (zod, JSON.stringify)
 * then throws far from the request; so nesting is counted on the raw text first, and strings and keys are checked
 * with the field's path.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { ZodType } from "zod";
import { HttpError } from "./errors.js";
import { parseWith } from "../failures.js";
import { fieldPath } from "../../util/zod.js";
import { readCapped } from "../../util/read-capped.js";

/** Deepest nesting of arrays/objects a body may have. Every shape of the API fits in well under 20. */
export const MAX_JSON_DEPTH = 64;
/** Longest string value (instructions, prompts, variable values, URLs), in UTF-16 units. */
export const MAX_STRING_LENGTH = 256 * 1024;
/** Longest object key. */
export const MAX_KEY_LENGTH = 1024;

/**
 * The request body, read at most `maxBytes` far (413 past it). A body that cannot be read — malformed
 * chunked encoding, a connection cut before Content-Length bytes arrived — is the client's fault: 400,
 * never the 500 an unhandled stream error would be.
 */
export function limitBody(maxBytes: number, setting?: string): MiddlewareHandler {
  const tooLarge = () => new HttpError(413, `body: larger than the limit of ${maxBytes} bytes${setting ? ` (${setting})` : ""}`);
  return async (c, next) => {
    const raw = c.req.raw;
    if (!raw.body) return next();
    const declared = raw.headers.get("content-length");
    if (declared !== null && !raw.headers.has("transfer-encoding") && Number(declared) > maxBytes) throw tooLarge();
    let body: Buffer<ArrayBuffer>;
    try {
      body = await readCapped(raw.body, maxBytes, tooLarge);
    } catch (e) {
      if (e instanceof HttpError) throw e;
      throw new HttpError(400, "body: could not be read (malformed chunked encoding, or the connection ended before the body did)");
    }
    c.req.raw = new Request(raw, { body });
    return next();
  };
}

/**
 * Whether `text` nests arrays/objects deeper than `max`, counted without parsing: brackets inside strings
 * do not count. Malformed text may be miscounted; JSON.parse rejects it right after anyway.
 */
export function nestingExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c /* \ */) i++;
      else if (ch === 0x22 /* " */) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b /* [ */ || ch === 0x7b /* { */) {
      if (++depth > max) return true;
    } else if (ch === 0x5d /* ] */ || ch === 0x7d /* } */) depth--;
  }
  return false;
}

/**
 * The first string or key in `value` past its limit, as a one-line message naming its path, or undefined.
 * `value` is known to nest at most MAX_JSON_DEPTH levels, so the recursion is bounded.
 */
export function oversizedField(value: unknown, path: (string | number)[] = []): string | undefined {
  if (typeof value === "string") {
    return value.length > MAX_STRING_LENGTH ? `${fieldPath(path, "body")}: a string of ${value.length} characters; at most ${MAX_STRING_LENGTH} are accepted` : undefined;
  }
  if (!value || typeof value !== "object") return undefined;
  const child = (k: string | number, v: unknown): string | undefined => {
    if (v === null || (typeof v !== "string" && typeof v !== "object")) return undefined;
    path.push(k);
    const found = oversizedField(v, path);
    path.pop();
    return found;
  };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = child(i, value[i]);
      if (found) return found;
    }
    return undefined;
  }
  for (const k in value) {
    if (k.length > MAX_KEY_LENGTH) return `${fieldPath(path, "body")}: a key of ${k.length} characters; at most ${MAX_KEY_LENGTH} are accepted`;
    const found = child(k, (value as Record<string, unknown>)[k]);
    if (found) return found;
  }
  return undefined;
}

/** A JSON document within the bounds above, parsed; the bound it breaks, named, otherwise. */
export function parseJsonText(text: string): unknown {
  if (!text.trim()) return {};
  if (nestingExceeds(text, MAX_JSON_DEPTH)) throw new HttpError(400, `body: nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`);
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, "body: expected a JSON document");
  }
  const oversized = oversizedField(value);
  if (oversized) throw new HttpError(413, oversized);
  return value;
}

/** The JSON body, `{}` when there is none. */
export async function jsonBody(c: Context): Promise<unknown> {
  let text: string;
  try {
    text = await c.req.text();
  } catch {
    throw new HttpError(400, "body: could not be read (malformed chunked encoding, or the connection ended before the body did)");
  }
  return parseJsonText(text);
}

/** The body validated with a library schema (400 naming the field). */
export async function parseBody<T>(c: Context, schema: ZodType<T>, where = ""): Promise<T> {
  return parseWith(schema, await jsonBody(c), where);
}
