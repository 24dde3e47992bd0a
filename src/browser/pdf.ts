/**
 * A page printed to PDF (Page.printToPDF, which only headless Chrome does), read as a stream and bounded:
 * a PDF larger than `maxBytes` is refused, never cut. Used by `svc pdf` and the MCP `pdf` tool.
 */
import { ServiceInvalidArgumentError } from "../errors.js";
import type { Page } from "./page.js";

/** Paper sizes in inches (what printToPDF takes). */
export const PAPER = { A4: { width: 8.27, height: 11.69 }, Letter: { width: 8.5, height: 11 } } as const;
export type PaperFormat = keyof typeof PAPER;

export interface PdfOptions {
  format?: PaperFormat;
  landscape?: boolean;
  /** The largest PDF accepted (bytes). */
  maxBytes: number;
}

/** The page's PDF (starts with `%PDF-`). */
export async function printPdf(page: Page, options: PdfOptions): Promise<Buffer> {
  const paper = PAPER[options.format ?? "A4"];
  const cdp = page.mainSession;
  const { stream } = await cdp.send("Page.printToPDF", {
    landscape: !!options.landscape,
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
      if (size > options.maxBytes) throw new ServiceInvalidArgumentError(`the PDF is larger than ${options.maxBytes} bytes`, { hint: "print a shorter page" });
      chunks.push(chunk);
      if (r.eof) break;
    }
  } finally {
    await cdp.send("IO.close", { handle: stream }).catch(() => {});
  }
  const data = Buffer.concat(chunks);
  if (data.subarray(0, 5).toString("latin1") !== "%PDF-") throw new ServiceInvalidArgumentError("Chrome's answer is not a PDF");
  return data;
}
