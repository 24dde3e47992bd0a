/**
 * The verbs on one element (a ref or any selector svc accepts): each is one Action run through the library's
 * act(action), with its actionability checks, history and errors, on every door alike.
 */
import { z } from "zod";
import type { Action, ActionMethod } from "../index.js";
import { regularFile } from "../util/regular-file.js";
import { acts, type Capability, type CapabilityContext, capability, moves, type Outcome } from "./declare.js";
import { scrollBy, SCROLL_WHERE, SIDEWAYS_OR_PIXELS } from "./scroll.js";

export const TARGET = z.string().min(1).max(10_000).describe("ref from the last snapshot (e3) or a selector");
export const TIMEOUT = z.number().int().min(1).max(600_000).optional().describe("give up after this many milliseconds (default 30000)");
/** Every verb acts on this tab when given, as Chrome DevTools MCP routes a call to a page: the selection stays. */
export const TAB = z.number().int().min(1).max(1_000_000).optional().describe("the tab's number (as tabs lists it) to act on; the selected tab when left out, and the selection does not change");

/** Runs one Action on the addressed tab; what was typed stays out of the description (it may be a secret; the arguments are masked). */
async function act(ctx: CapabilityContext, verb: string, selector: string, method: ActionMethod, args: readonly string[], i: { timeout?: number | undefined; tab?: number | undefined }, shown: readonly string[] = args): Promise<Outcome> {
  const action: Action = { selector, description: [verb, selector, ...shown].filter(Boolean).join(" "), method, arguments: [...args] };
  const page = await ctx.page(i.tab);
  const result = await ctx.svc.act(action, { page, ...(i.timeout !== undefined ? { timeout: i.timeout } : {}) });
  return { kind: "act", result };
}

export const click = capability({
  name: "click",
  description: "Click an element",
  input: { target: TARGET, double: z.boolean().optional().describe("double-click instead"), timeout: TIMEOUT, tab: TAB },
  mcp: { cap: "core", annotations: acts("Click") },
  cli: {
    verb: "click",
    args: "<target>",
    description: "click the element (a ref from `svc snapshot`, or a selector)",
    examples: ["svc click e3", 'svc click "#submit"', "svc click e7 --double"],
    hosted: true,
    presets: [{ verb: "dblclick", description: "double-click the element (same as click --double)", examples: ["svc dblclick e7"], preset: { double: true } }],
  },
  run: (ctx, i) => act(ctx, i.double ? "dblclick" : "click", i.target, i.double ? "doubleClick" : "click", [], i),
});

export const hover = capability({
  name: "hover",
  description: "Move the mouse over an element",
  input: { target: TARGET, timeout: TIMEOUT, tab: TAB },
  mcp: { cap: "core", annotations: moves("Hover", true) },
  cli: { verb: "hover", args: "<target>", description: "move the pointer onto the element", examples: ["svc hover e4"], hosted: true },
  run: (ctx, i) => act(ctx, "hover", i.target, "hover", [], i),
});

export const focus = capability({
  name: "focus",
  description: "Focus an element",
  input: { target: TARGET, timeout: TIMEOUT, tab: TAB },
  mcp: { cap: "forms", annotations: moves("Focus", true) },
  cli: { verb: "focus", args: "<target>", description: "focus the element", examples: ["svc focus e2"], hosted: true },
  run: (ctx, i) => act(ctx, "focus", i.target, "focus", [], i),
});

export const fill = capability({
  name: "fill",
  description: "Replace an input's value",
  input: { target: TARGET, value: z.string().max(1_000_000).describe("the new value (empty clears the field)"), timeout: TIMEOUT, tab: TAB },
  mcp: { cap: "core", annotations: acts("Fill a field") },
  cli: {
    verb: "fill",
    args: "<target> <value>",
    description: "replace the field's value",
    examples: ['svc fill e1 "Ada Lovelace"'],
    hosted: true,
  },
  run: (ctx, i) => act(ctx, "fill", i.target, "fill", [i.value], i, []),
});

export const type = capability({
  name: "type",
  description: "Type text into an element, key by key",
  input: { target: TARGET, text: z.string().max(100_000).describe("the text to type"), timeout: TIMEOUT, tab: TAB },
  mcp: { cap: "core", annotations: acts("Type text") },
  cli: { verb: "type", args: "<target> <text>", description: "type key by key into the element", examples: ['svc type e1 " Lovelace"'], hosted: true },
  run: (ctx, i) => act(ctx, "type", i.target, "type", [i.text], i, []),
});

export const press = capability({
  name: "press",
  description: "Press a key (Enter, Tab, Control+A) on an element or the focused one",
  input: {
    key: z.string().min(1).max(100).describe("the key, e.g. Enter, Tab or Control+A"),
    target: TARGET.optional().describe("ref or selector of the element; the focused one when left out"),
    timeout: TIMEOUT,
    tab: TAB,
  },
  mcp: { cap: "core", annotations: acts("Press a key") },
  cli: {
    verb: "press",
    args: "<target-or-key> [key]",
    // One argument is the key on the focused element; two are the target and the key.
    positional: (args) => (args.length >= 2 ? { target: args[0], key: args[1] } : { key: args[0] }),
    fills: ["target", "key"],
    description: "press a key (Enter, Tab, Control+A…): svc press e3 Enter, or svc press Enter on the focused element",
    examples: ["svc press Enter", "svc press e1 Tab"],
    hosted: true,
  },
  run: (ctx, i) => act(ctx, "press", i.target ?? "", "press", [i.key], i),
});

