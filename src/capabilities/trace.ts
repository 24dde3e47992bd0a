/**
 * A Chrome performance trace of every tab, one at a time: started, then stopped into a file DevTools' Performance
 * panel opens, with a summary read from that file (load timings, long tasks, LCP). Each door holds the trace its own
 * way (`ctx.trace()`: the CLI session's host, MCP's browser); the checks, the categories and the report are here.
 */
import { z } from "zod";
import { TRACE_MAX_SIZE_MB as MB, traceMaxSizeExpected } from "../util/trace-limits.js";
import { type Capability, capability, moves, type Report } from "./declare.js";

/** The most categories a trace records, and the longest name (or pattern) of one. */
const MAX_CATEGORIES = 100;
const MAX_CATEGORY_CHARS = 200;

/** `a,b,-c` as its categories (a string says what is wrong; `spell` names the property as the door does). */
function categoryList(raw: string, field: string): string[] | string {
  const categories = raw.split(",").map((c) => c.trim()).filter(Boolean);
  if (!categories.length || categories.length > MAX_CATEGORIES) return `invalid ${field}: expected 1 to ${MAX_CATEGORIES} comma-separated category names`;
  const pattern = new RegExp(`^-?[A-Za-z0-9_.*:-]{1,${MAX_CATEGORY_CHARS}}$`);
  const wrong = categories.find((c) => !pattern.test(c));
  return wrong === undefined ? categories : `invalid ${field}: ${JSON.stringify(wrong.slice(0, 60))} is not a category name`;
}

const maxSize = (iss: { input?: unknown }) => traceMaxSizeExpected(iss.input);

export const traceStart = capability({
  name: "trace_start",
  description: "Start a Chrome performance trace of every tab (trace_stop ends and summarises it)",
  // The CLI's trace is its session host's; it attaches no page.
  needs: "session",
  input: {
    screenshots: z.boolean().optional().describe("also record screenshots of the current tab's frames (the filmstrip); the trace is then held on that tab, and closing it loses the trace"),
    categories: z
      .string()
      .max(MAX_CATEGORIES * (MAX_CATEGORY_CHARS + 2))
      .optional()
      .describe("the trace categories to record instead of the Performance panel's, comma-separated (-x excludes x; at most 100)"),
    maxSizeMb: z
      .number({ error: maxSize })
      .int({ error: maxSize })
      .min(MB.min, { error: maxSize })
      .max(MB.max, { error: maxSize })
      .optional()
      .describe(`the trace file's bound in MB, ${MB.min}–${MB.max} (default ${MB.default}): later events are left out, and the stop says how many`),
  },
  mcp: { cap: "devtools", annotations: moves("Start a trace", false) },
  cli: {
    verb: "trace start",
    args: "",
    flags: { categories: "--categories <list>", maxSizeMb: "--max-size <MB>" },
    description: "start recording a Chrome trace of every tab of the session (one at a time; it ends with the session if never stopped)",
    examples: ["svc trace start", "svc trace start --screenshots", "svc trace start --max-size 20", "svc trace start --categories devtools.timeline,toplevel,blink.user_timing"],
    hosted: true,
  },
  check: (i, name) => {
    const list = i.categories === undefined ? [] : categoryList(i.categories, name("categories"));
    return typeof list === "string" ? list : undefined;
  },
  run: async (ctx, i): Promise<Report> => {
    const { DEFAULT_TRACE_CATEGORIES, SCREENSHOT_CATEGORY } = await import("../internal.js");
    const categories = i.categories === undefined ? [...DEFAULT_TRACE_CATEGORIES] : (categoryList(i.categories, ctx.spell("categories")) as string[]);
    if (i.screenshots && !categories.includes(SCREENSHOT_CATEGORY)) categories.push(SCREENSHOT_CATEGORY);
    const trace = await ctx.trace();
    const started = await trace.start(categories, i.screenshots === true, i.maxSizeMb ?? MB.default);
    const recorded = started.categories.filter((c) => !c.startsWith("-")).length;
    // Each door names how its trace is stopped; the CLI also the session, whose host holds it.
    const text =
      ctx.door === "cli"
        ? `tracing ${trace.scope} (${recorded} categories, at most ${started.maxSizeMb} MB); svc trace stop FILE writes it`
        : `tracing${i.screenshots ? " with screenshots of the current tab" : " every tab"} (at most ${started.maxSizeMb} MB); trace_stop ends it`;
    return { kind: "report", text, data: { tracing: true, categories: started.categories, maxSizeMb: started.maxSizeMb } };
  },
});

const FILE_ONLY = { door: "cli", why: "a file on the CLI's machine, named by its user; the MCP server writes a new file in its own temp folder and names it" } as const;

export const traceStop = capability({
  name: "trace_stop",
  description: "Stop the trace: its file (for DevTools), load timings, long tasks and LCP",
  needs: "session",
  input: {
    file: z.string().min(1).max(4096).optional().describe("where to write the trace: JSON with traceEvents, which DevTools' Performance panel opens"),
  },
  only: { file: FILE_ONLY },
  mcp: { cap: "devtools", annotations: moves("Stop the trace", false) },
  cli: {
    verb: "trace stop",
    args: "<file>",
    // Checked before the stop; the door's host writes it (atomically), so the report carries no bytes.
    output: { property: "file" },
    description: "stop the trace and write it to FILE (JSON with traceEvents: open it in DevTools' Performance panel); prints load timings, long tasks and the largest contentful paint",
    examples: ["svc trace stop trace.json", "svc --json trace stop trace.json"],
    hosted: true,
  },
  run: async (ctx, i): Promise<Report> => {
    const { boundWords, summaryLines, summarizeTraceFile } = await import("../internal.js");
    const written = await (await ctx.trace()).stop(i.file);
    // The file is written whatever its summary: one that cannot be read says why, and the path stays the answer.
    let summary: Awaited<ReturnType<typeof summarizeTraceFile>> | undefined;
    let why: string | undefined;
    try {
      summary = await summarizeTraceFile(written.path);
    } catch (e) {
      why = `the trace could not be read: ${(e as Error).message}`;
    }
    const bound = boundWords(written);
    const sizes = `${written.bytes} bytes${written.dataLoss ? "; Chrome's buffer filled: the later events are missing" : ""}${bound ? `; ${bound}` : ""}`;
    // A file the user named is "wrote FILE"; one the MCP server chose is named for the client to open.
    const head = i.file !== undefined ? `wrote ${written.path} (${sizes})` : `trace saved: ${written.path} (${sizes}; open it in the DevTools Performance panel)`;
    const { path, bytes, dataLoss, maxBytes, boundHit, droppedEvents, droppedBytes, startedAt } = written;
    return {
      kind: "report",
      text: [head, ...(summary ? summaryLines(summary) : [`no summary: ${why}`])].join("\n"),
      data: { file: path, bytes, dataLoss, maxBytes, boundHit, droppedEvents, droppedBytes, startedAt, summary: summary ?? null, ...(why ? { summaryError: why } : {}) },
    };
  },
});

export const TRACE_CAPABILITIES: readonly Capability[] = [traceStart, traceStop] as readonly Capability[];
