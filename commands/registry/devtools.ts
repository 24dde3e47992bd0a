/** What DevTools shows of a session's pages: PDF and screenshots (the selected tab); console and errors are capabilities (src/capabilities/devtools.ts). */
import { SHARED_DESCRIPTIONS as SHARED } from "../../src/mcp/descriptions.js";
import { ONE_SHOT, choice, command, flag, value } from "./types.js";

/** The flags of `svc screenshot` (commands/screenshot.ts). */
export const SCREENSHOT_OPTIONS = {
  output: value("-o, --output <file>", "where to write the picture (default: screenshot-<time>.png or .jpeg in the current folder)"),
  fullPage: flag("--full-page", SHARED.fullPage),
  format: choice("--format <format>", "png (default) or jpeg", ["png", "jpeg"]),
  quality: value("--quality <n>", "JPEG quality, 0–100 (default 80; only with --format jpeg)"),
  maxSize: value("--max-size <px>", SHARED.screenshotMaxSize),
  ifChanged: flag("--if-changed", SHARED.ifChanged),
  annotate: flag("--annotate", "draw each interactive ref of a fresh snapshot (svc snapshot -i) as a box labelled with its ref; the page is left as it was"),
  ...ONE_SHOT,
} as const;

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
    run: async (c, [file], o) => (await import("../pdf.js")).pdf(c.globals, file as string, o),
  }),
  command({
    name: "screenshot",
    args: "[url]",
    description: "save a PNG (or JPEG) of the page and print its path; with a URL, on the current live session (a one-shot browser when there is none, or with --new)",
    options: SCREENSHOT_OPTIONS,
    examples: ["svc screenshot -o page.png", "svc screenshot https://example.com -o page.png --full-page", "svc screenshot --format jpeg --quality 60 -o page.jpeg", "svc screenshot --annotate -o refs.png", "svc screenshot --full-page --max-size 0 -o full.png", "svc screenshot --if-changed -o page.png"],
    hosted: true,
    hostedBare: true,
    mcpTool: "screenshot",
    run: async (c, [url], o) => (await import("../screenshot.js")).screenshot(c.globals, url as string | undefined, o),
  }),
];
