/**
 * How Chrome's accessibility tree is read: the node shape (a structural subset of CDP's AXNode, so the
 * vendor types stay in src/browser/cdp), the role tables that drive pruning, and property parsing.
 */

export interface AXValueLike {
  value?: unknown;
}
export interface AXPropertyLike {
  name: string;
  value: AXValueLike;
}
export interface AXNodeLike {
  nodeId: string;
  ignored?: boolean;
  role?: AXValueLike;
  name?: AXValueLike;
  value?: AXValueLike;
  /** aria-describedby, aria-description, a title not used as the name. */
  description?: AXValueLike;
  properties?: AXPropertyLike[];
  parentId?: string;
  childIds?: string[];
  backendDOMNodeId?: number;
}

/**
 * Roles a model acts on: always a ref. So does anything focusable or editable (a contenteditable host, a
 * tabindex widget, a keyboard-scrollable box), and a named region (drop zones, scroll areas are named so).
 */
const ACTIONABLE = new Set([
  "button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox", "option",
  "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider", "spinbutton", "treeitem",
]);

/** Controls that hold a value: shown as `role name: value`; their inner nodes are the browser's editor. */
export const VALUE_ROLES = new Set(["textbox", "searchbox", "spinbutton", "slider", "combobox", "Date", "DateTime", "InputTime", "ColorWell", "date", "datetime", "time"]);

/** Roles whose name is computed from their content: the content lines would only repeat the name. */
export const NAME_FROM_CONTENT = new Set([
  "button", "link", "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "option", "checkbox", "radio",
  "switch", "treeitem", "DisclosureTriangle", "heading", "image", "img", "tooltip",
]);

/** Containers shown even without a name: they carry structure a model uses (landmarks, lists, widgets). */
export const KEEP_CONTAINER = new Set([
  "list", "table", "grid", "treegrid", "tree", "navigation", "main", "banner", "contentinfo", "complementary",
  "form", "search", "dialog", "alertdialog", "menu", "menubar", "tablist", "toolbar", "listbox", "radiogroup",
  "tabpanel",
]);

/** Text containers: their runs merge without added spaces (inline content), and stay apart from neighbours. */
export const BLOCK_TEXT = new Set([
  "paragraph", "listitem", "cell", "gridcell", "columnheader", "rowheader", "blockquote", "caption",
  "figcaption", "legend", "term", "definition", "DescriptionListTerm", "DescriptionListDetail", "heading",
  "Pre", "pre", "status", "log", "alert", "note", "Abbr", "superscript", "subscript",
]);

export const CELL_ROLES = new Set(["cell", "gridcell", "columnheader", "rowheader"]);

/** Never rendered, nor their subtrees. */
export const DROP = new Set(["InlineTextBox", "ListMarker"]);

/** Never get a ref even when focusable: the document itself and frame hosts. */
export const NO_REF = new Set(["RootWebArea", "WebArea", "Iframe", "IframePresentational", "document"]);

/**
 * An AX node that gets a ref on its own account: an acting role, focusable or editable (tree.ts leaves out
 * the editable nodes inside an editable host), or a named region.
 */
export function hasOwnRef(ax: AXNodeLike, role: string, name: string, focusableOrEditable: boolean): boolean {
  return ax.backendDOMNodeId !== undefined && !NO_REF.has(role) && (ACTIONABLE.has(role) || focusableOrEditable || (role === "region" && name !== ""));
}

/**
 * An AX node that is one control: an acting role or an editable host. What is inside one is part of it. A node
 * that is only focusable (`<main tabindex="-1">`, a focusable chart or mail pane) or a named region is not: the
 * controls inside it are controls of their own.
 */
export function isControl(ax: AXNodeLike, role: string, editable: boolean): boolean {
  return ax.backendDOMNodeId !== undefined && !NO_REF.has(role) && (ACTIONABLE.has(role) || editable);
}

const ROLE_NAMES: Record<string, string> = {
  image: "img",
  DisclosureTriangle: "summary",
  Iframe: "iframe",
  IframePresentational: "iframe",
  Date: "date",
  DateTime: "datetime",
  InputTime: "time",
  ColorWell: "color",
  MenuListOption: "option",
  ListBoxOption: "option",
  PopUpButton: "combobox",
  StaticText: "text",
  RootWebArea: "document",
  LabelText: "label",
  DescriptionList: "list",
  DescriptionListTerm: "term",
  DescriptionListDetail: "definition",
  Pre: "pre",
  Canvas: "canvas",
  Video: "video",
  Audio: "audio",
  Section: "region",
};

export function displayRole(role: string): string {
  return ROLE_NAMES[role] ?? role;
}

/** Whitespace collapsed to single spaces; edges kept (they decide how runs join). */
export function squash(s: string): string {
  return s.replace(/\s+/g, " ");
}

export function str(v: AXValueLike | undefined): string {
  const x = v?.value;
  if (x === undefined || x === null) return "";
  return typeof x === "string" ? x : String(x);
}

export interface Props {
  focusable: boolean;
  editable: boolean;
  level: number | undefined;
  states: string[] | undefined;
}

export function readProps(ax: AXNodeLike): Props {
  const p: Props = { focusable: false, editable: false, level: undefined, states: undefined };
  const list = ax.properties;
  if (!list) return p;
  const add = (s: string) => (p.states ??= []).push(s);
  for (const prop of list) {
    const v = prop.value?.value;
    switch (prop.name) {
      case "focusable":
        p.focusable = v === true;
        break;
      case "editable":
        p.editable = typeof v === "string" && v !== "" && v !== "false";
        break;
      case "level":
        if (typeof v === "number") p.level = v;
        break;
      case "checked":
        if (v === "true" || v === true) add("checked");
        else if (v === "mixed") add("mixed");
        break;
      case "pressed":
        if (v === "true" || v === true) add("pressed");
        else if (v === "mixed") add("pressed=mixed");
        break;
      case "disabled":
        if (v === true) add("disabled");
        break;
      case "expanded":
        if (v === true) add("expanded");
        break;
      case "selected":
        if (v === true) add("selected");
        break;
    }
  }
  return p;
}
