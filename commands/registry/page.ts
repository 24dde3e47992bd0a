/** Navigation, tabs, downloads, dialogs and reading the page: the session's selected tab. */
import { choice, command, list, optionalValue, value } from "./types.js";

const timeout = value("--timeout <ms>", "give up after this many milliseconds (default 30000)");

/** The flags of `svc open` and `svc goto` (commands/page/goto.ts). */
export const GOTO_OPTIONS = {
  timeout,
  waitUntil: choice("--wait-until <state>", "when the navigation is done: load (default), domcontentloaded or networkidle", ["load", "domcontentloaded", "networkidle"]),
} as const;

const navigation = (name: "open" | "goto", description: string, examples: readonly string[]) =>
  command({
    name,
    args: "<url>",
    description,
    options: GOTO_OPTIONS,
    examples,
    hosted: name === "goto",
    mcpTool: "navigate",
    run: async (c, [url], o) => (await import("../page/goto.js")).goto(c.globals, url as string, o, name),
  });

export const PAGE_COMMANDS = [
  navigation("open", "open URL in the live session's selected tab, starting a session (configured defaults) when none is live; same as goto", ["svc open https://example.com", "svc open localhost:3000 && svc snapshot -i"]),
  navigation(
    "goto",
    "navigate the session's selected tab, starting a session when none is live (localhost:3000/x means http://localhost:3000/x); a 4xx/5xx page still loads (exit 0) and says its status",
    ["svc goto https://example.com", "svc goto localhost:3000/login --wait-until networkidle"],
  ),
  command({
    name: "tabs",
    args: "[action] [arg]",
    usage: "[list | new [URL] | select N | close [N]]",
    description: "list, open, select or close the session's tabs; tab numbers stay put when another tab closes, and later commands drive the selected tab",
    examples: ["svc tabs", "svc tabs new https://example.com"],
    hosted: true,
    mcpTool: "tabs",
    run: async (c, [action, arg]) => (await import("../page/tabs.js")).tabs(c.globals, action as string | undefined, arg as string | undefined),
  }),
  // Downloads and dialogs of the session (commands/page/downloads.ts, dialog.ts; --downloads/--dialog are global).
  command({
    name: "downloads",
    description: "list the session's downloads (name, size, state, when, URL); they are saved in its download folder (--downloads on sessions start)",
    examples: ["svc downloads", "svc --json downloads"],
    run: async (c) => (await import("../page/downloads.js")).downloads(c.globals),
  }),
  command({
    name: "dialog",
    args: "<action> [text]",
    usage: "accept [text] | dismiss",
    description: "answer the session's JavaScript dialog: the one open now, else the next one (a prompt() accepted returns TEXT)",
    examples: ['svc dialog accept "Ada"', "svc dialog dismiss"],
    run: async (c, [action, text]) => (await import("../page/dialog.js")).dialog(c.globals, action as string, text as string | undefined),
  }),
  command({
    name: "get",
    args: "<what> [args...]",
    usage: "text|value|attr NAME|url|title|html|count|box|styles [ref|selector]",
    description:
      "print the page's url or title, or an element's text, value, attribute, outerHTML (html), box ({x, y, width, height}, CSS px, viewport) or computed styles; count: how many elements a selector matches (text without a target: the page's)",
    options: { prop: list("--prop <name>", "get styles: only this CSS property (repeatable; default: display, visibility, position, size, colours, font and a few more)") },
    examples: ["svc get title", "svc get value e1", 'svc get count "li.item"', "svc get styles e3 --prop color"],
    hosted: true,
    run: async (c, [what, args], o) => (await import("../page/get.js")).get(c.globals, what as string, (args as string[] | undefined) ?? [], o),
  }),
];
