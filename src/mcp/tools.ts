/**
 * The declarations of the MCP tools not yet declared as capabilities (src/capabilities/): title, annotations
 * and described input; the tools-*.ts files register their handlers by these names. A flag of the same
 * capability takes its description from descriptions.ts. zod only: no SDK, nothing of the library.
 */
import { z } from "zod";
import { CAPS, type Cap, SHARED_DESCRIPTIONS as D } from "./descriptions.js";
import { NETWORK_REQUEST_ID, TRACE_MAX_SIZE_MB } from "../internal.js";
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
  interactive: z.boolean().optional().describe(D.interactive),
  maxTokens: z.number().int().min(1).max(1_000_000).optional().describe(D.maxTokens),
  snapshotSelector: z.string().min(1).optional().describe(D.snapshotSelector),
  delta: z.boolean().optional().describe(D.delta),
  from: z.string().min(1).max(40).optional().describe(D.from),
  fullPage: z.boolean().optional().describe(D.fullPage),
  // 0 or 100–10000: the range is the library's check (browser/screenshot.ts), one rule for every door.
  screenshotMaxSize: z.number().optional().describe(D.screenshotMaxSize),
  ifChanged: z.boolean().optional().describe(D.ifChanged),
  extractSelector: z.string().min(1).optional().describe(D.extractSelector),
  maxSteps: z.number().int().min(1).max(1000).optional().describe(D.maxSteps),
  traceMaxSize: z.number().int().min(TRACE_MAX_SIZE_MB.min).max(TRACE_MAX_SIZE_MB.max).optional().describe(D.traceMaxSize),
} as const;

