/** Downloads and reading the page: the session's selected tab (navigation, waits, tabs, snapshots and dialogs are capabilities, src/capabilities/). */
import { command, list } from "./types.js";

export const PAGE_COMMANDS = [
  command({
    name: "downloads",
    description: "list the session's downloads (name, size, state, when, URL); they are saved in its download folder (--downloads on sessions start)",
    examples: ["svc downloads", "svc --json downloads"],
    run: async (c) => (await import("../page/downloads.js")).downloads(c.globals),
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
