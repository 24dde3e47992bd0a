/**
 * The current tab printed to PDF (Page.printToPDF, which only headless Chrome does), read as a stream and bounded:
 * `svc pdf FILE` writes it (atomically, the CLI door's output file), the MCP tool embeds it as an application/pdf
 * resource. Each door has its own bound, since an MCP client carries the PDF in its context as base64.
 */
import { z } from "zod";
import { ServiceInvalidArgumentError } from "../errors.js";
import { type Capability, capability, type Door, readOnly } from "./declare.js";

/** The largest PDF each door returns (docs/cli.md, docs/mcp.md): refused, never cut. */
export const MAX_PDF_BYTES: Readonly<Record<Door, number>> = { cli: 100 * 1024 * 1024, mcp: 20 * 1024 * 1024 };

const PAPERS = ["A4", "Letter"] as const;

export const pdf = capability({
  name: "pdf",
  description: "Print the current tab to PDF (returned as an embedded application/pdf resource)",
  input: {
    format: z
      .enum(PAPERS, { error: (iss) => `must be A4 or Letter, got ${JSON.stringify(iss.input)}` })
      .optional()
      .describe("paper size: A4 (default) or Letter"),
    landscape: z.boolean().optional().describe("landscape orientation"),
    file: z.string().min(1).max(4096).optional().describe("the PDF file to write (atomically: a failure leaves none)"),
  },
  only: { file: { door: "cli", why: "a file on the CLI's machine; the MCP tool answers with the PDF as an embedded resource" } },
  mcp: { cap: "pdf", annotations: readOnly("Save as PDF") },
  cli: {
    verb: "pdf",
    args: "<file>",
    output: { property: "file" },
    description: "print the selected tab to a PDF file (headless sessions only; written atomically)",
    examples: ["svc pdf page.pdf", "svc pdf page.pdf --format Letter --landscape"],
    hosted: true,
  },
  run: async (ctx, i) => {
    const headed = ctx.headed();
    if (headed) {
      const hint = ctx.door === "cli" ? "svc sessions start (headless is the default), then svc pdf FILE" : "svc mcp without --headed";
      throw new ServiceInvalidArgumentError(`${headed} shows its window (--headed): Chrome prints PDFs only when headless`, { hint });
    }
    const page = await ctx.page();
    const { printPdf } = await import("../internal.js");
    const format = i.format ?? "A4";
    const landscape = i.landscape === true;
    const bytes = await printPdf(page, { format, landscape, maxBytes: MAX_PDF_BYTES[ctx.door] });
    const url = page.url();
    ctx.note({ method: "pdf", parameters: { format, landscape }, result: { ...(i.file !== undefined ? { path: i.file } : {}), bytes: bytes.length } });
    return {
      kind: "report",
      text: `PDF of ${url}: ${bytes.length} bytes, ${format}${landscape ? " landscape" : ""}`,
      data: { url, format, landscape, bytes: bytes.length },
      file: { bytes, replaces: "bytes" },
      resource: { bytes, mimeType: "application/pdf", uri: `svc://pdf/${Date.now()}.pdf` },
    };
  },
});

export const PDF_CAPABILITIES: readonly Capability[] = [pdf] as readonly Capability[];
