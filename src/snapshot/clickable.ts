/**
 * Elements a user can click that the accessibility tree gives no interactive role: a <span> "link" or a <div>
 * "button" with a click listener and `cursor: pointer`, a mail row, a card action. Chrome's AX tree shows
 * them as plain `generic` nodes (no property marks them: measured), so a model would see only their text.
 *
 * Where the facts come from (capture.ts), chosen by cost against getFullAXTree on the bench pages:
 * - listeners: one `DOMDebugger.getEventListeners` per CDP session on its document with `pierce` (every
 *   node below it, open and closed shadow roots and same-process iframes included; however registered:
 *   addEventListener, `onclick` attribute or property). Its cost follows the number of listeners, not nodes.
 * - cursor: one script per frame walks the elements (open shadow roots included) and returns those whose
 *   computed `cursor` is `pointer` while their parent's is not; only those few are described over CDP.
 *   `DOMSnapshot.captureSnapshot` reports both (isClickable, computed styles) in one call, but it serializes
 *   every node: 0.4–2× the AX tree's own time (node-fs: 590 ms against 300 ms), too slow for every step.
 * Not seen: a cursor-only element inside a closed shadow root (scripts cannot enter one; a listener there is
 * seen).
 *
 * Which of those get a ref (decided in the AX tree, so the outline stays small):
 * - a listener, or `cursor: pointer` where the parent's cursor differs (an inherited pointer says nothing:
 *   every span inside a clickable card has it);
 * - not an element that already has a ref (role, focusable, editable), nor anything inside a control (an acting
 *   role, an editable host) or inside another clickable: one ref for the outermost clickable of a group. A
 *   container that is only focusable (`<main tabindex="-1">`, a focusable chart or mail pane) or a named region
 *   is no control: the clickables inside it (a tab, an SVG node, Reply and Forward) get refs of their own;
 * - a listener alone (no pointer) on a container of controls or of other clickables is event delegation
 *   (frameworks listen on their root), not a control: no ref. A pointer container (a mail row with a
 *   checkbox) keeps its ref.
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

/** Whether a non-ignored AX node without a ref of its own gets one as a clickable element. */
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
