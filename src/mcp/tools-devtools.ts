/**
 * The MCP tools for what a developer looks at, each on the library's own recorder so they match the CLI: console and
 * page errors (ConsoleRecorder, as `svc console` / `svc errors`), the page as a PDF, a performance trace (BrowserTrace,
 * as `svc trace`). Lists keep their newest MAX_LINES entries: the client's
 * context is the budget.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ConsoleEntry, DEFAULT_TRACE_CATEGORIES, type ErrorEntry, type PageLogKind, SCREENSHOT_CATEGORY, boundWords, pageLogLine, printPdf, summarizeTraceFile, summaryLines } from "../internal.js";
import { ServiceInvalidArgumentError } from "../index.js";
import { type McpBrowser, type ToolResult, textResult } from "./browser.js";
import { type Registrar, registerDeclared } from "./register.js";

/** The most entries one `console` or `errors` result lists. */
const MAX_LINES = 200;
/** The largest PDF the `pdf` tool returns. */
const MAX_PDF_BYTES = 20 * 1024 * 1024;

async function listed(b: McpBrowser, kind: PageLogKind, options: { all?: boolean | undefined; clear?: boolean | undefined; level?: string | undefined }): Promise<ToolResult> {
  const svc = await b.service();
  const current = svc.page.targetId;
  const tabOf = (target: string) => {
    const page = svc.context.pages().find((p) => p.targetId === target);
    return page ? b.tabNumber(page) : undefined;
  };
  const entries = (b.pageLog.entries(kind) as Array<ConsoleEntry | ErrorEntry>).filter(
    (e) => (options.all || e.target === current) && (options.level === undefined || (e as ConsoleEntry).level === options.level),
  );
  if (options.clear) b.pageLog.clear(kind);
  const what = kind === "console" ? "console messages" : "errors";
  if (entries.length === 0) return textResult(`no ${what}${options.all ? "" : " in the current tab"}${options.clear ? " (cleared)" : ""}`);
  const shown = entries.slice(-MAX_LINES);
  const lines = shown.map((e) => svc.secrets.text(pageLogLine(kind, e, tabOf(e.target))));
  const head = entries.length > shown.length ? [`${entries.length - shown.length} older ${what} not shown`] : [];
  return textResult([...head, ...lines, ...(options.clear ? ["cleared"] : [])].join("\n"));
}

export function registerDevtoolsTools(reg: Registrar, b: McpBrowser): void {
  registerDeclared(reg, "console", ({ all, level, clear }) => b.run(() => listed(b, "console", { all, level, clear })));
  registerDeclared(reg, "errors", ({ all, clear }) => b.run(() => listed(b, "errors", { all, clear })));
  registerDeclared(reg, "pdf", ({ format, landscape }) =>
    b.run(async (): Promise<ToolResult> => {
      const svc = await b.service();
      const data = await printPdf(svc.page, { format, landscape, maxBytes: MAX_PDF_BYTES });
      return {
        content: [
          { type: "text", text: `PDF of ${svc.page.url()}: ${data.length} bytes, ${format ?? "A4"}${landscape ? " landscape" : ""}` },
          { type: "resource", resource: { uri: `svc://pdf/${Date.now()}.pdf`, mimeType: "application/pdf", blob: data.toString("base64") } },
        ],
      };
    }),
  );
}

/** Where trace_stop saves traces: one folder per server process, kept (a trace is what the user asked for). */
let traceDir: string | undefined;

export function registerTraceTools(reg: Registrar, b: McpBrowser): void {
  registerDeclared(reg, "trace_start", ({ screenshots, maxSizeMb }) =>
    b.run(async () => {
      const trace = await b.trace();
      const svc = await b.service();
      const categories = screenshots ? [...DEFAULT_TRACE_CATEGORIES, SCREENSHOT_CATEGORY] : [...DEFAULT_TRACE_CATEGORIES];
      const started = await trace.start(categories, screenshots ? { target: svc.page.targetId } : undefined, maxSizeMb);
      return textResult(`tracing${screenshots ? " with screenshots of the current tab" : " every tab"} (at most ${started.maxSizeMb} MB); trace_stop ends it`);
    }),
  );
  registerDeclared(reg, "trace_stop", () =>
    b.run(async () => {
      const trace = await b.trace();
      traceDir ??= mkdtempSync(join(tmpdir(), "svc-mcp-traces-"));
      const written = await trace.stop(join(traceDir, `trace-${new Date().toISOString().replace(/[:.]/g, "-")}.json`));
      const summary = await summarizeTraceFile(written.path);
      const bound = boundWords(written);
      return textResult([`trace saved: ${written.path} (${written.bytes} bytes${written.dataLoss ? "; Chrome's buffer filled, later events are missing" : ""}${bound ? `; ${bound}` : ""}; open it in the DevTools Performance panel)`, ...summaryLines(summary)].join("\n"));
    }),
  );
}