export const TOOLS = {
  navigate: {
    cap: "core",
    description: "Open a URL in the current tab (or the tab given)",
    annotations: moves("Open a URL"),
    inputSchema: { url: z.string().min(1).describe("the URL to open (http or https; file: only when the operator allows it)"), tab },
  },
  snapshot: {
    cap: "core",
    description: "The page outline with refs (e3) for the other tools",
    annotations: readOnly("Page outline"),
    inputSchema: { interactive: SHARED.interactive, maxTokens: SHARED.maxTokens, selector: SHARED.snapshotSelector, delta: SHARED.delta, from: SHARED.from, tab },
  },
  screenshot: {
    cap: "core",
    description: "A PNG of the viewport (or the full page), with its scale",
    annotations: readOnly("Screenshot"),
    inputSchema: { fullPage: SHARED.fullPage, maxSize: SHARED.screenshotMaxSize, ifChanged: SHARED.ifChanged, tab },
  },
  tabs: {
    cap: "tabs",
    description: "List, open, select or close tabs (by the number list shows)",
    annotations: acts("Tabs"),
    inputSchema: {
      action: z.enum(["list", "new", "select", "close"]).optional().describe("what to do (default list)"),
      url: z.string().optional().describe("with new: the URL the tab opens (default about:blank)"),
      tab: z.number().int().min(1).optional().describe("with select or close: the tab's number from the list"),
    },
  },
  wait: {
    cap: "core",
    description: "Wait until an element is visible or hidden, text appears, or some time passes",
    annotations: readOnly("Wait"),
    inputSchema: {
      target: target.optional().describe("ref or selector of the element to wait for"),
      state: z.enum(["visible", "hidden"]).optional().describe("with target: wait until it is visible (default) or hidden/gone"),
      text: z.string().min(1).max(10_000).optional().describe("wait until the page's text contains this"),
      time: z.number().int().min(1).max(60_000).optional().describe("wait this many milliseconds"),
      timeout: z.number().int().min(1).max(120_000).optional().describe("give up after this many milliseconds (default 30000)"),
    },
  },
  close: {
    cap: "core",
    description: "Close the browser; the next tool starts a new one",
    annotations: { title: "Close the browser", readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    inputSchema: {},
  },
  resize: {
    cap: "tabs",
    description: "Resize the current tab's viewport",
    annotations: moves("Resize the viewport", true),
    inputSchema: { width: z.number().int().min(100).max(10_000).describe("CSS pixels"), height: z.number().int().min(100).max(10_000).describe("CSS pixels") },
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
  dialog: {
    cap: "forms",
    description: "Answer the page's next dialog (alert, confirm, prompt)",
    annotations: acts("Answer a dialog"),
    inputSchema: { accept: z.boolean().describe("accept (OK) or dismiss (Cancel)"), promptText: z.string().max(10_000).optional().describe("with accept: the text a prompt() returns") },
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
  evaluate: {
    cap: "devtools",
    description: "Evaluate a JavaScript expression in the page and return its value as JSON",
    annotations: acts("Evaluate JavaScript"),
    inputSchema: { expression: z.string().min(1).max(100_000).describe("a JavaScript expression; a promise is awaited") },
  },
  console: {
    cap: "devtools",
    description: "What the current tab logged to its console since the browser started (newest last)",
    annotations: readOnly("Console messages"),
    inputSchema: {
      all: z.boolean().optional().describe("every tab's messages, not only the current tab's"),
      level: z.enum(["log", "info", "warn", "error", "debug"]).optional().describe("only messages of this level"),
      clear: z.boolean().optional().describe("empty the list after reading it"),
    },
  },
  errors: {
    cap: "devtools",
    description: "The uncaught exceptions and unhandled promise rejections of the current tab (newest last)",
    annotations: readOnly("Page errors"),
    inputSchema: {
      all: z.boolean().optional().describe("every tab's errors, not only the current tab's"),
      clear: z.boolean().optional().describe("empty the list after reading it"),
    },
  },
  trace_start: {
    cap: "devtools",
    description: "Start a Chrome performance trace of every tab (trace_stop ends and summarises it)",
    annotations: moves("Start a trace", false),
    inputSchema: { screenshots: z.boolean().optional().describe("also record the current tab's frames (a filmstrip)"), maxSizeMb: SHARED.traceMaxSize },
  },
  trace_stop: {
    cap: "devtools",
    description: "Stop the trace: its file (for DevTools), load timings, long tasks and LCP",
    annotations: moves("Stop the trace", false),
    inputSchema: {},
  },
  pdf: {
    cap: "pdf",
    description: "Print the current tab to PDF (returned as an embedded application/pdf resource)",
    annotations: readOnly("Save as PDF"),
    inputSchema: {
      format: z.enum(["A4", "Letter"]).optional().describe("paper size (default A4)"),
      landscape: z.boolean().optional().describe("landscape orientation"),
    },
  },
  network_requests: {
    cap: "network",
    description: "The current tab's requests, newest last: id, method, status, type, URL, duration",
    annotations: readOnly("Network requests"),
    inputSchema: {
      filter: z.string().min(1).max(1000).optional().describe("only URLs containing this (case-insensitive)"),
      all: z.boolean().optional().describe("every tab's requests, not only the current tab's"),
      clear: z.boolean().optional().describe("empty the list after reading it"),
    },
  },
  network_request: {
    cap: "network",
    description: "One request by id: status, headers and, with body, its response body",
    annotations: readOnly("Network request"),
    inputSchema: {
      id: z.string().regex(NETWORK_REQUEST_ID).describe("the id network_requests shows, e.g. r12"),
      body: z.boolean().optional().describe("include the response body (text; binary bodies as base64), cut past 50 000 characters"),
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
  emulate: {
    cap: "emulation",
    description: "Emulate a device, viewport, location, colour scheme, offline, headers, UA, time zone, locale",
    annotations: moves("Emulate", true),
    inputSchema: {
      device: z.string().min(1).max(64).nullable().optional().describe("a device by Playwright's name (its device list): iPhone 15 Pro, iPhone 13, Pixel 7, Galaxy S24, iPad Mini, Desktop Chrome…"),
      viewport: z.object({ width: z.number().int(), height: z.number().int() }).nullable().optional().describe("the viewport in CSS pixels (wins over the device's size)"),
      geo: z.object({ latitude: z.number(), longitude: z.number(), accuracy: z.number().optional() }).nullable().optional().describe("the position the page's geolocation reports (permission granted)"),
      media: z.enum(["dark", "light"]).nullable().optional().describe("prefers-color-scheme"),
      offline: z.boolean().optional().describe("true: every request of the tabs fails as offline"),
      headers: z.record(z.string(), z.string()).nullable().optional().describe("extra HTTP headers sent with every request"),
      userAgent: z.string().min(1).max(1024).nullable().optional().describe("the user agent (wins over the device's)"),
      timezone: z.string().min(1).max(64).nullable().optional().describe("an IANA time zone, e.g. Europe/Berlin"),
      locale: z.string().min(1).max(35).nullable().optional().describe("a language tag, e.g. de-DE: navigator.language, Intl and Accept-Language"),
      reset: z.boolean().optional().describe("clear every setting first (null clears one); kept for every tab, later ones too, until changed"),
    },
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
  extract: {
    cap: "core",
    description: "Read data from the page: an instruction, optionally a JSON Schema for the result",
    annotations: readOnly("Extract data"),
    inputSchema: {
      instruction: z.string().min(1).describe("what to read, e.g. the article titles"),
      schema: z.record(z.string(), z.unknown()).optional().describe("a JSON Schema the result must fit"),
      selector: SHARED.extractSelector,
    },
  },
  observe: {
    cap: "core",
    description: "List actions possible on the page (for an instruction)",
    annotations: readOnly("Observe actions"),
    inputSchema: { instruction: z.string().optional().describe("what to look for; every actionable element when left out") },
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
