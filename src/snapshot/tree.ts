/**
 * The snapshot model: Chrome's accessibility trees (one per frame) → one pruned outline with refs, in one linear pass.
 * Pure (no CDP), so unit-tested on hand-built nodes. Every line a model reads costs tokens on every step, so wrappers
 * and ignored nodes vanish (children move up), text runs merge, text repeating a name is dropped, content-named controls
 * keep only actionable descendants.
 */
import { ServiceElementNotFoundError } from "../errors.js";
import {
  BLOCK_TEXT, CELL_ROLES, DROP, KEEP_CONTAINER, NAME_FROM_CONTENT, VALUE_ROLES,
  displayRole, hasOwnRef, readProps, squash, str, type AXNodeLike, type Props,
} from "./ax.js";
import { clickableRole, isClickable, type ClickFrame } from "./clickable.js";
import type { RefTarget } from "./refs.js";

export type { AXNodeLike, AXPropertyLike, AXValueLike } from "./ax.js";
export { displayRole } from "./ax.js";

/** One frame's full AX tree, and where it hangs in its parent frame. */
export interface FrameAXTree {
  frameId: string;
  /** Undefined for the top frame of the capture. */
  parentFrameId?: string;
  /** backendNodeId, in the parent frame, of the <iframe>/<frame> element that owns this frame. */
  ownerBackendNodeId?: number;
  nodes: AXNodeLike[];
  /** Elements a user can click (backendNodeId → flags, see clickable.ts); they get a ref without a role. */
  clickable?: ReadonlyMap<number, number>;
}

export interface SnapNode {
  /** Display role; `text` for a run of text, `row` for a table row (its cell texts in `cells`). */
  role: string;
  name: string;
  value?: string;
  /** Heading level. */
  level?: number;
  /** Set states only: checked, mixed, disabled, expanded, selected, pressed. */
  states?: string[];
  /** Row cell texts (role `row`). */
  cells?: string[];
  ref?: string;
  /** The name is derived for an icon-only control (icon-name.ts), not Chrome's accessible name: shown marked. */
  derived?: boolean;
  children: SnapNode[];
  /** Text produced by a block (paragraph, list item, cell): never merged with its neighbours. */
  sealed?: boolean;
}

export interface BuildOptions {
  scope?: { frameId: string; backendNodeId: number };
  interactiveOnly?: boolean;
}

export interface BuiltTree {
  nodes: SnapNode[];
  refs: RefTarget[];
}


interface FrameCtx extends ClickFrame {
  frameId: string;
  /** Child frames by the backendNodeId of their owner element in this frame. */
  grafts: Map<number, FrameAXTree[]> | undefined;
}

function textNode(text: string, sealed = false): SnapNode {
  return sealed ? { role: "text", name: text, children: [], sealed } : { role: "text", name: text, children: [] };
}

function isText(n: SnapNode): boolean {
  return n.role === "text" && n.ref === undefined;
}

/**
 * Joins adjacent text runs. `inline`: the runs are inline content of one block, so they join as they are
 * (their own spaces decide); otherwise they may be separate blocks and get a space when neither has one.
 */
function mergeTexts(items: SnapNode[], inline: boolean): SnapNode[] {
  let out: SnapNode[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const it = items[i]!;
    const prev = out ? out[out.length - 1] : i > 0 ? items[i - 1] : undefined;
    if (prev && isText(it) && isText(prev) && !it.sealed && !prev.sealed) {
      if (!out) out = items.slice(0, i);
      const a = prev.name;
      const b = it.name;
      const sep = inline || a.endsWith(" ") || b.startsWith(" ") ? "" : " ";
      out[out.length - 1] = textNode(a + sep + b);
    } else if (out) out.push(it);
  }
  return out ?? items;
}

function norm(s: string): string {
  return s.trim().toLowerCase();
}

/** Drops text runs that only repeat the name of the control beside them (`<label>Email</label><input>`). */
function dropLabelEchoes(items: SnapNode[]): SnapNode[] {
  if (items.length < 2) return items;
  let out: SnapNode[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const it = items[i]!;
    let echo = false;
    if (isText(it)) {
      const t = norm(it.name);
      const prev = items[i - 1];
      const next = items[i + 1];
      echo = t === "" || (!!next?.ref && norm(next.name) === t) || (!!prev?.ref && norm(prev.name) === t);
    }
    if (echo) {
      if (!out) out = items.slice(0, i);
    } else if (out) out.push(it);
  }
  return out ?? items;
}

