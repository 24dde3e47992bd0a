import type { z } from "zod";

/** How much of an input an error message may quote; the rest is cut with "…". */
export const QUOTE_MAX = 80;
/** Longest path segment (an object key) a message names. */
const KEY_MAX = 40;
/** Longest rule text of one issue (zod's and our own messages may embed the value they received). */
const MESSAGE_MAX = 200;

/** `text` cut to `max` characters with "…" when longer: how messages quote input. */
export function clip(text: string, max = QUOTE_MAX): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** `a.b.0.c` (each key clipped), or `fallback` for the root. */
export function fieldPath(path: readonly PropertyKey[], fallback = ""): string {
  const joined = path.map((k) => clip(String(k), KEY_MAX)).join(".");
  return joined || fallback;
}

/** The first zod issue as one line naming the field: `localBrowserLaunchOptions.port: expected number`. */
export function describeIssue(error: z.ZodError, prefix = ""): string {
  const issue = error.issues[0];
  if (!issue) return "invalid input";
  const path = [prefix, fieldPath(issue.path)].filter(Boolean).join(".");
  const msg =
    issue.code === "unrecognized_keys"
      ? `unknown option${issue.keys.length > 1 ? "s" : ""} ${clip(
          issue.keys
            .slice(0, 5)
            .map((k) => `"${clip(k, KEY_MAX)}"`)
            .join(", ") + (issue.keys.length > 5 ? ` and ${issue.keys.length - 5} more` : ""),
          MESSAGE_MAX,
        )}`
      : clip(clipQuotedInput(issue.message, (issue as { input?: unknown }).input), MESSAGE_MAX);
  return path ? `${path}: ${msg}` : msg;
}

/**
 * `message` with any long quotation of `input` (as a string or as JSON) cut to QUOTE_MAX. The input is on
 * the issue when the parse asked for it (`safeParse(v, { reportInput: true })`).
 */
function clipQuotedInput(message: string, input: unknown): string {
  if (input === undefined) return message;
  const forms = new Set<string>();
  if (typeof input === "string") forms.add(input);
  try {
    const json = JSON.stringify(input);
    if (json !== undefined) forms.add(json);
  } catch {
    // not serializable: a message cannot have quoted it as JSON either
  }
  let out = message;
  for (const form of [...forms].sort((a, b) => b.length - a.length)) if (form.length > QUOTE_MAX && out.includes(form)) out = out.replaceAll(form, clip(form));
  return out;
}
