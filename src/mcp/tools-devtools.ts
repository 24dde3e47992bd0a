/**
 * The MCP tools for what a developer looks at, each on the library's own recorder so they match the CLI: the page as
 * a PDF and a performance trace (BrowserTrace, as `svc trace`). Console, errors and emulation are capabilities
 * (src/capabilities/).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_TRACE_CATEGORIES, SCREENSHOT_CATEGORY, boundWords, printPdf, summarizeTraceFile, summaryLines } from "../internal.js";
import { ServiceInvalidArgumentError } from "../index.js";
import { type McpBrowser, type ToolResult, textResult } from "./browser.js";
import { type Registrar, registerDeclared } from "./register.js";

/** The largest PDF the `pdf` tool returns. */
const MAX_PDF_BYTES = 20 * 1024 * 1024;

export function registerDevtoolsTools(reg: Registrar, b: McpBrowser): void {
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
