/** Waits, downloads, dialogs and reading the page: the session's selected tab (goto, open and tabs are capabilities, src/capabilities/). */
import { SHARED_DESCRIPTIONS as SHARED } from "../../src/mcp/descriptions.js";
import { choice, command, flag, list, optionalValue, value } from "./types.js";

const timeout = value("--timeout <ms>", "give up after this many milliseconds (default 30000)");

/** The flags of `svc wait` (commands/wait.ts). */
export const WAIT_OPTIONS = {
  text: value("--text <text>", "wait until the page's text contains this"),
  url: value("--url <pattern>", "wait until the URL matches (* any but /, ** anything; no * means contains)"),
  load: optionalValue("--load [state]", "wait until the page reached load (default), domcontentloaded or networkidle"),
  fn: value("--fn <js>", "wait until this JavaScript expression is truthy in the page (a promise is awaited)"),
  state: choice("--state <state>", "with a target: wait until it is visible (default), hidden, attached or detached", ["visible", "hidden", "attached", "detached"]),
  timeout,
} as const;

/** The flags of `svc snapshot` (commands/snapshot.ts); the MCP tool's properties say the same. */
export const SNAPSHOT_OPTIONS = {
  interactive: flag("-i, --interactive", SHARED.interactive),
  maxTokens: value("--max-tokens <n>", SHARED.maxTokens),
  selector: value("-s, --selector <selector>", SHARED.snapshotSelector),
  delta: flag("--delta", SHARED.delta),
  from: value("--from <ref>", SHARED.from),
  new: flag("--new", "with a URL: a browser of its own for this command, even when a session is live"),
} as const;

export const PAGE_COMMANDS = [
  command({
    name: "wait",
    args: "[target]",
    usage: "<ref|selector> [--state visible|hidden|attached|detached] | <ms> | --text T | --url PATTERN | --load [state] | --fn JS",
    description:
      "wait until an element (a ref from the last snapshot, or a selector) is visible (or --state hidden, attached, detached), some time passes, text appears, the URL matches, the page loads or a JS expression is truthy; a wait that runs out exits 7 (TIMEOUT)",
    options: WAIT_OPTIONS,
    examples: ["svc wait e4", 'svc wait --text "Order placed" --timeout 10000', 'svc wait "#spinner" --state hidden', 'svc wait --fn "window.appReady === true"'],
    hosted: true,
    run: async (c, [target], o) => (await import("../wait.js")).wait(c.globals, target as string | undefined, o),
  }),
  command({
    name: "eval",
    args: "<js>",
    description: "evaluate a JavaScript expression in the selected tab and print its value as JSON (a promise is awaited)",
    examples: ['svc eval "document.title"'],
    hosted: true,
    run: async (c, [js]) => (await import("../navigate.js")).evaluate(c.globals, js as string),
  }),
  // Downloads and dialogs of the session (commands/downloads.ts, dialog.ts; --downloads/--dialog are global).
  command({
    name: "downloads",
    description: "list the session's downloads (name, size, state, when, URL); they are saved in its download folder (--downloads on sessions start)",
    examples: ["svc downloads", "svc --json downloads"],
    run: async (c) => (await import("../downloads.js")).downloads(c.globals),
  }),
  command({
    name: "dialog",
    args: "<action> [text]",
    usage: "accept [text] | dismiss",
    description: "answer the session's JavaScript dialog: the one open now, else the next one (a prompt() accepted returns TEXT)",
    examples: ['svc dialog accept "Ada"', "svc dialog dismiss"],
    run: async (c, [action, text]) => (await import("../dialog.js")).dialog(c.globals, action as string, text as string | undefined),
  }),
  command({
    name: "snapshot",
    args: "[url]",
    description: "print the page's outline with refs (e1, e2, …) for the verbs: svc click e3; --json: {snapshot, refs}. With a URL: like extract URL, on the live session, else a browser for this command only",
    options: SNAPSHOT_OPTIONS,
    examples: ["svc snapshot -i", "svc snapshot https://example.com -i", "svc snapshot -i --delta", "svc --json snapshot --max-tokens 2000", "svc snapshot -i --from e120"],
    hosted: true,
    hostedBare: true,
    mcpTool: "snapshot",
    run: async (c, [url], o) => (await import("../snapshot.js")).snapshot(c.globals, o, url as string | undefined),
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
    run: async (c, [what, args], o) => (await import("../get.js")).get(c.globals, what as string, (args as string[] | undefined) ?? [], o),
  }),
];
