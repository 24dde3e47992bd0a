/**
 * Elements a user can click that the accessibility tree gives no interactive role: a <span> "link" or a <div>
 * "button" with a click listener and `cursor: pointer`, a mail row, a card action. Chrome's AX tree shows
 * them as plain `generic` nodes (no property marks them: measured), so a model would see only their text.
 *
 * Where the facts come from: one `DOMSnapshot.captureSnapshot` per CDP session (a page with its same-process
 * iframes, or one OOPIF), asking only for the computed `cursor`. For every node it reports `isClickable`
 * (Chrome's own test: a click/mousedown/mouseup listener, however registered — addEventListener, `onclick`
 * attribute or property — or editable content), and it walks open and closed shadow roots. That is one call
 * per process instead of `DOMDebugger.getEventListeners` per candidate. Not seen: a `pointerdown`-only
 * listener on an element without `cursor: pointer` (Chrome does not count pointer events as clicks).
 *
 * Which of those get a ref (decided in the AX tree, so the outline stays small):
 * - a listener, or `cursor: pointer` where the nearest laid-out ancestor's cursor differs (an inherited
 *   pointer says nothing: every span inside a clickable card has it);
 * - not an element that already has a ref (role, focusable, editable) nor anything inside one, nor inside
 *   another clickable: one ref for the outermost clickable of a group;
 * - a listener alone (no pointer) on a container of controls or of other clickables is event delegation
 *   (frameworks listen on their root), not a control: no ref. A pointer container (a mail row with a
 *   checkbox) keeps its ref.
 */
import { NO_REF, hasOwnRef, readProps, str, type AXNodeLike } from "./ax.js";

/** Flags per backendNodeId. */
export const LISTENER = 1;
export const POINTER = 2;

/** The part of a DOMSnapshot.captureSnapshot result read here (the vendor types stay in src/browser/cdp). */
export interface DomSnapshotLike {
  strings: string[];
  documents: Array<{
    frameId: number;
    nodes: {
      parentIndex?: number[];
      nodeType?: number[];
      nodeName?: number[];
      backendNodeId?: number[];
      isClickable?: { index: number[] };
    };
    layout: { nodeIndex: number[]; styles: number[][] };
  }>;
}

const NEVER = new Set(["HTML", "BODY", "IFRAME", "FRAME", "LABEL"]);

/** frameId → (backendNodeId → LISTENER | POINTER) for every document in one capture. */
export function clickablesByFrame(snap: DomSnapshotLike): Map<string, Map<number, number>> {
  const out = new Map<string, Map<number, number>>();
  const strings = snap.strings;
  for (const doc of snap.documents) {
    const { parentIndex = [], nodeType = [], nodeName = [], backendNodeId = [], isClickable } = doc.nodes;
    const cursor = new Map<number, string | undefined>();
    const { nodeIndex, styles } = doc.layout;
    for (let k = 0; k < nodeIndex.length; k++) {
      const i = nodeIndex[k]!;
      if (!cursor.has(i)) cursor.set(i, strings[styles[k]?.[0] ?? -1]);
    }
    const flags = new Map<number, number>();
    const mark = (i: number, f: number) => {
      if (nodeType[i] !== 1 || NEVER.has(strings[nodeName[i]!] ?? "")) return;
      const id = backendNodeId[i];
      if (id !== undefined) flags.set(id, (flags.get(id) ?? 0) | f);
    };
    for (const i of isClickable?.index ?? []) mark(i, LISTENER);
    for (const [i, c] of cursor) {
      if (c !== "pointer") continue;
      // The nearest ancestor with a box (shadow roots, display:contents have none) decides what is inherited.
      let p = parentIndex[i] ?? -1;
      while (p >= 0 && !cursor.has(p)) p = parentIndex[p] ?? -1;
      if (p < 0 || cursor.get(p) !== "pointer") mark(i, POINTER);
    }
    const frameId = strings[doc.frameId];
    if (frameId !== undefined && flags.size) out.set(frameId, flags);
  }
  return out;
}

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
  let yes = !NO_REF.has(role) && role !== "StaticText" && role !== "LabelText" && !insideRef(ax, frame);
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

function insideRef(ax: AXNodeLike, frame: ClickFrame): boolean {
  let p = ax.parentId !== undefined ? frame.byId.get(ax.parentId) : undefined;
  for (let depth = 0; p && depth < 2000; depth++) {
    if (!p.ignored && (ownRef(p) || isClickable(p, frame))) return true;
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
