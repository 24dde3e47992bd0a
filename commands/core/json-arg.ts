/**
 * A command-line argument that is a JSON object of a tool's arguments (`svc mcp call`, `svc webmcp call`): bounded,
 * parsed, and refused in one line naming `json` when it is not an object.
 */
import { ServiceInvalidArgumentError } from "../../src/base.js";

export function jsonObjectArg(raw: string | undefined, o: { maxChars: number; example: string }): Record<string, unknown> {
  if (raw === undefined) return {};
  if (raw.length > o.maxChars) throw new ServiceInvalidArgumentError(`json: longer than ${o.maxChars} characters`);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    throw new ServiceInvalidArgumentError(`json: not valid JSON (${(e as Error).message})`, { hint: o.example });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ServiceInvalidArgumentError("json: must be a JSON object of the tool's arguments");
  return value as Record<string, unknown>;
}
