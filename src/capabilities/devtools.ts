/**
 * What a developer reads of the pages: what they logged (console) and threw (errors), as the door recorded them
 * (the session host's files on the CLI, the MCP server's recorder), the current tab's unless every tab's is asked.
 */
import { z } from "zod";
import { type Capability, type CapabilityContext, capability, readOnly, type Report } from "./declare.js";

/** The most entries one listing's text shows (the newest): a model's context is the budget. `--json` has every one. */
export const PAGE_LOG_MAX_LINES = 200;

const ALL = z.boolean().optional().describe("every tab's entries, not only the current tab's");
const CLEAR = z.boolean().optional().describe("empty the log (every tab's) after listing it");
const LEVEL = z.enum(["log", "info", "warn", "error", "debug"]).optional().describe("only messages of this level");

type Kind = "console" | "errors";

async function listed(ctx: CapabilityContext, kind: Kind, i: { all?: boolean | undefined; clear?: boolean | undefined; level?: string | undefined }): Promise<Report> {
  const { pageLogLine } = await import("../internal.js");
  const log = await ctx.pageLog(kind);
  const current = i.all ? undefined : (await ctx.page()).targetId;
  const entries = log.entries.filter((e) => (current === undefined || e.target === current) && (i.level === undefined || ("level" in e && e.level === i.level)));
  if (i.clear) log.clear();
  // What the CLI's host keeps for itself (when it received an entry, Chrome's exception id) stays out of the data.
  const rows = entries.map(({ received: _r, ...e }) => {
    const { exceptionId: _x, ...row } = e as typeof e & { exceptionId?: number };
    return { ...row, tab: log.tabOf(e.target) ?? null };
  });
  const what = kind === "console" ? "console messages" : "errors";
  const shown = entries.slice(-PAGE_LOG_MAX_LINES);
  const cli = ctx.door === "cli";
  const lines = [
    ...(entries.length > shown.length ? [`${entries.length - shown.length} older ${what} not shown`] : []),
    ...shown.map((e) => ctx.svc.secrets.text(pageLogLine(kind, e, log.tabOf(e.target)))),
  ];
  if (lines.length === 0) lines.push(`no ${what}${current === undefined ? "" : cli ? " in the selected tab (--all: every tab)" : " in the current tab"}`);
  if (i.clear) lines.push("cleared");
  const tab = current === undefined ? "all" : (log.tabOf(current) ?? null);
  return { kind: "report", text: lines.join("\n"), data: { tab, [kind]: rows, ...(i.clear ? { cleared: true } : {}) } };
}

export const consoleMessages = capability({
  name: "console",
  description: "What the current tab logged to its console since the browser started (newest last)",
  input: { all: ALL, level: LEVEL, clear: CLEAR },
  mcp: { cap: "devtools", annotations: readOnly("Console messages") },
  cli: {
    verb: "console",
    args: "",
    description: "list what the session's pages logged (console.log/warn/error…: level, text, url:line, time, tab) since it started, between commands too",
    examples: ["svc console", "svc --json console --all", "svc console --level error", "svc console --clear"],
    hosted: true,
  },
  run: (ctx, i) => listed(ctx, "console", i),
});

export const pageErrors = capability({
  name: "errors",
  description: "The uncaught exceptions and unhandled promise rejections of the current tab (newest last)",
  input: { all: ALL, clear: CLEAR },
  mcp: { cap: "devtools", annotations: readOnly("Page errors") },
  cli: {
    verb: "errors",
    args: "",
    description: "list what the session's pages threw (uncaught exceptions and unhandled rejections: message, first stack frames, url) since it started",
    examples: ["svc errors", "svc --json errors --all", "svc errors --clear"],
    hosted: true,
  },
  run: (ctx, i) => listed(ctx, "errors", i),
});

export const DEVTOOLS_CAPABILITIES: readonly Capability[] = [consoleMessages, pageErrors] as readonly Capability[];
