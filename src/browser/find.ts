/**
 * Finding elements the way a person names them (`svc find`): role and name, text, label, placeholder, `data-testid`,
 * in every frame (OOPIFs too; main frame first). It runs in svc's isolated world so the page's patches do not reach
 * it; roles come from Chrome's accessibility tree, the rest from the DOM. Matching ignores case on collapsed
 * whitespace.
 */
import type { CdpSession } from "./cdp/connection.js";
import { callOn } from "./element.js";
import { OBJECT_GROUP, utilityContext, type Frame, type FrameTree } from "./frames.js";
import { elementFromNode, type ElementHandle } from "./resolve.js";
import { pageFunction } from "./selector.js";
import type { FindKind } from "../util/find-kinds.js";

export { FIND_KINDS, type FindKind } from "../util/find-kinds.js";

export interface FindQuery {
  kind: FindKind;
  value: string;
  /** With `role`: the accessible name (contains, or equals with `exact`). */
  name?: string;
  exact?: boolean;
}

export interface Found {
  /** The matches in document order, at most `limit` of them. */
  elements: ElementHandle[];
  /** How many elements matched in all. */
  total: number;
}

/** Runs in a frame's isolated world with `this` = its document: the matches (first `limit`) and their count as `total`. */
function pageFind(this: Document, kind: string, value: string, exact: boolean, limit: number): Element[] & { total?: number } {
  const norm = (s: string | null | undefined) => (s ?? "").replace(/\s+/g, " ").trim().toLowerCase();
  const want = norm(value);
  const matches = (s: string | null | undefined) => (exact ? norm(s) === want : norm(s).includes(want));
  const all: Element[] = [];
  const walk = (root: Document | ShadowRoot) => {
    for (const el of Array.from(root.querySelectorAll("*"))) {
      all.push(el);
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(this);
  const visible = (el: Element) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  const labels = (el: Element): string[] => {
    const out: string[] = [];
    const aria = el.getAttribute("aria-label");
    if (aria) out.push(aria);
    const by = el.getAttribute("aria-labelledby");
    const root = el.getRootNode() as Document | ShadowRoot;
    if (by) out.push(by.split(/\s+/).map((id) => root.getElementById?.(id)?.textContent ?? "").join(" "));
    const own = (el as HTMLInputElement).labels;
    if (own) for (const l of Array.from(own)) out.push(l.textContent ?? "");
    return out;
  };
  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "TITLE", "HTML", "BODY"]);
  // Text: the innermost elements holding it (a child holding it all names the match more closely).
  const text = (el: Element) => (el instanceof HTMLInputElement && /^(button|submit|reset)$/.test(el.type) ? el.value : el.textContent);
  const holds = (el: Element) => (exact ? matches(text(el)) : norm(text(el)).includes(want));
  let hits: Element[];
  if (kind === "testid") hits = all.filter((e) => e.getAttribute("data-testid") === value);
  else if (kind === "placeholder") hits = all.filter((e) => e.hasAttribute("placeholder") && matches(e.getAttribute("placeholder")));
  else if (kind === "label") hits = all.filter((e) => labels(e).some(matches));
  else hits = all.filter((e) => !SKIP.has(e.tagName) && holds(e) && !Array.from(e.children).some((c) => norm(text(c)).includes(want)) && visible(e));
  const out = hits.slice(0, limit) as Element[] & { total?: number };
  out.total = hits.length;
  return out;
}

async function documentObject(frame: Frame): Promise<string | undefined> {
  const contextId = await utilityContext(frame);
  const res = await frame.session.send("Runtime.evaluate", { expression: "document", contextId, objectGroup: OBJECT_GROUP });
  return res.result.objectId;
}

