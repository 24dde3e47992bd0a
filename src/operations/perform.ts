/**
 * Runs an Action with no model: resolve the target (selector or ref), wait until it is actionable
 * (browser/actionability.ts), do the method, let the page settle. A failure raises the class of what went wrong with
 * a hint; success returns an ActResult (docs/wire-formats.md).
 */
import * as el from "../browser/element.js";
import { describeSelected } from "../browser/select.js";
import type { Page } from "../browser/page.js";
import { resolveSelector, selectorOf, type ElementHandle } from "../browser/resolve.js";
import { DEFAULT_ACTION_TIMEOUT_MS, DETACHED_EVERY_TRY } from "../browser/actionability.js";
import { isDocumentGone } from "../browser/cdp/connection.js";
import { ServiceClickError, ServiceElementNotFoundError, ServiceInvalidArgumentError, ServiceTimeoutError } from "../errors.js";
import { displayRole, resolveRef as resolveSnapshotRef, type RefLookup } from "../snapshot/index.js";
import { parseAction, type ActResult, type Action, type ActionMethod } from "./action.js";
import { regularFile } from "../util/regular-file.js";
import type { Abortable } from "../util/abort.js";

export type { RefLookup } from "../snapshot/index.js";

const REF = /^(?:ref=)?(e\d+)$/;

export function isRef(selector: string): boolean {
  return REF.test(selector.trim());
}

/** A ref the page's snapshots issued → its live element; a ref gone, changed or from another document fails as STALE_REF. */
export async function resolveRef(page: Page, refs: RefLookup | undefined, selector: string): Promise<ElementHandle> {
  return resolveSnapshotRef(page, refs, REF.exec(selector.trim())![1]!);
}

export async function resolveTarget(page: Page, selector: string, refs?: RefLookup): Promise<ElementHandle> {
  return isRef(selector) ? resolveRef(page, refs, selector) : resolveSelector(page.frames, selector, { deep: true });
}

/** Does the method; some say what the page holds afterwards (a select: its options), for the result's message. */
async function run(page: Page, method: ActionMethod, target: () => Promise<ElementHandle>, args: string[], refs: RefLookup | undefined, wait: el.WaitOptions): Promise<string | void> {
  const need = (i: number, what: string): string => {
    const v = args[i];
    if (v === undefined) throw new ServiceInvalidArgumentError(`action.arguments[${i}]: ${method} needs ${what}`);
    return v;
  };
  switch (method) {
    case "click":
      return el.click(page, await target(), {}, wait);
    case "doubleClick":
      return el.click(page, await target(), { clickCount: 2 }, wait);
    case "hover":
      return el.hover(page, await target(), wait);
    case "fill":
      return el.fill(page, await target(), args[0] ?? "", wait);
    case "type":
      return el.type(page, await target(), need(0, "the text to type"), wait);
    case "press":
      return el.press(page, null, need(0, "a key such as Enter"));
    case "selectOptionFromDropdown": {
      need(0, "the option's text or value");
      return `the dropdown now holds ${describeSelected(await el.selectOption(page, await target(), args, wait))}`;
    }
    case "scrollTo":
      return el.scrollToPercent(await target(), el.parsePercent(args[0]));
    case "nextChunk":
      return el.scrollChunk(await target(), 1);
    case "prevChunk":
      return el.scrollChunk(await target(), -1);
    case "dragAndDrop": {
      const to = need(0, "the drop target's selector");
      return el.dragTo(page, await target(), await resolveTarget(page, to, refs), wait);
    }
    case "check":
    case "uncheck":
      return el.setChecked(page, await target(), method === "check", wait);
    case "focus":
      return el.focusAndCheck(await target());
    case "setInputFiles":
      if (!args.length) throw new ServiceInvalidArgumentError("action.arguments: setInputFiles needs at least one file path");
      return el.setInputFiles(await target(), args.map(checkFile));
  }
}

/** A file to upload: an absolute path (relative to this process's directory otherwise) that is a readable file. */
function checkFile(path: string, i: number): string {
  const abs = regularFile(path);
  if (!abs) throw new ServiceInvalidArgumentError(`action.arguments[${i}]: no such file ${path}`);
  return abs;
}

/** Methods that work on the page when the selector is empty. */
const PAGE_LEVEL = new Set<ActionMethod>(["press", "scrollTo", "nextChunk", "prevChunk"]);

/** An element's role and accessible name, as the snapshot shows them. */
export interface ElementIdentity {
  role: string;
  name: string;
}

const norm = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();

