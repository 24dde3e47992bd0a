/** What DevTools shows of a session's pages: a PDF of the selected tab; console, errors and screenshots are capabilities (src/capabilities/). */
import { choice, command, flag } from "./types.js";

export const DEVTOOLS_COMMANDS = [
  command({
    name: "pdf",
    args: "<file>",
    description: "print the selected tab to a PDF file (headless sessions only; written atomically)",
    options: {
      format: choice("--format <paper>", "paper size: A4 (default) or Letter", ["A4", "Letter"]),
      landscape: flag("--landscape", "landscape orientation"),
    },
    examples: ["svc pdf page.pdf", "svc pdf page.pdf --format Letter --landscape"],
    hosted: true,
    run: async (c, [file], o) => (await import("../page/pdf.js")).pdf(c.globals, file as string, o),
  }),
];
