/**
 * The MCP tools for what a developer looks at, each on the library's own recorder so they match the CLI: the page as
 * a PDF, a performance trace (BrowserTrace, as `svc trace`) and emulation (PageEmulation, as `svc set`). Console and
 * errors are capabilities (src/capabilities/devtools.ts).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_TRACE_CATEGORIES, SCREENSHOT_CATEGORY, boundWords, checkEmulation, deviceByName, printPdf, summarizeTraceFile, summaryLines } from "../internal.js";
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

/** The settings an `emulate` call gave; null clears one. */
type EmulateArgs = Partial<Record<"device" | "viewport" | "geo" | "media" | "headers" | "userAgent" | "timezone" | "locale", unknown>> & { offline?: boolean | undefined; reset?: boolean | undefined };

/** What the page reports of the settings: read after they are applied. */
const PAGE_VIEW = `({ screen: screen.width + "x" + screen.height, viewport: innerWidth + "x" + innerHeight, scale: devicePixelRatio, touch: navigator.maxTouchPoints > 0, userAgent: navigator.userAgent,
  language: navigator.language, timezone: Intl.DateTimeFormat().resolvedOptions().timeZone, dark: matchMedia("(prefers-color-scheme: dark)").matches, online: navigator.onLine })`;

export function registerEmulationTool(reg: Registrar, b: McpBrowser): void {
  registerDeclared(reg, "emulate", (args) =>
    b.run(async () => {
      const a = args as EmulateArgs;
      const emulation = await b.emulation();
      const next: Record<string, unknown> = a.reset ? {} : { ...emulation.current };
      for (const [k, v] of Object.entries(a)) {
        if (k === "reset" || v === undefined) continue;
        if (v === null || (k === "offline" && v === false)) delete next[k];
        else if (k === "device") next.device = deviceByName("device", String(v));
        else next[k] = v;
      }
      const applied = await emulation.set(checkEmulation(next));
      if (applied.failed > 0 && applied.pages === 0) throw new ServiceInvalidArgumentError(`no tab took the settings: ${applied.error ?? "unknown error"}`);
      const svc = await b.service();
      const seen = await svc.page.evaluate<Record<string, unknown>>(PAGE_VIEW);
      const settings = Object.keys(emulation.current);
      return textResult(
        `${settings.length ? `emulating ${settings.join(", ")}` : "emulating nothing"} in ${applied.pages} tab${applied.pages === 1 ? "" : "s"}${applied.failed ? ` (${applied.failed} failed: ${applied.error})` : ""}\nthe current tab reports: ${JSON.stringify(seen)}`,
      );
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
