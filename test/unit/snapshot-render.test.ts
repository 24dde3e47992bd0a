/**
 * Snapshot model and renderer on hand-built accessibility trees (the shapes Chrome's getFullAXTree returns:
 * ignored wrappers, StaticText + InlineTextBox, LabelText, MenuListPopup, editor nodes inside inputs).
 */
import { describe, expect, it } from "vitest";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { buildTree, estimateTokens, RefMap, render, type AXNodeLike, type FrameAXTree } from "../../src/snapshot/index.js";
import { LISTENER, POINTER, addListeners, addPointers } from "../../src/snapshot/clickable.js";

// ——— a tiny builder: nested specs → a flat AXNode array like CDP's ———

interface Spec {
  role: string;
  name?: string;
  value?: string | number;
  ignored?: boolean;
  props?: Record<string, unknown>;
  be?: number;
  children?: Spec[];
}

const n = (role: string, name?: string, children: Spec[] = [], extra: Partial<Spec> = {}): Spec => ({ role, children, ...extra, ...(name !== undefined ? { name } : {}) });
/** StaticText with its InlineTextBox, as Chrome reports text. */
const t = (text: string): Spec => n("StaticText", text, [n("InlineTextBox", text, [], { be: -1 })]);
const ign = (...children: Spec[]): Spec => ({ role: "none", ignored: true, children });
const gen = (...children: Spec[]): Spec => n("generic", "", children);
const btn = (name: string, extra: Partial<Spec> = {}): Spec => n("button", name, [t(name)], { props: { focusable: true }, ...extra });

let backend = 1000;
function flatten(root: Spec): AXNodeLike[] {
  const out: AXNodeLike[] = [];
  let id = 1;
  const walk = (s: Spec, parentId: string | undefined): string => {
    const nodeId = String(id++);
    const node: AXNodeLike = { nodeId, ignored: !!s.ignored, role: { value: s.role } };
    if (parentId) node.parentId = parentId;
    if (s.name !== undefined) node.name = { value: s.name };
    if (s.value !== undefined) node.value = { value: s.value };
    if (s.be !== -1) node.backendDOMNodeId = s.be ?? backend++;
    if (s.props) node.properties = Object.entries(s.props).map(([name, value]) => ({ name, value: { value } }));
    out.push(node);
    node.childIds = (s.children ?? []).map((c) => walk(c, nodeId));
    return nodeId;
  };
  walk(root, undefined);
  return out;
}

function page(...body: Spec[]): Spec {
  return n("RootWebArea", "Page", [ign(ign(...body))], { props: { focusable: true } });
}

function snap(root: Spec, opts: Parameters<typeof buildTree>[1] = {}, maxTokens?: number) {
  const built = buildTree([{ frameId: "F", nodes: flatten(root) }], opts);
  const out = render(built.nodes, maxTokens !== undefined ? { maxTokens } : {});
  return { text: out.text, refs: new RefMap(built.refs), out };
}

// ——— pruning ———

