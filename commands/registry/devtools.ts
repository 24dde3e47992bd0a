/** What DevTools shows of a session's pages: console, errors, PDF and screenshots (the selected tab). */
import { choice, command, flag } from "./types.js";

const pageLog = (kind: "console" | "errors", description: string) =>
  command({
    name: kind,
    description,
    options: {
      clear: flag("--clear", "empty the session's buffer (every tab's) after listing it"),
      all: flag("--all", "every tab's entries, not only the selected tab's"),
    },
    examples: [`svc ${kind}`, `svc --json ${kind} --all`, `svc ${kind} --clear`],
    hosted: true,
    run: async (c, _a, o) => (await import("../devtools/console.js")).pageLog(c.globals, kind, o),
  });

export const DEVTOOLS_COMMANDS = [
  pageLog("console", "list what the session's pages logged (console.log/warn/error…: level, text, url:line, time, tab) since it started, between commands too"),
  pageLog("errors", "list what the session's pages threw (uncaught exceptions and unhandled rejections: message, first stack frames, url) since it started"),
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