/** Only the ref'd descendants (and frames) of a subtree, flattened into a list. */
function actionableOnly(items: SnapNode[], keepHeadings: boolean): SnapNode[] {
  const out: SnapNode[] = [];
  for (const it of items) {
    if (it.ref !== undefined) out.push({ ...it, children: actionableOnly(it.children, keepHeadings) });
    else if (it.role === "iframe" || (keepHeadings && it.role === "heading")) {
      const children = actionableOnly(it.children, keepHeadings);
      if (it.role !== "iframe" || children.length) out.push({ ...it, children });
    } else if (it.children.length) for (const c of actionableOnly(it.children, keepHeadings)) out.push(c);
  }
  return out;
}

export function buildTree(frames: readonly FrameAXTree[], options: BuildOptions = {}): BuiltTree {
  const refs: RefTarget[] = [];
  const ctxs = new Map<string, FrameCtx>();
  for (const f of frames) {
    const byId = new Map<string, AXNodeLike>();
    for (const n of f.nodes) byId.set(n.nodeId, n);
    ctxs.set(f.frameId, { frameId: f.frameId, byId, grafts: undefined, clickable: f.clickable, decided: new Map() });
  }
  for (const f of frames) {
    if (f.parentFrameId === undefined || f.ownerBackendNodeId === undefined) continue;
    const parent = ctxs.get(f.parentFrameId);
    if (!parent) continue;
    const grafts = (parent.grafts ??= new Map());
    const list = grafts.get(f.ownerBackendNodeId);
    if (list) list.push(f);
    else grafts.set(f.ownerBackendNodeId, [f]);
  }

  const rootOf = (f: FrameAXTree): AXNodeLike | undefined => {
    for (const n of f.nodes) if (n.parentId === undefined) return n;
    return f.nodes[0];
  };

  const visitChildren = (ax: AXNodeLike, ctx: FrameCtx, editable: boolean, depth: number): SnapNode[] => {
    const ids = ax.childIds;
    if (!ids || ids.length === 0) return [];
    const out: SnapNode[] = [];
    for (const id of ids) {
      const child = ctx.byId.get(id);
      if (!child) continue;
      const items = visit(child, ctx, editable, depth + 1);
      for (const it of items) out.push(it);
    }
    return out;
  };

  /** The content of the frames owned by an element (its iframe's document), as items. */
  const frameContent = (ctx: FrameCtx, backendNodeId: number | undefined, depth: number): SnapNode[] | undefined => {
    if (backendNodeId === undefined || !ctx.grafts) return undefined;
    const owned = ctx.grafts.get(backendNodeId);
    if (!owned) return undefined;
    const out: SnapNode[] = [];
    for (const f of owned) {
      const child = ctxs.get(f.frameId)!;
      const root = rootOf(f);
      if (!root) continue;
      const items = finalize(visitChildren(root, child, false, depth), false);
      for (const it of items) out.push(it);
    }
    return out;
  };

  /** Merge runs and drop echoes: done once per list by the node that owns it (not by hoisted wrappers). */
  const finalize = (items: SnapNode[], inline: boolean): SnapNode[] => dropLabelEchoes(mergeTexts(items, inline));

  const visit = (ax: AXNodeLike, ctx: FrameCtx, parentEditable: boolean, depth: number): SnapNode[] => {
    if (depth > 2000) return [];
    const role = str(ax.role);
    if (DROP.has(role)) return [];

    const owned = frameContent(ctx, ax.backendDOMNodeId, depth);
    if (owned) {
      const name = ax.ignored ? "" : squash(str(ax.name)).trim();
      return [{ role: "iframe", name, children: owned }];
    }

    if (ax.ignored) return visitChildren(ax, ctx, parentEditable, depth);

    if (role === "LineBreak") return [textNode(" ")];

    if (role === "StaticText") {
      const t = squash(str(ax.name));
      return t.trim() ? [textNode(t)] : [];
    }

    const props = readProps(ax);
    const name = squash(str(ax.name)).trim();
    const backendNodeId = ax.backendDOMNodeId;
    const own = hasOwnRef(ax, role, name, props.focusable || (props.editable && !parentEditable));
    const clickable = !own && !parentEditable && isClickable(ax, ctx);
    const actionable = own || clickable;

    if (role === "Iframe" || role === "IframePresentational") {
      // An iframe whose document we could not capture (detached, or not yet attached): still worth a line.
      return [{ role: "iframe", name, children: [] }];
    }

    const shown = clickable ? clickableRole(role, displayRole(role)) : displayRole(role);
    // Numbered before the subtree is visited, so refs follow document order.
    let ref: string | undefined;
    let refIndex = -1;
    if (actionable) {
      refIndex = refs.length;
      ref = `e${refIndex + 1}`;
      refs.push({ ref, frameId: ctx.frameId, backendNodeId: backendNodeId!, role: shown, name });
    }

    // Value-holding controls: the inner nodes are the browser's own editor parts; show the value instead.
    if (VALUE_ROLES.has(role) || (ref !== undefined && props.editable)) {
      const node: SnapNode = { role: shown, name, children: [] };
      const value = passwordShown(squash(str(ax.value)).trim());
      if (role === "combobox") {
        const options = nativeOptions(ax, ctx);
        if (options) {
          // A native <select>: its options are one line (the select is acted on, not its options).
          if (options.length) node.children.push({ role: "options", name: options.join(" | "), children: [] });
        } else {
          // An ARIA combobox may wrap a textbox or own a popup: keep what carries refs.
          node.children = actionableOnly(visitChildren(ax, ctx, true, depth), false);
        }
      }
      if (value && value !== name) node.value = value;
      if (props.states) node.states = props.states;
      if (ref) node.ref = ref;
      return [node];
    }

    if (role === "row") {
      const row = visitRow(ax, ctx, name, ref, props, depth);
      if (!row.cells && !row.name && !row.ref && row.children.length <= 1) return row.children;
      return [row];
    }

    let children = visitChildren(ax, ctx, parentEditable || props.editable, depth);

    if (CELL_ROLES.has(role) && ref === undefined) {
      // A cell outside a row (or a row we did not recognise): its text, as a block.
      children = finalize(children, true);
      if (!children.some(isText) && name && !children.length) children = [textNode(name)];
      return children.map((c) => (isText(c) ? textNode(c.name, true) : c));
    }

    if (NAME_FROM_CONTENT.has(role) && name) {
      // The name already says what the content says; keep only what a model can act on inside.
      children = actionableOnly(children, false);
    } else {
      const inline = BLOCK_TEXT.has(role) || NAME_FROM_CONTENT.has(role);
      children = finalize(children, inline);
      if (name && children.length) children = dropNameEcho(children, name);
    }

    if (role === "heading") {
      if (!name && !children.length && !ref) return [];
      const node: SnapNode = { role: "heading", name, children };
      if (props.level !== undefined) node.level = props.level;
      if (props.states) node.states = props.states;
      if (ref) node.ref = ref;
      return [node];
    }

    if (ref !== undefined) {
      const node: SnapNode = { role: shown, name, children };
      if (!name && children.length === 1 && isText(children[0]!)) {
        node.name = children[0]!.name.trim();
        node.children = [];
        refs[refIndex] = { ...refs[refIndex]!, name: node.name };
      }
      const value = squash(str(ax.value)).trim();
      if (value && value !== node.name && !NAME_FROM_CONTENT.has(role)) node.value = value;
      if (props.states) node.states = props.states;
      node.ref = ref;
      return [node];
    }

    if (role === "image" || role === "img") return name ? [{ role: "img", name, children: [] }] : children;

    if (!name && !KEEP_CONTAINER.has(role)) {
      // A wrapper: its content moves up. A block's text stays a line of its own.
      if (BLOCK_TEXT.has(role)) {
        if (role === "listitem" && isCompound(children)) {
          return [{ role: "listitem", name: "", children }];
        }
        return children.map((c) => (isText(c) && !c.sealed ? textNode(c.name, true) : c));
      }
      return children;
    }

    if (!children.length && !name) return [];
    const node: SnapNode = { role: shown, name, children };
    if (props.states) node.states = props.states;
    return [node];
  };

  /** A row: cell texts on the row's own line (empty cells keep their column); controls in cells below it. */
  const visitRow = (ax: AXNodeLike, ctx: FrameCtx, name: string, ref: string | undefined, props: Props, depth: number): SnapNode => {
    const cells: string[] = [];
    const children: SnapNode[] = [];
    for (const id of ax.childIds ?? []) {
      const child = ctx.byId.get(id);
      if (!child) continue;
      const isCell = !child.ignored && CELL_ROLES.has(str(child.role));
      const items = visit(child, ctx, false, depth + 1);
      if (!isCell) {
        for (const it of items) children.push(it);
        continue;
      }
      let text = "";
      for (const it of items) {
        if (isText(it)) text += (text ? " " : "") + it.name.trim();
        else children.push(it);
      }
      cells.push(text);
    }
    while (cells.length && cells[cells.length - 1] === "") cells.pop(); // columns of buttons, now below
    const node: SnapNode = { role: "row", name, children };
    if (cells.length) node.cells = cells;
    if (props.states) node.states = props.states;
    if (ref) node.ref = ref;
    return node;
  };

  let nodes: SnapNode[];
  if (options.scope) {
    const ctx = ctxs.get(options.scope.frameId);
    const target = ctx ? findByBackendId(frames.find((f) => f.frameId === options.scope!.frameId)!, options.scope.backendNodeId) : undefined;
    if (!ctx || !target) {
      throw new ServiceElementNotFoundError("the scope element is not in the accessibility tree", {
        hint: "it may be hidden (display:none, aria-hidden) or gone; snapshot the whole page instead",
      });
    }
    nodes = finalize(visit(target, ctx, false, 0), false);
  } else {
    const top = frames.find((f) => f.parentFrameId === undefined) ?? frames[0];
    const root = top ? rootOf(top) : undefined;
    nodes = top && root ? finalize(visitChildren(root, ctxs.get(top.frameId)!, false, 0), false) : [];
  }
  if (options.interactiveOnly) nodes = actionableOnly(nodes, true);
  return { nodes, refs };
}

