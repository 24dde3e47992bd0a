/**
 * `svc click|dblclick|hover|fill|type|press|select|check|uncheck|scroll|drag|upload|focus <ref|selector> [value]`:
 * each verb is one Action run as `svc act --action` runs it (the library's act(action): actionability,
 * history, the same errors and exit codes). A ref is one `svc snapshot` (or `svc extract`) printed for
 * this session; any selector svc accepts works too.
 */
import type { Action, ActionMethod, Service } from "../src/index.js";
import { ServiceInvalidArgumentError } from "../src/base.js";
import { isCloud, regularFile, sessionTabStore, type StoredSession } from "../src/base.js";
import { ActFailedError } from "./act.js";
import { parseTimeout } from "./model.js";
import type { GlobalOptions, Output } from "./output.js";
import { stateRoot, withSession } from "./runtime.js";
import { PIXEL_SCROLL, scrollBy } from "./scroll.js";
import { rememberTabs } from "./tabs.js";

type Verb = "click" | "dblclick" | "hover" | "fill" | "type" | "press" | "select" | "check" | "uncheck" | "scroll" | "drag" | "upload" | "focus";

/** A verb's arguments (after the target) → the Action's method and arguments. */
interface VerbSpec {
  method: ActionMethod | ((args: string[]) => { method: ActionMethod; arguments: string[] });
  /** Arguments after the target: what each one is (for the error), and whether more may follow. */
  value?: string;
  /** The target may be left out (the page, or the focused element). */
  optionalTarget?: boolean;
}

const SCROLL = /^(up|down|top|bottom|left|right|-?\d+(\.\d+)?(%|px)?)$/i;

/** The one table: verb → Action. */
export const VERBS: Readonly<Record<Verb, VerbSpec>> = {
  click: { method: "click" },
  dblclick: { method: "doubleClick" },
  hover: { method: "hover" },
  focus: { method: "focus" },
  check: { method: "check" },
  uncheck: { method: "uncheck" },
  fill: { method: "fill", value: "the value" },
  type: { method: "type", value: "the text to type" },
  press: { method: "press", value: "a key such as Enter", optionalTarget: true },
  select: { method: "selectOptionFromDropdown", value: "the option's text or value" },
  drag: { method: "dragAndDrop", value: "the drop target (a ref or selector)" },
  upload: { method: "setInputFiles", value: "the file to upload" },
  scroll: {
    optionalTarget: true,
    method: ([where = "down"]) => {
      const w = where.toLowerCase();
      if (w === "down") return { method: "nextChunk", arguments: [] };
      if (w === "up") return { method: "prevChunk", arguments: [] };
      return { method: "scrollTo", arguments: [w === "top" ? "0" : w === "bottom" ? "100" : where] };
    },
  },
};

function isVerb(name: string): name is Verb {
  return Object.hasOwn(VERBS, name);
}

/** Checks a file to upload before any session is touched: one line naming it. */
function checkFile(path: string): string {
  const abs = regularFile(path);
  if (!abs) throw new ServiceInvalidArgumentError(`upload: no such file ${path}`);
  return abs;
}

/** The positional arguments of a verb → the Action it runs (validated; nothing touched yet). */
export function actionFor(verb: Verb, positional: readonly string[]): Action {
  const spec = VERBS[verb];
  let args = [...positional];
  let target = "";
  // `press Enter`, `scroll down`: one argument that is the value, not the target.
  const valueOnly = spec.optionalTarget && (args.length === 1 ? verb === "press" || SCROLL.test(args[0]!) : args.length === 0);
  if (!valueOnly) {
    target = args.shift() ?? "";
    if (!target.trim()) throw new ServiceInvalidArgumentError(`${verb}: the target is missing`, { hint: `svc ${verb} e3  (a ref from \`svc snapshot\`, or a selector)` });
  }
  if (spec.value && args.length === 0) {
    throw new ServiceInvalidArgumentError(`${verb}: ${spec.value} is missing`, verb === "fill" ? { hint: 'svc fill e3 "text" (use "" to clear)' } : {});
  }
  const most = verb === "upload" || verb === "select" ? Infinity : spec.value !== undefined || verb === "scroll" ? 1 : 0;
  if (args.length > most) throw new ServiceInvalidArgumentError(`${verb}: unexpected argument "${args[most]}"`, { hint: "quote a value that has spaces" });
  if (verb === "upload") args = args.map(checkFile);
  const { method, arguments: actionArgs } = typeof spec.method === "function" ? spec.method(args) : { method: spec.method, arguments: args };
  // What was typed stays out of the description (it may be a secret; the Action's arguments are masked).
  const description = [verb, target, ...(verb === "fill" || verb === "type" ? [] : positional.slice(target ? 1 : 0))].filter(Boolean).join(" ");
  return { selector: target, description, method, arguments: actionArgs };
}

export async function runVerb(g: GlobalOptions, verb: string, positional: readonly string[], flags: { timeout?: string }): Promise<void> {
  if (!isVerb(verb)) throw new ServiceInvalidArgumentError(`unknown verb "${verb}"`);
  // Sideways and pixel scrolls have no Action method: commands/scroll.ts does them and reads the result back.
  const where = verb === "scroll" ? positional[positional.length - 1] : undefined;
  if (where !== undefined && PIXEL_SCROLL.test(where)) {
    if (positional.length > 2) throw new ServiceInvalidArgumentError(`scroll: unexpected argument "${positional[2]}"`);
    return scrollBy(g, positional.length === 2 ? positional[0] : undefined, where);
  }
  const action = actionFor(verb, positional);
  const timeout = parseTimeout(flags.timeout);
  await withSession(g, async ({ svc, out, session }) => {
    const before = new Set(svc.context.pages().map((p) => p.targetId));
    const result = await svc.act(action, timeout !== undefined ? { timeout } : {});
    if (!result.success) throw new ActFailedError(`${verb} failed: ${result.message}`);
    // A tab the press opened was announced before the press's last answer; wait until its page is set up.
    await svc.context.idle();
    const opened = await openedTab(svc, before, session, out);
    // The act's message is "<method> succeeded: <description>" plus what the page holds afterwards, if it says.
    const done = result.message.replace(/^\w+ succeeded: /, "");
    out.result({ session: session?.id, result, ...(opened ? { openedTab: opened } : {}) }, () =>
      `done: ${done}${opened ? ` (opened tab ${opened.id}: ${opened.url}${opened.selected ? "; now selected" : ""})` : ""}`,
    );
  }, timeout !== undefined ? { timeoutMs: timeout } : {});
}

/** How long a verb waits for a tab it opened to commit its first document before naming it. */
const OPENED_URL_WAIT_MS = 5000;

/**
 * A tab the verb opened (a target=_blank link, window.open), numbered as `svc tabs` numbers it: later commands
 * drive it when it became the selected tab, so the output says so.
 */
async function openedTab(svc: Service, before: ReadonlySet<string>, session: StoredSession | undefined, out: Output): Promise<{ id: number; url: string; selected: boolean } | undefined> {
  const page = svc.context.pages().find((p) => !before.has(p.targetId));
  if (!page || !session || isCloud(session)) return undefined;
  const file = rememberTabs(svc, sessionTabStore(session.id, stateRoot()), out);
  const id = file?.ids[page.targetId];
  if (id === undefined) return undefined;
  // window.open(url) makes the tab before its document commits: name the URL it opened, not the empty one.
  return { id, url: await page.committedUrl(OPENED_URL_WAIT_MS), selected: svc.context.activePage() === page };
}