describe("pruning", () => {
  it("drops ignored and generic wrappers, InlineTextBox, and text that repeats a name", () => {
    const { text } = snap(page(n("heading", "Sign in", [t("Sign in")], { props: { level: 1 } }), gen(gen(btn("Continue")))));
    expect(text).toBe("h1 Sign in\ne1 button Continue");
  });

  it("merges text runs: inline inside a paragraph, spaced between blocks", () => {
    const { text } = snap(
      page(
        n("paragraph", "", [t("Read the "), n("code", "", [t("fs")]), t(" docs"), n("LineBreak", "\n"), t("then go.")]),
        gen(t("Price")),
        gen(t("$5")),
      ),
    );
    expect(text).toBe("Read the fs docs then go.\nPrice $5");
  });

  it("keeps a paragraph's text apart from its neighbours and links inline as their own lines", () => {
    const { text } = snap(page(n("paragraph", "", [t("One.")]), n("paragraph", "", [t("See "), n("link", "docs", [t("docs")], { props: { focusable: true } }), t(" now.")])));
    expect(text).toBe("One.\nSee\ne1 link docs\nnow.");
  });

  it("drops a label's text next to the control it names", () => {
    const { text } = snap(
      page(
        n("paragraph", "", [n("LabelText", "", [t("Email")]), n("textbox", "Email", [gen(t("x"))], { value: "ada@example.com", props: { focusable: true, editable: "plaintext" } })]),
        n("checkbox", "Remember me", [], { props: { focusable: true, checked: "true" } }),
        n("LabelText", "", [t("Remember me")]),
      ),
    );
    expect(text).toBe("e1 textbox Email: ada@example.com\ne2 checkbox Remember me [checked]");
  });

  it("shows states only when set", () => {
    const { text } = snap(
      page(
        btn("Menu", { props: { focusable: true, expanded: false } }),
        btn("Open", { props: { focusable: true, expanded: true } }),
        btn("Bold", { props: { focusable: true, pressed: "true" } }),
        btn("Off", { props: { disabled: true } }),
        n("checkbox", "Maybe", [], { props: { checked: "mixed" } }),
        n("checkbox", "No", [], { props: { checked: "false" } }),
      ),
    );
    expect(text).toBe(
      ["e1 button Menu", "e2 button Open [expanded]", "e3 button Bold [pressed]", "e4 button Off [disabled]", "e5 checkbox Maybe [mixed]", "e6 checkbox No"].join("\n"),
    );
  });

  it("lists a native select's options on one line, and the select's value", () => {
    const select = n("combobox", "Country", [n("MenuListPopup", "", [n("option", "France", [], { props: { selected: true } }), n("option", "Japan")])], {
      value: "France",
      props: { focusable: true, expanded: false },
    });
    const { text, refs } = snap(page(select));
    expect(text).toBe("e1 combobox Country: France\n  options: France | Japan");
    expect(refs.size).toBe(1);
  });

  it("gives ARIA listbox options refs", () => {
    const { text } = snap(page(n("listbox", "Fruits", [n("option", "Apple", [t("Apple")]), n("option", "Banana", [t("Banana")], { props: { selected: true } })])));
    expect(text).toBe("e1 listbox Fruits\n  e2 option Apple\n  e3 option Banana [selected]");
  });

  it("keeps lists and landmarks, hoists list items that hold one thing", () => {
    const { text } = snap(
      page(
        n("navigation", "Main", [
          n("list", "", [
            n("listitem", "", [n("ListMarker", "• "), n("link", "Home", [t("Home")])]),
            n("listitem", "", [n("link", "Docs", [t("Docs")]), t(" (new)")]),
            n("listitem", "", [t("Plain")]),
          ]),
        ]),
      ),
    );
    expect(text).toBe(["navigation Main", "  list", "    e1 link Home", "    listitem", "      e2 link Docs", "      (new)", "    Plain"].join("\n"));
  });

  it("renders table rows as cell texts, with controls in cells below the row", () => {
    const cell = (...c: Spec[]) => n("cell", "", c);
    const { text } = snap(
      page(
        n("table", "", [
          ign(n("row", "", [n("columnheader", "Name", [t("Name")]), n("columnheader", "Qty", [t("Qty")]), n("columnheader", "Edit", [t("Edit")])])),
          ign(n("row", "", [cell(t("Apple")), cell(), cell(btn("Edit Apple"))])),
        ]),
      ),
    );
    expect(text).toBe(["table", "  Name | Qty | Edit", "  Apple", "    e1 button Edit Apple"].join("\n"));
  });

  it("gives refs to focusable and contenteditable nodes, not to their editor parts or the document", () => {
    const { text, refs } = snap(
      page(
        n("generic", "", [t("Focusable div")], { props: { focusable: true } }),
        n("generic", "", [t("Editable "), t("text")], { value: "Editable text", props: { focusable: true, editable: "richtext" } }),
        n("spinbutton", "", [ign(n("generic", "", [t("5")], { props: { editable: "plaintext" } }))], { value: 5, props: { focusable: true, editable: "plaintext" } }),
        n("region", "Drop zone", [t("Drop here")]),
        n("region", "", [t("Unnamed region")]),
      ),
    );
    expect(text).toBe(["e1 generic Focusable div", "e2 generic: Editable text", "e3 spinbutton: 5", "e4 region Drop zone", "  Drop here", "Unnamed region"].join("\n"));
    expect(refs.list().map((r) => r.role)).toEqual(["generic", "generic", "spinbutton", "region"]);
    expect(refs.get("e1")?.name).toBe("Focusable div");
  });

  it("keeps controls nested in a link or button, drops the rest of its content", () => {
    const { text } = snap(page(n("link", "Card title Card text", [n("heading", "Card title", [t("Card title")]), t("Card text"), btn("Like")])));
    expect(text).toBe("e1 link Card title Card text\n  e2 button Like");
  });

  it("drops unnamed images and empty containers", () => {
    const { text } = snap(page(n("image", ""), n("image", "Logo"), n("list", "", []), n("status", "", [])));
    expect(text).toBe("img Logo");
  });
});

// ——— frames and refs ———

