/**
 * Names for icon-only controls (an `aria-hidden` icon in a button, a `?` link): Chrome gives them no name, or a glyph,
 * so a model sees `button` and guesses, though the page often says what they are. Sources in order and bounds:
 * docs/cli.md#selectors; a derived name is marked `(icon)` and cleaned (page content is untrusted). Pure: capture.ts
 * reads each candidate's DOM and description.
 */
import type { RefTarget } from "./refs.js";
import type { BuiltTree, SnapNode } from "./tree.js";

/** Longest derived name (characters); longer ones end in `…`. */
export const MAX_DERIVED_CHARS = 60;
/** What a model is told of the marker (the act and agent prompts both explain the outline). */
export const DERIVED_NAME_GUIDE = "a name followed by (icon) was derived for an icon-only control from its icon or tooltip, not read from a label";
/** Controls named so per snapshot (each costs one DOM.describeNode). */
export const MAX_DERIVED = 200;
/** How deep into a control its DOM is read, and how many of its nodes at most. */
export const ICON_DEPTH = 4;
const MAX_NODES = 64;

/** The part of a CDP DOM.Node read here (the vendor types stay in src/browser/cdp). */
export interface DomNodeLike {
  nodeType: number;
  nodeName: string;
  localName?: string;
  nodeValue?: string;
  attributes?: string[];
  children?: DomNodeLike[];
  shadowRoots?: DomNodeLike[];
}

/** A ref line that may get a derived name: where it is in the outline and in the ref list. */
export interface Unnamed {
  node: SnapNode;
  index: number;
  target: RefTarget;
}

/** True when a name says nothing a person would read: empty, or no letter or digit in it. */
export function isGlyphName(name: string): boolean {
  return !/[\p{L}\p{N}]/u.test(name);
}

/** Ref lines with no usable name and nothing below them, in outline order (at most MAX_DERIVED). */
export function unnamedRefs(built: BuiltTree): Unnamed[] {
  const index = new Map(built.refs.map((t, i) => [t.ref, i]));
  const out: Unnamed[] = [];
  const walk = (nodes: readonly SnapNode[]) => {
    for (const n of nodes) {
      if (out.length >= MAX_DERIVED) return;
      if (n.ref !== undefined && !n.children.length && isGlyphName(n.name)) {
        const i = index.get(n.ref);
        if (i !== undefined) out.push({ node: n, index: i, target: built.refs[i]! });
      }
      walk(n.children);
    }
  };
  walk(built.nodes);
  return out;
}

/** Gives a ref line its derived name, marked, in the outline and in the ref list. */
export function applyDerived(built: BuiltTree, u: Unnamed, name: string): void {
  u.node.name = name;
  u.node.derived = true;
  built.refs[u.index] = { ...built.refs[u.index]!, name, derived: true };
}

/** Whitespace collapsed, control/format/private-use characters dropped, bounded; undefined if nothing readable is left. */
export function cleanName(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const s = raw.replace(/[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}]/gu, " ").replace(/\s+/g, " ").trim();
  if (isGlyphName(s)) return undefined;
  const chars = Array.from(s);
  return chars.length <= MAX_DERIVED_CHARS ? s : `${chars.slice(0, MAX_DERIVED_CHARS - 1).join("").trimEnd()}…`;
}

const TOOLTIP_ATTRS = ["data-tooltip", "data-tip", "data-title", "data-original-title", "data-bs-original-title", "data-tooltip-content", "mattooltip", "tooltip"];
const TESTID_ATTRS = ["data-testid", "data-test-id"];

