/**
 * The MCP tool for what a developer looks at not yet declared as a capability: the page as a PDF. Console, errors,
 * the trace and emulation are capabilities (src/capabilities/).
 */
import { printPdf } from "../internal.js";
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