describe("frames and refs", () => {
  it("grafts each child frame under its owner iframe and numbers refs in document order across frames", () => {
    const main = flatten(page(btn("Top", { be: 1 }), n("Iframe", "Payment", [], { be: 2 }), btn("Bottom", { be: 3 })));
    const child = flatten(n("RootWebArea", "Child", [ign(btn("Pay", { be: 1 }), n("Iframe", "", [], { be: 2 }))], { props: { focusable: true } }));
    const grand = flatten(n("RootWebArea", "Grand", [n("textbox", "Card", [], { be: 7, props: { focusable: true, editable: "plaintext" } })]));
    const frames: FrameAXTree[] = [
      { frameId: "main", nodes: main },
      { frameId: "child", parentFrameId: "main", ownerBackendNodeId: 2, nodes: child },
      { frameId: "grand", parentFrameId: "child", ownerBackendNodeId: 2, nodes: grand },
    ];
    const built = buildTree(frames);
    expect(render(built.nodes).text).toBe(["e1 button Top", "iframe Payment", "  e2 button Pay", "  iframe", "    e3 textbox Card", "e4 button Bottom"].join("\n"));
    const refs = new RefMap(built.refs);
    expect(refs.get("e1")).toEqual({ ref: "e1", frameId: "main", backendNodeId: 1, role: "button", name: "Top" });
    expect(refs.get("e2")).toMatchObject({ frameId: "child", backendNodeId: 1 });
    expect(refs.get("[e3]")).toMatchObject({ frameId: "grand", backendNodeId: 7, role: "textbox", name: "Card" });
    expect(refs.get("ref=e4")).toMatchObject({ frameId: "main", backendNodeId: 3 });
    expect(refs.get("e5")).toBeUndefined();
    expect(refs.findByNode("child", 1)?.ref).toBe("e2");
    expect(refs.list().map((r) => r.ref)).toEqual(["e1", "e2", "e3", "e4"]);
  });

  it("skips a frame whose owner is not in its parent's tree, keeps an iframe line with nothing captured", () => {
    const main = flatten(page(n("Iframe", "Ads", [], { be: 2 }), btn("Ok", { be: 3 })));
    const orphan = flatten(n("RootWebArea", "X", [btn("Lost", { be: 1 })]));
    const built = buildTree([
      { frameId: "main", nodes: main },
      { frameId: "orphan", parentFrameId: "main", ownerBackendNodeId: 99, nodes: orphan },
    ]);
    expect(render(built.nodes).text).toBe("iframe Ads\ne1 button Ok");
  });

  it("RefMap.normalize accepts the ways a model writes a ref", () => {
    expect(RefMap.normalize("e12")).toBe("e12");
    expect(RefMap.normalize(" [e12] ")).toBe("e12");
    expect(RefMap.normalize("ref=e12")).toBe("e12");
    expect(RefMap.normalize("#e12")).toBeUndefined();
    expect(RefMap.isRef("button")).toBe(false);
  });
});

// ——— options ———

describe("options", () => {
  const body = () =>
    page(
      n("heading", "Account", [t("Account")], { props: { level: 2 } }),
      n("paragraph", "", [t("Some long explanation of the account page.")]),
      n("form", "Profile", [n("textbox", "Name", [], { props: { focusable: true, editable: "plaintext" } }), btn("Save")]),
      n("paragraph", "", [t("Footer text")]),
    );

  it("interactiveOnly keeps ref lines and headings", () => {
    expect(snap(body(), { interactiveOnly: true }).text).toBe("h2 Account\ne1 textbox Name\ne2 button Save");
  });

  it("scope limits the outline to one element's subtree", () => {
    const nodes = flatten(body());
    const form = nodes.find((x) => x.role?.value === "form")!;
    const built = buildTree([{ frameId: "F", nodes }], { scope: { frameId: "F", backendNodeId: form.backendDOMNodeId! } });
    expect(render(built.nodes).text).toBe("form Profile\n  e1 textbox Name\n  e2 button Save");
    expect(() => buildTree([{ frameId: "F", nodes }], { scope: { frameId: "F", backendNodeId: 424242 } })).toThrow(/scope element/);
  });

  it("maxTokens trims text but never a ref line", () => {
    const long = "word ".repeat(400).trim();
    const items: Spec[] = [];
    for (let i = 0; i < 30; i++) items.push(n("paragraph", "", [t(`Paragraph ${i}: ${long}`)]), btn(`Action ${i}`));
    const root = page(...items);
    const full = snap(root).out;
    expect(full.tokens).toBeGreaterThan(5000);

    const budget = 400;
    const trimmed = snap(root, {}, budget).out;
    expect(trimmed.tokens).toBeLessThanOrEqual(budget);
    for (let i = 0; i < 30; i++) expect(trimmed.text).toContain(`e${i + 1} button Action ${i}`);
    expect(trimmed.text).toMatch(/… \d+ text lines omitted \(token budget\)$/);
    expect(trimmed.text).toContain("Paragraph 0: word word");
    expect(trimmed.text).toContain("…");

    // A budget the refs alone exceed: every ref line still there.
    const tiny = snap(root, {}, 10).out;
    for (let i = 0; i < 30; i++) expect(tiny.text).toContain(`e${i + 1} button`);

    // A generous budget changes nothing.
    expect(snap(root, {}, full.tokens + 10).out.text).toBe(full.text);
  });
});

