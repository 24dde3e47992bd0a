/**
 * The rules of a web search request, one for the library (platform/search.ts), the server's route and every door's
 * `search` (capabilities/web.ts): the query trimmed, 1–200 characters; 1–25 results. Messages name the rule and what
 * was given; the issue path names the field.
 */
import { z } from "zod";

export const MAX_QUERY_LENGTH = 200;
export const MAX_NUM_RESULTS = 25;
export const DEFAULT_NUM_RESULTS = 10;

/** Characters as a person counts them (code points), not UTF-16 units. */
const chars = (v: unknown): number => (typeof v === "string" ? [...v.trim()].length : 0);
const queryRule = (iss: { input?: unknown }) => `1 to ${MAX_QUERY_LENGTH} characters (got ${chars(iss.input)})`;
const countRule = (iss: { input?: unknown }) => `an integer 1 to ${MAX_NUM_RESULTS} (got ${typeof iss.input === "number" ? iss.input : JSON.stringify(iss.input)})`;

export const SEARCH_QUERY = z
  .string({ error: "expected a string" })
  .trim()
  .min(1, { error: queryRule })
  // maxLength in the JSON Schema; the check itself counts code points, as the rule says characters.
  .refine((q) => [...q].length <= MAX_QUERY_LENGTH, { error: queryRule })
  .meta({ maxLength: MAX_QUERY_LENGTH });

export const SEARCH_NUM_RESULTS = z
  .number({ error: countRule })
  .int({ error: countRule })
  .min(1, { error: countRule })
  .max(MAX_NUM_RESULTS, { error: countRule })
  .default(DEFAULT_NUM_RESULTS);