/** Icon-set prefixes of class tokens: `fa-trash`, `bi-star`, `mdi-delete`, `glyphicon-remove`, … */
const ICON_CLASS = /^(?:fa[srlbdt]?|glyphicon|bi|mdi|icon|ti|la[srb]?|codicon|octicon|lucide|ion|ri|bx[sl]?|feather|uil|oi|ph|dashicons|el-icon)-([a-z][a-z0-9-]*)$/;
/** `close-icon`, `trash_icon`. */
const ICON_SUFFIX = /^([a-z][a-z0-9-]*?)[-_]icon$/;
/** What an icon-set class says about its look, not what it is. */
const MODIFIER = /^(?:\d+x|\d+px|[1-9]?(?:xs|sm|lg|xl)|fw|solid|regular|light|thin|duotone|brands|sharp|spin(?:-.+)?|pulse|border|inverse|li|ul|beat(?:-fade)?|bounce|fade|shake|stack(?:-\dx)?|flip(?:-.+)?|rotate(?:-.+)?|pull-(?:left|right)|dark|inactive|outlined|rounded|filled)$/;
/** Words that name the wrapper, not the icon. */
const WRAPPER_WORDS = new Set(["icon", "icons", "btn", "button", "svg", "img", "image", "test", "id", "wrapper", "container", "root", "inline", "left", "right", "small", "large", "only", "default", "primary", "secondary", "material", "font", "text", "label"]);
/** Icon fonts drawn from ligatures: the element's text is the icon's name (`delete`, `arrow_back`). */
const LIGATURE_CLASS = /^(?:material-icons(?:-[a-z]+)?|material-symbols(?:-[a-z]+)?|google-symbols|mat-icon)$/;
const LIGATURE_TEXT = /^[a-z][a-z0-9_]{1,39}$/;

function attr(n: DomNodeLike, name: string): string | undefined {
  const a = n.attributes;
  if (!a) return undefined;
  for (let i = 0; i + 1 < a.length; i += 2) if (a[i] === name) return a[i + 1];
  return undefined;
}

/** Words of an identifier: `StarBorderIcon` → star border, `delete-button` → delete; wrapper words and numbers dropped. */
function words(id: string): string | undefined {
  const parts = id
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[\s\-_.:/]+/)
    .map((w) => w.toLowerCase())
    .filter((w) => /[a-z]/.test(w) && !WRAPPER_WORDS.has(w));
  return parts.length ? parts.join(" ") : undefined;
}

function classTokens(n: DomNodeLike): string[] {
  const out: string[] = [];
  for (const c of (attr(n, "class") ?? "").split(/\s+/)) {
    const m = ICON_CLASS.exec(c) ?? ICON_SUFFIX.exec(c);
    if (m && !MODIFIER.test(m[1]!)) {
      const w = words(m[1]!);
      if (w) out.push(w);
    }
  }
  return out;
}

function textOf(n: DomNodeLike): string {
  let s = "";
  for (const c of n.children ?? []) if (c.nodeType === 3) s += c.nodeValue ?? "";
  return s.trim();
}

/** The control's element and its descendants (shadow roots included), own first, in document order, bounded. */
function elements(root: DomNodeLike): DomNodeLike[] {
  const out: DomNodeLike[] = [];
  const walk = (n: DomNodeLike) => {
    if (out.length >= MAX_NODES) return;
    if (n.nodeType === 1) out.push(n);
    for (const s of n.shadowRoots ?? []) walk(s);
    for (const c of n.children ?? []) walk(c);
  };
  walk(root);
  return out;
}

/** The name a person would use for an icon-only control, from its DOM and AX description, or undefined. */
export function deriveName(dom: DomNodeLike | undefined, description: string | undefined): string | undefined {
  const els = dom ? elements(dom) : [];
  const firstOf = (pick: (n: DomNodeLike) => string | undefined): string | undefined => {
    for (const n of els) {
      const v = cleanName(pick(n));
      if (v) return v;
    }
    return undefined;
  };
  return (
    firstOf((n) => attr(n, "title")) ??
    cleanName(description) ??
    firstOf((n) => TOOLTIP_ATTRS.map((a) => attr(n, a)).find((v) => v?.trim())) ??
    firstOf((n) => (n.localName === "title" ? textOf(n) : undefined)) ??
    firstOf((n) => {
      const ligature = n.localName === "mat-icon" || (attr(n, "class") ?? "").split(/\s+/).some((c) => LIGATURE_CLASS.test(c));
      const t = ligature ? textOf(n) : "";
      return LIGATURE_TEXT.test(t) ? t.replace(/_/g, " ") : undefined;
    }) ??
    firstOf((n) => classTokens(n)[0] ?? (attr(n, "data-icon") !== undefined ? words(attr(n, "data-icon")!) : undefined)) ??
    firstOf((n) => TESTID_ATTRS.map((a) => attr(n, a)).map((v) => (v ? words(v) : undefined)).find((v) => v))
  );
}