// ——— token estimate ———

describe("clickable elements without a role", () => {
  const clickSnap = (root: Spec, clickable: Map<number, number>) => {
    const built = buildTree([{ frameId: "F", nodes: flatten(root), clickable }]);
    return { text: render(built.nodes).text, refs: new RefMap(built.refs) };
  };
  const span = (be: number, ...children: Spec[]) => n("generic", "", children, { be });

  it("a span or div with a listener or its own pointer gets a `clickable` ref named by its text; plain text stays text", () => {
    const s = clickSnap(page(n("paragraph", "", [t("I accept the "), span(1, t("terms")), t(" of use.")]), span(2, t("Submit")), span(3, t("Plain"))), new Map([[1, LISTENER | POINTER], [2, POINTER]]));
    expect(s.text).toBe("I accept the\ne1 clickable terms\nof use.\ne2 clickable Submit\nPlain");
    expect(s.refs.get("e1")).toMatchObject({ role: "clickable", name: "terms", backendNodeId: 1 });
  });

  it("one ref for the outermost clickable: nested spans and pointer children get none of their own", () => {
    const card = span(1, span(2, t("Open")), t(" "), span(3, n("emphasis", "", [t("the")], { be: 4 }), t(" card")));
    const s = clickSnap(page(card), new Map([[1, LISTENER | POINTER], [2, POINTER], [3, LISTENER]]));
    expect(s.text).toBe("e1 clickable Open the card");
    expect(s.refs.size).toBe(1);
  });

  it("nothing inside an element that already has a ref; a listener-only container of controls is no control", () => {
    const inButton = n("button", "Go", [span(1, t("Go"))], { props: { focusable: true } });
    const app = span(2, btn("App button"), span(3, t("Row")));
    const s = clickSnap(page(inButton, app), new Map([[1, POINTER], [2, LISTENER], [3, POINTER]]));
    expect(s.text).toBe("e1 button Go\ne2 button App button\ne3 clickable Row");
    // With its own pointer the container is a control (a mail row holding a checkbox): it keeps its ref.
    const row = clickSnap(page(span(2, btn("Star"), t("Mail from Ada"))), new Map([[2, POINTER]]));
    expect(row.text).toBe("e1 clickable\n  e2 button Star\n  Mail from Ada");
  });

  it("a container that is only focusable, or a named region, is no control: the clickables inside get refs", () => {
    const main = n("main", "", [span(1, t("Parameters")), btn("Execute")], { props: { focusable: true } });
    const pane = n("generic", "", [span(2, t("Reply")), t(" "), span(3, t("Forward"))], { props: { focusable: true } });
    const region = n("region", "Files", [span(4, t("Open"))]);
    const s = clickSnap(page(main, pane, region), new Map([[1, POINTER], [2, LISTENER], [3, POINTER], [4, LISTENER]]));
    expect(s.text).toBe("e1 main\n  e2 clickable Parameters\n  e3 button Execute\ne4 generic\n  e5 clickable Reply\n  e6 clickable Forward\ne7 region Files\n  e8 clickable Open");
  });

  it("a semantic role keeps its name (listitem, img); no ref for labels or the document", () => {
    const s = clickSnap(page(n("list", "", [n("listitem", "", [t("Inbox")], { be: 1 })]), n("LabelText", "", [t("Name")], { be: 2 })), new Map([[1, LISTENER], [2, POINTER]]));
    expect(s.text).toBe("list\n  e1 listitem Inbox\nName");
  });

  it("listeners that mean a click mark their element; others, and the window's, do not", () => {
    const flags = new Map<number, number>();
    addListeners(flags, [{ type: "click", backendNodeId: 1 }, { type: "pointerdown", backendNodeId: 2 }, { type: "mousedown", backendNodeId: 1 }, { type: "scroll", backendNodeId: 3 }, { type: "click" }, { type: "keydown", backendNodeId: 4 }]);
    addPointers(flags, [2, 5]);
    expect([...flags]).toEqual([[1, LISTENER], [2, LISTENER | POINTER], [5, POINTER]]);
  });
});

describe("estimateTokens", () => {
  it("stays within ~20% of o200k on snapshot-shaped text", () => {
    const lines: string[] = [];
    for (let i = 1; i <= 200; i++) {
      lines.push(`  e${i} link fsPromises.appendFile(path, data[, options]) item ${i}`);
      lines.push(`    Returns a promise that resolves once the data has been appended to the file number ${i}.`);
      lines.push(`  ${i} | Item ${i} | Description of item ${i}`);
    }
    const text = lines.join("\n");
    const ratio = estimateTokens(text) / encode(text).length;
    expect(ratio).toBeGreaterThan(0.8);
    expect(ratio).toBeLessThan(1.2);
    expect(estimateTokens("")).toBe(0);
  });
});