/** The elements of one frame the DOM search found (first `limit`), and how many matched in all. */
async function domFind(frame: Frame, query: FindQuery, limit: number): Promise<Found> {
  const doc = await documentObject(frame);
  if (!doc) return { elements: [], total: 0 };
  const res = await frame.session.send("Runtime.callFunctionOn", {
    objectId: doc,
    functionDeclaration: pageFunction(pageFind),
    arguments: [{ value: query.kind }, { value: query.value }, { value: query.exact === true }, { value: limit }],
    objectGroup: OBJECT_GROUP,
  });
  if (res.exceptionDetails || !res.result.objectId) return { elements: [], total: 0 };
  const { result } = await frame.session.send("Runtime.getProperties", { objectId: res.result.objectId, ownProperties: true });
  const total = Number(result.find((p) => p.name === "total")?.value?.value ?? 0);
  const items = result.filter((p) => /^\d+$/.test(p.name) && p.value?.objectId).sort((a, b) => Number(a.name) - Number(b.name));
  const elements: ElementHandle[] = [];
  for (const p of items) {
    const { node } = await frame.session.send("DOM.describeNode", { objectId: p.value!.objectId! });
    elements.push({ frame, backendNodeId: node.backendNodeId, objectId: p.value!.objectId!, world: "utility" });
  }
  return { elements, total };
}

/** The elements of one frame with the role (and name), from its accessibility tree; `seen` drops a node a parent frame's query already gave. */
async function roleFind(frame: Frame, query: FindQuery, seen: Map<CdpSession, Set<number>>): Promise<ElementHandle[]> {
  const doc = await documentObject(frame);
  if (!doc) return [];
  const { nodes } = await frame.session.send("Accessibility.queryAXTree", { objectId: doc, role: query.value.trim() });
  const norm = (s: unknown) => String(s ?? "").replace(/\s+/g, " ").trim().toLowerCase();
  const want = norm(query.name);
  const ids = seen.get(frame.session) ?? new Set<number>();
  seen.set(frame.session, ids);
  const out: ElementHandle[] = [];
  for (const n of nodes) {
    if (n.ignored || n.backendDOMNodeId === undefined || ids.has(n.backendDOMNodeId)) continue;
    if (query.name !== undefined) {
      const name = norm(n.name?.value);
      if (query.exact ? name !== want : !name.includes(want)) continue;
    }
    ids.add(n.backendDOMNodeId);
    out.push(await elementFromNode(frame, n.backendDOMNodeId));
  }
  return out;
}

/** Where a child frame's <iframe> is among its parent document's frame owners (0 first); -1 when unknown. */
async function ownerIndex(frames: FrameTree, frame: Frame): Promise<number> {
  const parent = frame.parentId ? frames.get(frame.parentId) : undefined;
  if (!parent) return -1;
  const owner = await parent.session.send("DOM.getFrameOwner", { frameId: frame.id });
  return callOn<number>(await elementFromNode(parent, owner.backendNodeId), function (this: Element) {
    return Array.from(this.ownerDocument.querySelectorAll("iframe, frame")).indexOf(this);
  });
}

/**
 * The frames in a stable order: each frame, then its child frames in the order their <iframe>s appear in its
 * document (the frame tree's own order is the order Chrome attached them, which differs between runs).
 */
async function framesInOrder(frames: FrameTree): Promise<Frame[]> {
  const all = frames.ordered();
  const index = new Map<Frame, number>(await Promise.all(all.map(async (f) => [f, await ownerIndex(frames, f).catch(() => -1)] as const)));
  const out: Frame[] = [];
  const visit = (f: Frame) => {
    out.push(f);
    for (const c of all.filter((x) => x.parentId === f.id).sort((a, b) => index.get(a)! - index.get(b)!)) visit(c);
  };
  const main = frames.main;
  visit(main);
  return out;
}

/** Every frame's matches, frame by frame (framesInOrder); a child frame that is between documents is skipped. */
export async function findElements(frames: FrameTree, query: FindQuery, limit: number): Promise<Found> {
  const elements: ElementHandle[] = [];
  let total = 0;
  const seen = new Map<CdpSession, Set<number>>();
  for (const frame of await framesInOrder(frames)) {
    try {
      if (query.kind === "role") {
        const found = await roleFind(frame, query, seen);
        total += found.length;
        elements.push(...found.slice(0, Math.max(0, limit - elements.length)));
      } else {
        const found = await domFind(frame, query, Math.max(0, limit - elements.length));
        total += found.total;
        elements.push(...found.elements);
      }
    } catch (e) {
      // The main frame must answer; a child frame that navigated away mid-search has nothing to give.
      if (frame === frames.main) throw e;
    }
  }
  return { elements, total };
}
