/**
 * Reading one element without acting on it: `svc is visible|enabled|checked TARGET` (prints true or false,
 * exit 0 either way) and the element fields of `svc get` (html, count, box, styles; commands/page/get.ts parses).
 * A TARGET is a ref from the session's last snapshot or a selector; one that names no element fails as
 * ELEMENT_NOT_FOUND (a stale ref as STALE_REF), never as `false`.
 */
import type { Page } from "../../src/index.js";
import { ServiceInvalidArgumentError } from "../../src/base.js";
import { callOn, countMatches, elementBox, resolveTarget } from "../../src/internal.js";
import type { StoredSession } from "../../src/base.js";
import type { GlobalOptions } from "../core/output.js";
import { withSession } from "../core/runtime.js";
import { sessionSnapshots } from "./snapshot.js";

type ElementHandle = Awaited<ReturnType<typeof resolveTarget>>;

const IS_REF = /^(ref=)?e\d+$/;

/** A ref (from the session's ref store) or a selector → the one element it names. */
export async function elementOf(page: Page, session: StoredSession | undefined, target: string): Promise<ElementHandle> {
  const refs = IS_REF.test(target.trim()) ? sessionSnapshots(session).refs(page) : undefined;
  return resolveTarget(page, target, refs);
}

export const STATES = ["visible", "enabled", "checked"] as const;
type State = (typeof STATES)[number];

/** In the page: is the element (a text node: its parent) visible, enabled, checked? */
function pageState(this: Node, state: string): boolean | null {
  const el = this.nodeType === Node.ELEMENT_NODE ? (this as Element) : this.parentElement!;
  if (state === "visible") {
    // The same test as `svc wait TARGET` (a box, not visibility: hidden), so the two always agree.
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden";
  }
  if (state === "enabled") {
    if (el.matches(":disabled")) return false;
    return !el.closest("[aria-disabled=true]");
  }
  if (el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio")) return el.checked;
  const aria = el.getAttribute("aria-checked");
  if (aria === "true" || aria === "mixed") return true;
  if (aria === "false") return false;
  return null;
}

export async function is(g: GlobalOptions, what: string, target: string | undefined): Promise<void> {
  if (!(STATES as readonly string[]).includes(what)) throw new ServiceInvalidArgumentError(`is: unknown state "${what}"`, { hint: `one of ${STATES.join(", ")}` });
  if (!target?.trim()) throw new ServiceInvalidArgumentError(`is ${what}: the target is missing`, { hint: `svc is ${what} e3  (a ref from \`svc snapshot\`, or a selector)` });
  const state = what as State;
  await withSession(g, async ({ svc, out, session }) => {
    const el = await elementOf(svc.page, session, target);
    const result = await callOn<boolean | null>(el, pageState, state);
    if (result === null) throw new ServiceInvalidArgumentError(`is checked: ${target} is not a checkbox, a radio button or an element with aria-checked`);
    out.result({ session: session?.id, state, target, result }, () => String(result));
  });
}

/** The computed styles `svc get styles` prints without `--prop`: what says where an element is and how it looks. */
export const DEFAULT_STYLES = [
  "display", "visibility", "opacity", "position", "z-index", "width", "height", "margin", "padding", "border",
  "color", "background-color", "font-family", "font-size", "font-weight", "line-height", "text-align", "overflow", "cursor", "pointer-events",
] as const;

const MAX_PROPS = 50;
const PROP = /^(--)?[a-zA-Z][a-zA-Z0-9-]{0,99}$/;

/** `--prop NAME` (repeatable), checked: one line naming the bad one. */
export function parseProps(raw: readonly string[] | undefined): readonly string[] {
  if (!raw?.length) return DEFAULT_STYLES;
  if (raw.length > MAX_PROPS) throw new ServiceInvalidArgumentError(`--prop: at most ${MAX_PROPS} properties, got ${raw.length}`);
  for (const p of raw) if (!PROP.test(p)) throw new ServiceInvalidArgumentError(`--prop: "${p}" is not a CSS property name`, { hint: "svc get styles e3 --prop color --prop font-size" });
  return raw;
}

export type ElementField = "html" | "count" | "box" | "styles";

/** One element field of `svc get`: the outerHTML, the number of matches, the box, or computed styles. */
export async function elementField(page: Page, session: StoredSession | undefined, field: ElementField, target: string, props: readonly string[]): Promise<unknown> {
  if (field === "count") {
    // A ref names one element or fails; a selector's matches are counted (0 is an answer, not an error).
    if (IS_REF.test(target.trim())) return (await elementOf(page, session, target)) ? 1 : 0;
    return countMatches(page.frames, target);
  }
  const el = await elementOf(page, session, target);
  if (field === "box") return elementBox(page.frames, el);
  if (field === "html") {
    return callOn<string>(el, function (this: Node) {
      return this.nodeType === Node.ELEMENT_NODE ? (this as Element).outerHTML : (this.textContent ?? "");
    });
  }
  return callOn<Record<string, string>>(
    el,
    function (this: Node, names: string[]) {
      const e = this.nodeType === Node.ELEMENT_NODE ? (this as Element) : this.parentElement!;
      const s = getComputedStyle(e);
      const out: Record<string, string> = {};
      for (const n of names) out[n] = s.getPropertyValue(n);
      return out;
    },
    [...props],
  );
}
