/**
 * Names for icon-only controls (src/snapshot/icon-name.ts) on hand-built DOM subtrees: the order of the
 * sources, what an icon class or test-id says, what counts as no name, and that page text is bounded and
 * cleaned; the outline marks a derived name and names only ref lines with nothing below them.
 */
import { describe, expect, it } from "vitest";
import { MAX_DERIVED_CHARS, applyDerived, cleanName, deriveName, isGlyphName, unnamedRefs, type DomNodeLike } from "../../src/snapshot/icon-name.js";
import { buildTree, render, type AXNodeLike } from "../../src/snapshot/index.js";

const el = (localName: string, attrs: Record<string, string> = {}, ...children: DomNodeLike[]): DomNodeLike => ({
  nodeType: 1,
  nodeName: localName.toUpperCase(),
  localName,
  attributes: Object.entries(attrs).flat(),
  children,
});
const text = (s: string): DomNodeLike => ({ nodeType: 3, nodeName: "#text", nodeValue: s });
const button = (...children: DomNodeLike[]) => el("button", {}, ...children);

describe("deriveName", () => {
  it("takes each kind of source in order: title, description, tooltip, SVG title, ligature, icon class, test-id", () => {
    const svg = (attrs: Record<string, string>, ...c: DomNodeLike[]) => el("svg", { "aria-hidden": "true", ...attrs }, ...c);
    expect(deriveName(el("a", { title: "Alter table" }, text("?")), "Alter table")).toBe("Alter table");
    expect(deriveName(button(svg({})), "Share this page")).toBe("Share this page");
    expect(deriveName(el("button", { "data-tooltip": "Archive" }, svg({})), undefined)).toBe("Archive");
    expect(deriveName(button(svg({}, el("title", {}, text("Settings")))), undefined)).toBe("Settings");
    expect(deriveName(button(el("span", { class: "material-icons", "aria-hidden": "true" }, text("arrow_back"))), undefined)).toBe("arrow back");
    expect(deriveName(button(el("mat-icon", {}, text("star"))), undefined)).toBe("star");
    expect(deriveName(button(el("i", { class: "fa fa-solid fa-2x fa-trash-can" })), undefined)).toBe("trash can");
    expect(deriveName(button(el("span", { class: "close-icon" })), undefined)).toBe("close");
    expect(deriveName(button(svg({ "data-icon": "pen-to-square" })), undefined)).toBe("pen to square");
    expect(deriveName(button(svg({ "data-testid": "StarBorderIcon" })), undefined)).toBe("star border");
    // Earlier sources win over later ones, wherever they are in the subtree.
    const all = el("button", { "data-testid": "DeleteIcon" }, el("i", { class: "fa-trash", title: "Remove row" }));
    expect(deriveName(all, "Deletes the row")).toBe("Remove row");
    expect(deriveName(el("button", { "data-testid": "DeleteIcon" }, el("i", { class: "fa-trash" })), undefined)).toBe("trash");
  });

  it("finds nothing in a plain icon: ligature text needs an icon font's class, a class an icon set's prefix", () => {
    expect(deriveName(button(el("span", {}, text("delete"))), undefined)).toBeUndefined();
    expect(deriveName(button(el("span", { class: "btn btn-primary fa-fw fa-lg" })), undefined)).toBeUndefined();
    expect(deriveName(button(el("svg", { "data-testid": "icon-button-42" })), undefined)).toBeUndefined();
    expect(deriveName(undefined, undefined)).toBeUndefined();
  });
});

describe("cleanName and isGlyphName", () => {
  it("a name with no letter or digit is no name: ?, ×, a private-use glyph", () => {
    for (const s of ["", "?", "×", "\uf1f8", " ⋮ "]) expect(isGlyphName(s), s).toBe(true);
    for (const s of ["Save", "2", "設定"]) expect(isGlyphName(s), s).toBe(false);
  });

  it("page text is cleaned (controls, bidi overrides, private use) and bounded", () => {
    expect(cleanName("  Edit\n\trow\u202e\u0000 ")).toBe("Edit row");
    const long = cleanName("word ".repeat(40))!;
    expect(Array.from(long)).toHaveLength(MAX_DERIVED_CHARS);
    expect(long.endsWith("…")).toBe(true);
    // Counted in characters, not UTF-16 units: an astral letter is never split.
    expect(Array.from(cleanName("𝐀".repeat(100))!)).toHaveLength(MAX_DERIVED_CHARS);
    expect(cleanName("\u200b\uf1f8")).toBeUndefined();
  });
});

describe("derived names in the outline", () => {
  const nodes: AXNodeLike[] = [
    { nodeId: "1", role: { value: "RootWebArea" }, childIds: ["2", "3", "5"], backendDOMNodeId: 1 },
    { nodeId: "2", parentId: "1", role: { value: "button" }, name: { value: "" }, backendDOMNodeId: 2, properties: [{ name: "pressed", value: { value: "true" } }] },
    { nodeId: "3", parentId: "1", role: { value: "main" }, name: { value: "" }, childIds: ["4"], backendDOMNodeId: 3, properties: [{ name: "focusable", value: { value: true } }] },
    { nodeId: "4", parentId: "3", role: { value: "button" }, name: { value: "Go" }, backendDOMNodeId: 4 },
    { nodeId: "5", parentId: "1", role: { value: "button" }, name: { value: "Save" }, backendDOMNodeId: 5 },
  ];

  it("only ref lines with nothing below them are candidates; the name is marked, before the states", () => {
    const built = buildTree([{ frameId: "F", nodes }]);
    const wanted = unnamedRefs(built);
    expect(wanted.map((u) => u.target.backendNodeId)).toEqual([2]);
    applyDerived(built, wanted[0]!, "star");
    expect(render(built.nodes).text).toBe("e1 button star (icon) [pressed]\ne2 main\n  e3 button Go\ne4 button Save");
    expect(built.refs[0]).toMatchObject({ name: "star", derived: true });
    expect(built.refs[3]!.derived).toBeUndefined();
  });
});