export const select = capability({
  name: "select",
  description: "Choose an option of a dropdown",
  input: {
    target: TARGET,
    option: z.union([z.string(), z.array(z.string()).min(1).max(100)]).describe("the option's text or value; a list of them for a <select multiple>"),
    timeout: TIMEOUT,
    tab: TAB,
  },
  mcp: { cap: "core", annotations: acts("Choose an option") },
  cli: {
    verb: "select",
    args: "<target> <option...>",
    description: "choose an option of a <select> by its text or value (several for a <select multiple>)",
    examples: ["svc select e6 Norway", "svc select e7 Red Blue"],
    hosted: true,
  },
  run: (ctx, i) => act(ctx, "select", i.target, "selectOptionFromDropdown", typeof i.option === "string" ? [i.option] : i.option, i),
});

export const check = capability({
  name: "check",
  description: "Check (or uncheck) a checkbox or radio; nothing when it already is",
  input: { target: TARGET, checked: z.boolean().optional().describe("false to uncheck (default true)"), timeout: TIMEOUT, tab: TAB },
  only: { checked: { door: "mcp", why: "the CLI says uncheck, a verb of its own" } },
  mcp: { cap: "core", annotations: acts("Check a box") },
  cli: {
    verb: "check",
    args: "<target>",
    description: "check a checkbox or radio button (nothing if already checked)",
    examples: ["svc check e5"],
    hosted: true,
    presets: [{ verb: "uncheck", description: "uncheck a checkbox (nothing if already unchecked; same as check --checked false)", examples: ["svc uncheck e5"], preset: { checked: false } }],
  },
  run: (ctx, i) => (i.checked === false ? act(ctx, "uncheck", i.target, "uncheck", [], i) : act(ctx, "check", i.target, "check", [], i)),
});

export const scroll = capability({
  name: "scroll",
  description: "Scroll the page (or an element): down, up, top, bottom, N%, left, right or Npx",
  input: {
    to: z.string().regex(SCROLL_WHERE, 'expected down, up, top, bottom, N%, left, right or Npx').default("down").describe('"down" (default), "up", "top", "bottom", "50%", "left", "right" or "300px" (-300px up)'),
    target: TARGET.optional().describe("ref or selector of the element to scroll; the page when left out"),
    timeout: TIMEOUT,
    tab: TAB,
  },
  mcp: { cap: "core", annotations: moves("Scroll") },
  cli: {
    verb: "scroll",
    args: "[target] [to]",
    // `svc scroll down` is a direction; `svc scroll e9` a target; `svc scroll e9 bottom` both.
    positional: (args) => (args.length >= 2 ? { target: args[0], to: args[1] } : args.length === 1 ? (SCROLL_WHERE.test(args[0]!) ? { to: args[0] } : { target: args[0] }) : {}),
    fills: ["target", "to"],
    description: "scroll the page or the element: down (default), up, top, bottom, N%, left, right (one visible width) or Npx (down; -Npx up)",
    examples: ["svc scroll down", "svc scroll e9 bottom", "svc scroll right", "svc scroll 300px"],
    hosted: true,
  },
  run: (ctx, i) => {
    const to = i.to.toLowerCase();
    if (SIDEWAYS_OR_PIXELS.test(to)) return scrollBy(ctx, i.target, to, i.tab);
    const sel = i.target ?? "";
    if (to === "down") return act(ctx, "scroll", sel, "nextChunk", [], i, [to]);
    if (to === "up") return act(ctx, "scroll", sel, "prevChunk", [], i, [to]);
    return act(ctx, "scroll", sel, "scrollTo", [to === "top" ? "0" : to === "bottom" ? "100" : to], i, [to]);
  },
});

export const drag = capability({
  name: "drag",
  description: "Drag one element onto another",
  input: { from: TARGET.describe("ref or selector of the element to drag"), to: TARGET.describe("ref or selector of the element to drop it on"), timeout: TIMEOUT, tab: TAB },
  mcp: { cap: "forms", annotations: acts("Drag and drop") },
  cli: { verb: "drag", args: "<from> <to>", description: "drag one element onto another", examples: ["svc drag e3 e8"], hosted: true },
  run: (ctx, i) => act(ctx, "drag", i.from, "dragAndDrop", [i.to], i),
});

export const upload = capability({
  name: "upload",
  description: "Set the files of a file input",
  input: { target: TARGET, files: z.array(z.string().min(1).max(4096)).min(1).max(20).describe("paths of files on this machine"), timeout: TIMEOUT, tab: TAB },
  mcp: { cap: "forms", annotations: acts("Upload files") },
  cli: { verb: "upload", args: "<target> <files...>", description: "set the files of an <input type=file>", examples: ["svc upload e5 ./cv.pdf"], hosted: true },
  // Each file is checked before the page is touched, so a typo names the file rather than a CDP error.
  check: (i) => {
    const missing = i.files.find((f) => !regularFile(f));
    return missing === undefined ? undefined : `files: no such file ${missing}`;
  },
  run: (ctx, i) => act(ctx, "upload", i.target, "setInputFiles", i.files.map((f) => regularFile(f) as string), i),
});

/** Every verb on one element, in the order `svc --help` lists them. */
export const ELEMENT_CAPABILITIES: readonly Capability[] = [click, hover, focus, fill, type, press, select, check, scroll, drag, upload] as readonly Capability[];
