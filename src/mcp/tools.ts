/**
 * The MCP tools' declarations: name, title, description, annotations and input shape (every property
 * described). tools-page.ts and tools-model.ts register their handlers under these names; the CLI's command
 * registry (commands/registry/) names the tool of the same capability and takes the shared descriptions from
 * descriptions.ts, so a property and its flag say the same thing. zod only: no SDK, nothing of the library.
 */
import { z } from "zod";
import { SHARED_DESCRIPTIONS as D } from "./descriptions.js";

/** How a tool treats the world (the MCP spec's ToolAnnotations). */
interface Annotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint?: boolean;
  openWorldHint: boolean;
}

export interface ToolDecl {
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

/** Properties whose CLI flag of the same capability (commands/registry/) has the same description. */
const SHARED = {
  interactive: z.boolean().optional().describe(D.interactive),
  maxTokens: z.number().int().min(1).max(1_000_000).optional().describe(D.maxTokens),
  snapshotSelector: z.string().min(1).optional().describe(D.snapshotSelector),
  fullPage: z.boolean().optional().describe(D.fullPage),
  numResults: z.number().int().min(1).max(25).optional().describe(D.numResults),
  extractSelector: z.string().min(1).optional().describe(D.extractSelector),
  maxSteps: z.number().int().min(1).max(1000).optional().describe(D.maxSteps),
} as const;

export const TOOLS = {
  navigate: {
    description: "Open a URL in the current tab",
    annotations: moves("Open a URL"),
    inputSchema: { url: z.string().min(1).describe("the URL to open (http or https; file: only when the operator allows it)") },
  },
  snapshot: {
    description: "The page outline with refs (e3) for the other tools",
    annotations: readOnly("Page outline"),
    inputSchema: { interactive: SHARED.interactive, maxTokens: SHARED.maxTokens, selector: SHARED.snapshotSelector },
  },
  click: {
    description: "Click an element",
    annotations: acts("Click"),
    inputSchema: { target, double: z.boolean().optional().describe("double-click instead") },
  },
  fill: {
    description: "Replace an input's value",
    annotations: acts("Fill a field"),
    inputSchema: { target, value: z.string().describe("the new value (empty clears the field)") },
  },
  type: {
    description: "Type text into an element, key by key",
    annotations: acts("Type text"),
    inputSchema: { target, text: z.string().describe("the text to type") },
  },
  press: {
    description: "Press a key (Enter, Tab, Control+A) on an element or the focused one",
    annotations: acts("Press a key"),
    inputSchema: { key: z.string().min(1).describe("the key, e.g. Enter, Tab or Control+A"), target: target.optional().describe("ref or selector of the element; the focused one when left out") },
  },
  select: {
    description: "Choose an option of a dropdown",
    annotations: acts("Choose an option"),
    inputSchema: { target, option: z.string().describe("the option's text or value") },
  },
  hover: {
    description: "Move the mouse over an element",
    annotations: moves("Hover", true),
    inputSchema: { target },
  },
  check: {
    description: "Check (or uncheck) a checkbox or radio",
    annotations: acts("Check a box"),
    inputSchema: { target, checked: z.boolean().optional().describe("false to uncheck (default true)") },
  },
  scroll: {
    description: "Scroll the page (or an element) down/up a screen, or to a percentage",
    annotations: moves("Scroll"),
    inputSchema: { to: z.string().describe('"down", "up" or "50%"'), target: target.optional().describe("ref or selector of the element to scroll; the page when left out") },
  },
  screenshot: {
    description: "A PNG of the viewport (or the full page)",
    annotations: readOnly("Screenshot"),
    inputSchema: { fullPage: SHARED.fullPage },
  },
  tabs: {
    description: "List, open, select or close tabs (by the number list shows)",
    annotations: acts("Tabs"),
    inputSchema: {
      action: z.enum(["list", "new", "select", "close"]).optional().describe("what to do (default list)"),
      url: z.string().optional().describe("with new: the URL the tab opens (default about:blank)"),
      tab: z.number().int().min(1).optional().describe("with select or close: the tab's number from the list"),
    },
  },
  act: {
    description: "Do one thing on the page, said in words",
    annotations: acts("Act on the page"),
    inputSchema: {
      instruction: z.string().min(1).describe("what to do, e.g. click the sign-in button"),
      variables: z.record(z.string(), z.string()).optional().describe("values for %name% placeholders in the instruction; never sent to the model"),
    },
  },
  extract: {
    description: "Read data from the page: an instruction, optionally a JSON Schema for the result",
    annotations: readOnly("Extract data"),
    inputSchema: {
      instruction: z.string().min(1).describe("what to read, e.g. the article titles"),
      schema: z.record(z.string(), z.unknown()).optional().describe("a JSON Schema the result must fit"),
      selector: SHARED.extractSelector,
    },
  },
  observe: {
    description: "List actions possible on the page (for an instruction)",
    annotations: readOnly("Observe actions"),
    inputSchema: { instruction: z.string().optional().describe("what to look for; every actionable element when left out") },
  },
  agent: {
    description: "Run a multi-step task in the browser",
    annotations: acts("Run a task"),
    inputSchema: { instruction: z.string().min(1).describe("the task, in words"), maxSteps: SHARED.maxSteps },
  },
  search: {
    description: "Search the web",
    annotations: readOnly("Web search"),
    inputSchema: { query: z.string().min(1).describe("the search query"), numResults: SHARED.numResults },
  },
  fetch: {
    description: "Fetch a URL as markdown (no browser)",
    annotations: readOnly("Fetch a URL"),
    inputSchema: { url: z.string().min(1).describe("the http(s) URL to fetch"), format: z.enum(["markdown", "text", "html"]).optional().describe("markdown (readable content, default), text or html") },
  },
} as const satisfies Record<string, ToolDecl>;

export type ToolName = keyof typeof TOOLS;