/** Throws ServiceElementNotFoundError unless the element still has this role and name. */
async function checkIdentity(handle: ElementHandle, expect: ElementIdentity): Promise<void> {
  const backendNodeId = await handle.backendNodeId;
  const { nodes } = await handle.frame.session.send("Accessibility.getPartialAXTree", { backendNodeId, fetchRelatives: false });
  const node = nodes.find((n) => n.backendDOMNodeId === backendNodeId) ?? nodes[0];
  const role = displayRole(String(node?.role?.value ?? ""));
  const name = String(node?.name?.value ?? "");
  if (norm(role) !== norm(expect.role) || norm(name) !== norm(expect.name)) {
    throw new ServiceElementNotFoundError(`the element is now ${role} "${name}", not ${expect.role} "${expect.name}"`, { hint: "the page changed since the action was recorded" });
  }
}

export interface PerformOptions extends Abortable {
  /** Act only if the target still is this element (cache replay). */
  expect?: ElementIdentity;
  /** Epoch ms by which the element must be actionable (default: DEFAULT_ACTION_TIMEOUT_MS from now). */
  deadline?: number;
}

/**
 * The action, looked up again on the new document each time the page replaces its document under it (a page
 * that navigates itself right after load, or on a timer), until the action's deadline: then a TIMEOUT
 * saying the page kept navigating. Only the lookup and the wait are repeated: an error of that kind comes
 * from a call into the old document, before the input event is sent.
 */
export async function performAction(page: Page, input: Action, refs?: RefLookup, options: PerformOptions = {}): Promise<ActResult> {
  const deadline = options.deadline ?? Date.now() + DEFAULT_ACTION_TIMEOUT_MS;
  // New documents of the main frame while the action runs: its element went with each one.
  let navigated = 0;
  const off = page.mainSession.on("Page.frameNavigated", (e) => void (e.frame.parentId ? 0 : navigated++));
  const keepsNavigating = (cause: unknown) =>
    new ServiceTimeoutError(`the page replaced its document ${navigated} times during the action (it keeps navigating): no document stayed long enough to act on`, {
      hint: "wait until the page stops navigating (svc wait), or raise --timeout",
      cause,
    });
  try {
    for (;;) {
      try {
        return await performOnce(page, input, refs, { ...options, deadline });
      } catch (e) {
        // The element was gone on every try until the deadline (the only way to that error), and the page
        // kept loading new documents meanwhile (more than once: one navigation is not "keeps navigating").
        if (navigated > 1 && e instanceof ServiceClickError && e.message.includes(DETACHED_EVERY_TRY)) throw keepsNavigating(e);
        if (!isDocumentGone(e)) throw e;
        navigated = Math.max(navigated, 1);
        if (Date.now() >= deadline || options.signal?.aborted) throw keepsNavigating(e);
        // The new document: let it load before looking again.
        await page.settle(Math.max(1, Math.min(deadline - Date.now(), 2000)), options.signal);
      }
    }
  } finally {
    off();
  }
}

async function performOnce(page: Page, input: Action, refs: RefLookup | undefined, options: PerformOptions): Promise<ActResult> {
  const action = parseAction(input);
  const selector = action.selector.trim();
  let resolved: ElementHandle | undefined;
  const target = async () => {
    if (resolved) return resolved;
    if (!selector) {
      if (!PAGE_LEVEL.has(action.method)) throw new ServiceInvalidArgumentError(`action.selector: ${action.method} needs a selector`);
      resolved = await resolveSelector(page.frames, "/html", { deep: false });
    } else resolved = await resolveTarget(page, selector, refs);
    return resolved;
  };
  // Refs are replaced by the element's XPath (taken before acting: a click may remove the element) so
  // the recorded action replays without the snapshot.
  const recorded = isRef(selector) ? { ...action, selector: await selectorOf(page.frames, await target()) } : action;
  if (options.expect) await checkIdentity(await target(), options.expect);
  // press goes to whatever has focus; with a selector, focus that element first.
  if (action.method === "press" && selector) void (await el.focus(await target()));
  // A re-rendered element is looked up again by its selector (a ref's element that is gone fails as stale).
  const again = () => (selector ? resolveTarget(page, selector, refs) : target());
  const holds = await run(page, action.method, target, action.arguments, refs, { again, ...(options.deadline !== undefined ? { deadline: options.deadline } : {}), ...(options.signal ? { signal: options.signal } : {}) });
  await page.settle(undefined, options.signal);
  return {
    success: true,
    message: `${action.method} succeeded${action.description ? `: ${action.description}` : ""}${holds ? ` (${holds})` : ""}`,
    actionDescription: action.description,
    actions: [recorded],
  };
}
