/**
 * The MCP tools for what a developer looks at, on the library's own recorder so they match the CLI: a performance
 * trace (BrowserTrace, as `svc trace`). Console, errors, emulation and the page as a PDF are capabilities
 * (src/capabilities/).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_TRACE_CATEGORIES, SCREENSHOT_CATEGORY, boundWords, summarizeTraceFile, summaryLines } from "../internal.js";
import { ServiceInvalidArgumentError } from "../index.js";
import { type McpBrowser, type ToolResult, textResult } from "./browser.js";
import { type Registrar, registerDeclared } from "./register.js";

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
