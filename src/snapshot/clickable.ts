/**
 * Elements a user can click that the AX tree gives no interactive role (a <span> link, a <div> button, a mail row):
 * Chrome shows them as plain `generic`, so a model would see only text. Facts (capture.ts): click listeners
 * (DOMDebugger.getEventListeners with `pierce`, one per session) and each frame's own `cursor: pointer` elements;
 * DOMSnapshot is slower (docs/performance.md).
 */
import { NO_REF, hasOwnRef, isControl, readProps, str, type AXNodeLike } from "./ax.js";

/** Flags per backendNodeId. */
export const LISTENER = 1;
export const POINTER = 2;

/** Listener types that mean "a click does something here". */
const CLICK_TYPES = new Set(["click", "mousedown", "mouseup", "pointerdown", "pointerup", "auxclick", "dblclick"]);

/** The part of a DOMDebugger.EventListener read here (the vendor types stay in src/browser/cdp). */
export interface ListenerLike {
  type: string;
  backendNodeId?: number;
}

/** Marks the elements that listen for clicks (listeners on the window or the document have no element). */
export function addListeners(flags: Map<number, number>, listeners: readonly ListenerLike[]): void {
  for (const l of listeners) {
    if (l.backendNodeId === undefined || !CLICK_TYPES.has(l.type)) continue;
    flags.set(l.backendNodeId, (flags.get(l.backendNodeId) ?? 0) | LISTENER);
  }
}

export function addPointers(flags: Map<number, number>, backendNodeIds: readonly number[]): void {
  for (const id of backendNodeIds) flags.set(id, (flags.get(id) ?? 0) | POINTER);
}

/**
 * Runs in the frame's document; returns the elements with their own `cursor: pointer`. Skipped: what is not
 * rendered, native controls and links and everything inside them (they have refs already), labels (their
 * control is named by them), and the inside of SVG images (one icon is one element). A string, not a
 * function: nothing transpiled may reach the page.
 */
export const POINTER_SCRIPT = `(() => {
  const out = [];
  const skip = (e) => /^(BUTTON|INPUT|SELECT|TEXTAREA|OPTION|SUMMARY|LABEL|IFRAME|FRAME|SCRIPT|STYLE|TEMPLATE|NOSCRIPT)$/.test(e.tagName) || (e.tagName === "A" && e.hasAttribute("href"));
  const visit = (parent, cursor, depth) => {
    if (depth > 500) return;
    for (let e = parent.firstElementChild; e; e = e.nextElementSibling) {
      if (skip(e)) continue;
      const style = getComputedStyle(e);
      if (style.display === "none") continue;
      const c = style.cursor;
      if (c === "pointer" && cursor !== "pointer") out.push(e);
      if (e.shadowRoot) visit(e.shadowRoot, c, depth + 1);
      if (e.namespaceURI !== "http://www.w3.org/2000/svg") visit(e, c, depth + 1);
    }
  };
  const body = document.body;
  if (body) visit(body, getComputedStyle(body).cursor, 0);
  return out;
})()`;

/** What clickable detection needs of a frame's AX tree; tree.ts's frame context satisfies it. */
export interface ClickFrame {
  byId: Map<string, AXNodeLike>;
  clickable: ReadonlyMap<number, number> | undefined;
  /** Decisions so far, by AX nodeId (each ancestor chain is walked once). */
  decided: Map<string, boolean>;
}

/** Roles the clickable line keeps: anything but a wrapper reads better under its own role (`listitem`, `img`, `row`). */
const WRAPPERS = new Set(["generic", "none", "presentation", "paragraph", "Section", "group", "div", "span"]);

/** The role to show for a clickable element. */
export function clickableRole(role: string, shown: string): string {
  return WRAPPERS.has(role) ? "clickable" : shown;
}

/**
 * Whether a non-ignored AX node without a ref of its own gets one as a clickable: a listener, or a pointer its parent
 * lacks (an inherited one says nothing), and not inside a control or another clickable (one ref per group). A listener
 * alone on a container of controls is event delegation (frameworks listen on their root), not a control; a pointer
 * container (a mail row) keeps its ref.
 */
export function isClickable(ax: AXNodeLike, frame: ClickFrame): boolean {
  const id = ax.backendDOMNodeId;
  if (id === undefined || !frame.clickable) return false;
  const flags = frame.clickable.get(id);
  if (!flags) return false;
  const known = frame.decided.get(ax.nodeId);
  if (known !== undefined) return known;
  const role = str(ax.role);
  let yes = !NO_REF.has(role) && role !== "StaticText" && role !== "LabelText" && !insideControl(ax, frame);
  if (yes && !(flags & POINTER)) yes = !holdsControls(ax, frame);
  frame.decided.set(ax.nodeId, yes);
  return yes;
}

function ownRef(ax: AXNodeLike): boolean {
  if (ax.ignored) return false;
  const role = str(ax.role);
  const props = readProps(ax);
  return hasOwnRef(ax, role, str(ax.name).trim(), props.focusable || props.editable);
}

function insideControl(ax: AXNodeLike, frame: ClickFrame): boolean {
  let p = ax.parentId !== undefined ? frame.byId.get(ax.parentId) : undefined;
  for (let depth = 0; p && depth < 2000; depth++) {
    if (!p.ignored && (isControl(p, str(p.role), readProps(p).editable) || (!ownRef(p) && isClickable(p, frame)))) return true;
    p = p.parentId !== undefined ? frame.byId.get(p.parentId) : undefined;
  }
  return false;
}

/** A subtree with a control in it, or too big to be one control (checked breadth-first, bounded). */
function holdsControls(ax: AXNodeLike, frame: ClickFrame): boolean {
  const queue = [...(ax.childIds ?? [])];
  for (let i = 0; i < queue.length; i++) {
    if (i > 500) return true;
    const n = frame.byId.get(queue[i]!);
    if (!n) continue;
    if (ownRef(n) || str(n.role) === "Iframe") return true;
    if (n.backendDOMNodeId !== undefined && frame.clickable?.get(n.backendDOMNodeId)) return true;
    for (const c of n.childIds ?? []) queue.push(c);
  }
  return false;
}
