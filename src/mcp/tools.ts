/**
 * The two MCP tools that are MCP's alone (every capability on both doors is declared in src/capabilities/):
 * title, annotations and described input; tools-forms.ts and server.ts register their handlers by these names.
 * zod only: no SDK, nothing of the library.
 */
import { z } from "zod";
import { type Annotations, acts, CAPS, type Cap } from "../capabilities/declare.js";

export { CAPS, type Cap } from "../capabilities/declare.js";

export interface ToolDecl {
  cap: Cap;
  description: string;
  annotations: Annotations;
  inputSchema: z.ZodRawShape;
}

const target = z.string().min(1).describe("ref from the last snapshot (e3) or a selector");

export const TOOLS = {
  close: {
    cap: "core",
    description: "Close the browser; the next tool starts a new one",
    annotations: { title: "Close the browser", readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    inputSchema: {},
  },
  fill_form: {
    cap: "forms",
    description: "Fill several fields at once: text fields, checkboxes and dropdowns",
    annotations: acts("Fill a form"),
    inputSchema: {
      fields: z
        .array(
          z.strictObject({
            target,
            value: z.union([z.string(), z.boolean()]).describe("text for a field, true/false for a checkbox, the option for a dropdown"),
          }),
        )
        .min(1)
        .max(100)
        .describe("the fields, in order"),
    },
  },
} as const satisfies Record<string, ToolDecl>;

export type ToolName = keyof typeof TOOLS;

/** `--caps`: a comma-separated list of CAPS, or `all`; core is always on. */
export function parseCaps(raw: string | undefined, field = "--caps"): ReadonlySet<Cap> {
  if (raw === undefined) return new Set<Cap>(["core"]);
  const names = raw.split(",").map((c) => c.trim()).filter(Boolean);
  if (names.length === 0) throw new RangeError(`${field}: expected a comma-separated list of ${CAPS.join(", ")} or all`);
  if (names.includes("all")) return new Set<Cap>(CAPS);
  const bad = names.filter((n) => !(CAPS as readonly string[]).includes(n));
  if (bad.length) throw new RangeError(`${field}: unknown capability "${bad[0]}" (known: ${CAPS.join(", ")}, all)`);
  return new Set<Cap>(["core", ...(names as Cap[])]);
}
