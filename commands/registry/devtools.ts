/** What DevTools shows of a session's pages: a PDF of the selected tab; console, errors, screenshots and the trace are capabilities (src/capabilities/). */
import { choice, command, flag, type GroupDecl } from "./types.js";

/** The group of `svc trace start|stop` (src/capabilities/trace.ts). */
export const TRACE_GROUP: GroupDecl = { name: "trace", description: "record a Chrome performance trace of the session (DevTools Performance panel)" };

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
