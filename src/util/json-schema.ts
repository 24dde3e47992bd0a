/**
 * A JSON Schema → a zod schema, converted by zod itself (`z.fromJSONSchema`), after one repair: zod checks
 * a `required` key only when `properties` names it, so `{type: "object", required: ["id"]}` accepted `{}`.
 * Every required key missing from `properties` is added there as `{}` (any value, but present).
 */
import { z } from "zod";

/** Keys whose values are data, not subschemas: never rewritten. */
const DATA_KEYS = new Set(["enum", "const", "default", "examples", "example"]);

function withRequiredProperties(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withRequiredProperties);
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = DATA_KEYS.has(k) ? v : withRequiredProperties(v);
  const required = out.required;
  if (Array.isArray(required) && required.every((r) => typeof r === "string")) {
    const props = out.properties && typeof out.properties === "object" && !Array.isArray(out.properties) ? { ...(out.properties as Record<string, unknown>) } : {};
    for (const key of required) if (!Object.prototype.hasOwnProperty.call(props, key)) props[key] = {};
    out.properties = props;
  }
  return out;
}

/** Throws zod's own error for a schema it cannot use; callers wrap it in their typed error. */
export function fromJsonSchema(schema: object): z.ZodType {
  return z.fromJSONSchema(withRequiredProperties(schema) as Parameters<typeof z.fromJSONSchema>[0]);
}