function findByBackendId(f: FrameAXTree, backendNodeId: number): AXNodeLike | undefined {
  for (const n of f.nodes) if (n.backendDOMNodeId === backendNodeId) return n;
  return undefined;
}

/**
 * A list item worth its own `listitem` line: several things besides nested lists, one of them not text
 * (a search result: link, snippet, button). A link followed by its sub-list reads fine without it.
 */
function isCompound(children: SnapNode[]): boolean {
  let content = 0;
  let nonText = false;
  for (const c of children) {
    if (c.role === "list") continue;
    content++;
    if (!isText(c)) nonText = true;
  }
  return content > 1 && nonText;
}

/** Text children that together only spell the parent's name go. */
function dropNameEcho(children: SnapNode[], name: string): SnapNode[] {
  let text = "";
  for (const c of children) if (isText(c)) text += c.name;
  if (norm(squash(text)) !== norm(name)) return children;
  return children.filter((c) => !isText(c));
}

/** Option labels of a native <select> (combobox → MenuListPopup → option), or undefined for ARIA ones. */
function nativeOptions(ax: AXNodeLike, ctx: FrameCtx): string[] | undefined {
  for (const id of ax.childIds ?? []) {
    const popup = ctx.byId.get(id);
    if (!popup || str(popup.role) !== "MenuListPopup") continue;
    const out: string[] = [];
    const walk = (n: AXNodeLike) => {
      for (const cid of n.childIds ?? []) {
        const c = ctx.byId.get(cid);
        if (!c) continue;
        const r = str(c.role);
        if (r === "option" || r === "MenuListOption") {
          const label = squash(str(c.name)).trim();
          if (label) out.push(label);
        } else walk(c); // optgroup, ignored wrappers
      }
    };
    walk(popup);
    return out;
  }
  return undefined;
}

/**
 * Chrome's accessibility tree shows a password field's value as one bullet per character (never the
 * value itself); the snapshot shows a fixed-length mask instead, so not even the length is told.
 */
function passwordShown(value: string): string {
  return /^\u2022+$/.test(value) ? "\u2022".repeat(8) : value;
}
