import type { z } from "zod";

/** The first zod issue as one line naming the field: `localBrowserLaunchOptions.port: expected number`. */
export function describeIssue(error: z.ZodError, prefix = ""): string {
  const issue = error.issues[0];
  if (!issue) return "invalid input";
  const path = [prefix, ...issue.path.map(String)].filter(Boolean).join(".");
  const msg = issue.code === "unrecognized_keys" ? `unknown option${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")}` : issue.message;
  return path ? `${path}: ${msg}` : msg;
}
