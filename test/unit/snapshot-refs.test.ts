/**
 * PageRefs (src/snapshot/registry.ts) on hand-built AX trees: numbers stay with their element while its
 * role and name hold, are never given to another element, a new document drops the refs (not the counter),
 * the rendered outline shows the page-wide numbers, and the state round-trips through JSON (validated).
 */
import { describe, expect, it } from "vitest";
import { ServiceStateError } from "../../src/errors.js";
import { PageRefs, buildTree, render, type AXNodeLike, type FrameAXTree } from "../../src/snapshot/index.js";

interface El {
  id: number;
  role: string;
  name: string;
}

/** One frame: a document holding the given elements (backendNodeId = id). */
function frame(els: El[], frameId = "F"): FrameAXTree {
  const nodes: AXNodeLike[] = [{ nodeId: "root", role: { value: "RootWebArea" }, name: { value: "t" }, childIds: els.map((e) => `n${e.id}`), backendDOMNodeId: 1 }];
  for (const e of els) nodes.push({ nodeId: `n${e.id}`, parentId: "root", role: { value: e.role }, name: { value: e.name }, backendDOMNodeId: e.id });
  return { frameId, nodes };
}

function snap(refs: PageRefs, els: El[], complete = true) {
  const trees = [frame(els)];
  const built = buildTree(trees);
  refs.assign(built, trees, complete);
  return { refs: built.refs.map((t) => `${t.ref} ${t.role} ${t.name}`), text: render(built.nodes).text };
}

const A = { id: 10, role: "button", name: "Save" };
const B = { id: 11, role: "textbox", name: "Email" };
const C = { id: 12, role: "link", name: "Help" };

describe("PageRefs", () => {
  it("keeps an element's ref across snapshots; new elements get new numbers, in document order", () => {
    const refs = new PageRefs();
    refs.enter("doc1");
    expect(snap(refs, [A, B]).refs).toEqual(["e1 button Save", "e2 textbox Email"]);
    const second = snap(refs, [C, A, B]);
    expect(second.refs).toEqual(["e3 link Help", "e1 button Save", "e2 textbox Email"]);
    expect(second.text).toBe("e3 link Help\ne1 button Save\ne2 textbox Email");
  });

  it("an element whose name changed gets a new number; the old one is never given again", () => {
    const refs = new PageRefs();
    refs.enter("doc1");
    snap(refs, [A, B]);
    expect(snap(refs, [{ ...A, name: "Delete" }, B]).refs).toEqual(["e3 button Delete", "e2 textbox Email"]);
    expect(refs.get("e1")).toBeUndefined();
    expect(refs.explain("e1")).toMatch(/gone, or its role or name changed/);
    // Back to its old name: still a new number (e1 is spent).
    expect(snap(refs, [A, B]).refs[0]).toBe("e4 button Save");
  });

  it("a complete snapshot forgets elements it no longer shows; a scoped one does not", () => {
    const refs = new PageRefs();
    refs.enter("doc1");
    snap(refs, [A, B, C]);
    snap(refs, [B], false);
    expect(refs.get("e1")?.name).toBe("Save");
    snap(refs, [B]);
    expect(refs.get("e1")).toBeUndefined();
    expect(refs.get("e2")?.backendNodeId).toBe(11);
    expect(snap(refs, [A, B]).refs).toEqual(["e4 button Save", "e2 textbox Email"]);
  });

  it("a new document drops every ref but not the counter", () => {
    const refs = new PageRefs();
    refs.enter("doc1");
    snap(refs, [A, B]);
    refs.enter("doc2");
    expect(refs.get("e1")).toBeUndefined();
    expect(refs.explain("e1")).toMatch(/earlier document: the page navigated/);
    expect(snap(refs, [A, B]).refs).toEqual(["e3 button Save", "e4 textbox Email"]);
    expect(refs.explain("e9")).toMatch(/not shown by any snapshot/);
  });

  it("records Chrome's own role and name of each element, and accepts ref spellings a model writes", () => {
    const refs = new PageRefs();
    refs.enter("doc1");
    snap(refs, [A]);
    expect(refs.get("[e1]")?.ax).toEqual({ role: "button", name: "Save" });
    expect(refs.get("ref=e1")?.ref).toBe("e1");
  });

  it("round-trips through JSON, and a corrupt state names its field", () => {
    const refs = new PageRefs();
    refs.enter("doc1");
    snap(refs, [A, B]);
    const back = PageRefs.restore(JSON.parse(JSON.stringify(refs)));
    expect(back.document).toBe("doc1");
    expect(back.get("e2")?.name).toBe("Email");
    back.enter("doc1");
    expect(snap(back, [A, B, C]).refs).toEqual(["e1 button Save", "e2 textbox Email", "e3 link Help"]);
    expect(() => PageRefs.restore({ next: "x", first: 1, refs: [] })).toThrow(ServiceStateError);
    expect(() => PageRefs.restore({ next: "x", first: 1, refs: [] })).toThrow(/corrupt ref map: next: /);
    expect(() => PageRefs.restore({ next: 2, first: 1, refs: [{ ref: "e5", frameId: "F", backendNodeId: 3, role: "button", name: "x" }] })).toThrow(/e5 is not below next/);
  });
});
