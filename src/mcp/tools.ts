/**
 * The declarations of the MCP tools not yet declared as capabilities (src/capabilities/): title, annotations
 * and described input; the tools-*.ts files register their handlers by these names. A flag of the same
 * capability takes its description from descriptions.ts. zod only: no SDK, nothing of the library.
 */
import { z } from "zod";
import { CAPS, type Cap } from "./descriptions.js";
import { TAB } from "../capabilities/element.js";

/** How a tool treats the world (the MCP spec's ToolAnnotations). */
interface Annotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint?: boolean;
  openWorldHint: boolean;
}

export { CAPS, type Cap } from "./descriptions.js";

export interface ToolDecl {
  cap: Cap;
  description: string;
  annotations: Annotations;
  inputSchema: z.ZodRawShape;
}

/** Reads the page or the web; changes nothing. */
const readOnly = (title: string): Annotations => ({ title, readOnlyHint: true, destructiveHint: false, openWorldHint: true });
/** Acts on the page as a user would: a click or a key may submit a form, buy, delete. */
const acts = (title: string): Annotations => ({ title, readOnlyHint: false, destructiveHint: true, openWorldHint: true });

const target = z.string().min(1).describe("ref from the last snapshot (e3) or a selector");
/** The verbs' `tab` (src/capabilities/element.ts): the page tools address a tab the same way. */
const tab = TAB;

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
  find: {
    cap: "devtools",
    description: "Find elements by role (and name), visible text, label, placeholder or test id; their selectors",
    annotations: readOnly("Find elements"),
    inputSchema: {
      by: z.enum(["role", "text", "label", "placeholder", "testid"]).describe("how to find: role, text, label, placeholder or testid"),
      value: z.string().min(1).max(1000).describe("the role (button, link…), text, label, placeholder or test id"),
      name: z.string().min(1).max(1000).optional().describe("with role: the accessible name it contains"),
      exact: z.boolean().optional().describe("the value (or name) must match whole, not be contained"),
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
