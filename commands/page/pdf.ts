/**
 * `svc pdf FILE [--format A4|Letter] [--landscape]`: the selected tab printed to PDF (Page.printToPDF, which
 * only headless Chrome does), read as a stream and bounded (MAX_PDF_BYTES), then written atomically: a
 * failure leaves no file, and never a half-written one.
 */
import { ServiceInvalidArgumentError, isCloud } from "../../src/base.js";
import { PAPER, type PaperFormat, printPdf } from "../../src/internal.js";
import type { GlobalOptions } from "../core/output.js";
import { checkOutputPath, writeOutputFile } from "../core/output-file.js";
import { withSession } from "../core/runtime.js";

export interface PdfFlags {
  format?: string;
  landscape?: boolean;
}

/** The largest PDF svc writes. */
export const MAX_PDF_BYTES = 100 * 1024 * 1024;

export async function pdf(g: GlobalOptions, file: string, flags: PdfFlags): Promise<void> {
  if (!Object.hasOwn(PAPER, flags.format ?? "A4")) throw new ServiceInvalidArgumentError(`--format must be A4 or Letter, got "${flags.format}"`);
  const path = checkOutputPath(file);
  await withSession(g, async ({ svc, out, session, note }) => {
    if (session && !isCloud(session) && !session.headless) {
      throw new ServiceInvalidArgumentError(`session ${session.id} shows its window (--headed): Chrome prints PDFs only when headless`, { hint: "svc sessions start (headless is the default), then svc pdf FILE" });
    }
    const page = svc.page;
    const data = await printPdf(page, { format: (flags.format ?? "A4") as PaperFormat, landscape: !!flags.landscape, maxBytes: MAX_PDF_BYTES });
    writeOutputFile(path, data);
    const result = { url: page.url(), path, format: flags.format ?? "A4", landscape: !!flags.landscape, bytes: data.length };
    note({ method: "pdf", parameters: { format: result.format, landscape: result.landscape }, result: { path, bytes: data.length } });
    out.result({ ...(session ? { session: session.id } : {}), ...result }, () => path);
  });
}
