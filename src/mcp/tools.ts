/**
 * The declarations of the MCP tools not yet declared as capabilities (src/capabilities/): title, annotations
 * and described input; the tools-*.ts files register their handlers by these names. A flag of the same
 * capability takes its description from descriptions.ts. zod only: no SDK, nothing of the library.
 */
import { z } from "zod";
import { CAPS, type Cap, SHARED_DESCRIPTIONS as D } from "./descriptions.js";
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
/** Changes what the browser shows, but submits nothing (navigation, scrolling, hovering). */
const moves = (title: string, idempotent = false): Annotations => ({ title, readOnlyHint: false, destructiveHint: false, idempotentHint: idempotent, openWorldHint: true });
/** Acts on the page as a user would: a click or a key may submit a form, buy, delete. */
const acts = (title: string): Annotations => ({ title, readOnlyHint: false, destructiveHint: true, openWorldHint: true });

const target = z.string().min(1).describe("ref from the last snapshot (e3) or a selector");
/** The verbs' `tab` (src/capabilities/element.ts): the page tools address a tab the same way. */
const tab = TAB;

/** Properties whose CLI flag of the same capability (commands/registry/) has the same description. */
const SHARED = {
  maxSteps: z.number().int().min(1).max(1000).optional().describe(D.maxSteps),
} as const;

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
  route: {
    cap: "network",
    description: "Answer or fail the requests whose URL matches a pattern, in every tab, until unrouted",
    annotations: moves("Mock requests", true),
    inputSchema: {
      pattern: z.string().min(1).max(2048).describe("a glob over the whole URL when it has * (**/api/items*: ** any characters), else a part of the URL (/api/data)"),
      status: z.number().int().min(100).max(599).optional().describe("the response's status (default 200)"),
      body: z.string().max(1_000_000).optional().describe("the response's body (text or JSON)"),
      contentType: z.string().min(1).max(256).optional().describe("its content type (default: JSON when the body parses, else text)"),
      headers: z.record(z.string(), z.string()).optional().describe("more response headers"),
      abort: z.boolean().optional().describe("fail the request as blocked instead of answering it"),
    },
  },
  unroute: {
    cap: "network",
    description: "Remove the route of this pattern, or every route; answers with the routes left",
    annotations: moves("Remove mocks", true),
    inputSchema: { pattern: z.string().min(1).max(2048).optional().describe("the pattern given to route; every route when left out") },
  },
  act: {
    cap: "core",
    description: "Do one thing on the page, said in words",
    annotations: acts("Act on the page"),
    inputSchema: {
      instruction: z.string().min(1).describe("what to do, e.g. click the sign-in button"),
      variables: z.record(z.string(), z.string()).optional().describe("values for %name% placeholders in the instruction; never sent to the model"),
    },
  },
  agent: {
    cap: "agent",
    description: "Run a multi-step task in the browser",
    annotations: acts("Run a task"),
    inputSchema: { instruction: z.string().min(1).describe("the task, in words"), maxSteps: SHARED.maxSteps },
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
