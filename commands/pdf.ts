/**
 * `svc pdf FILE [--format A4|Letter] [--landscape]`: the selected tab printed to PDF (Page.printToPDF, which
 * only headless Chrome does), read as a stream and bounded (MAX_PDF_BYTES), then written atomically: a
 * failure leaves no file, and never a half-written one.
 */
import { ServiceInvalidArgumentError, isCloud } from "../src/base.js";
import type { GlobalOptions } from "./output.js";
import { checkOutputPath, writeOutputFile } from "./output-file.js";
import { withSession } from "./runtime.js";

export interface PdfFlags {
  format?: string;
  landscape?: boolean;
}

/** The largest PDF svc writes. */
export const MAX_PDF_BYTES = 100 * 1024 * 1024;

/** Paper sizes in inches (what printToPDF takes). */
const PAPER = { A4: { width: 8.27, height: 11.69 }, Letter: { width: 8.5, height: 11 } } as const;

export async function pdf(g: GlobalOptions, file: string, flags: PdfFlags): Promise<void> {
  const paper = PAPER[(flags.format ?? "A4") as keyof typeof PAPER];
  if (!paper) throw new ServiceInvalidArgumentError(`--format must be A4 or Letter, got "${flags.format}"`);
  const path = checkOutputPath(file);
  await withSession(g, async ({ svc, out, session, note }) => {
    if (session && !isCloud(session) && !session.headless) {
      throw new ServiceInvalidArgumentError(`session ${session.id} shows its window (--headed): Chrome prints PDFs only when headless`, { hint: "svc sessions start (headless is the default), then svc pdf FILE" });
    }
    const page = svc.page;
    const cdp = page.mainSession;
    const { stream } = await cdp.send("Page.printToPDF", {
      landscape: !!flags.landscape,
      printBackground: true,
      paperWidth: paper.width,
      paperHeight: paper.height,
      transferMode: "ReturnAsStream",
    });
    if (!stream) throw new ServiceInvalidArgumentError("Chrome returned no PDF stream");
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for (;;) {
        const r = await cdp.send("IO.read", { handle: stream, size: 1 << 20 });
        const chunk = Buffer.from(r.data, r.base64Encoded ? "base64" : "utf8");
        size += chunk.length;
        if (size > MAX_PDF_BYTES) throw new ServiceInvalidArgumentError(`the PDF is larger than ${MAX_PDF_BYTES} bytes: not written`, { hint: "print a shorter page" });
        chunks.push(chunk);
        if (r.eof) break;
      }
    } finally {
      await cdp.send("IO.close", { handle: stream }).catch(() => {});
    }
    const data = Buffer.concat(chunks);
    if (data.subarray(0, 5).toString("latin1") !== "%PDF-") throw new ServiceInvalidArgumentError("Chrome's answer is not a PDF: not written");
    writeOutputFile(path, data);
    const result = { url: page.url(), path, format: flags.format ?? "A4", landscape: !!flags.landscape, bytes: data.length };
    note({ method: "pdf", parameters: { format: result.format, landscape: result.landscape }, result: { path, bytes: data.length } });
    out.result({ ...(session ? { session: session.id } : {}), ...result }, () => path);
  });
}
