/**
 * The CDP side of a snapshot: one `Accessibility.getFullAXTree` per frame on its own session and one `DOM.getFrameOwner`
 * per child frame on its parent's, all sent at once; nothing per node (the rest is linear work in tree.ts and
 * render.ts). The AX tree is built on the flat tree, so shadow roots are in it; a few calls per frame beside it find
 * role-less clickables (clickable.ts).
 */
import { utilityContext, type Frame, type FrameTree } from "../browser/frames.js";
import { ProtocolError } from "../browser/cdp/connection.js";
import { ServiceDomProcessError, ServiceElementNotFoundError, ServiceStaleRefError } from "../errors.js";
import { POINTER_SCRIPT, addListeners, addPointers } from "./clickable.js";
import { ICON_DEPTH, applyDerived, deriveName, unnamedRefs, type DomNodeLike } from "./icon-name.js";
import { RefMap } from "./refs.js";
import { type OutlineLine, diffOutline, fullMarker, keptLines } from "./delta.js";
import { type Line, fit, outlineLines } from "./render.js";
import { buildTree, type AXNodeLike, type BuiltTree, type FrameAXTree } from "./tree.js";

export interface SnapshotSource {
  frames: FrameTree;
}

export interface SnapshotOptions {
  /** Only lines with a ref (plus headings and the iframes that hold refs, for orientation). */
  interactiveOnly?: boolean;
  /** Token budget: long text is shortened, then text lines dropped from the end; ref lines stay unless `view`. */
  maxTokens?: number;
  /**
   * The outline as its caller reads it (a snapshot shown, not one an operation sends a model): a budget may cut ref
   * lines too, saying so; `delta`: only what changed since `previous`, or the whole outline marked full and why;
   * `from`: the outline from that ref's line on.
   */
  view?: { delta?: { previous: readonly OutlineLine[] } | { full: string }; from?: string };
  /** Only this element's subtree (frames inside it included). */
  scope?: { frameId: string; backendNodeId: number };
  /** Numbers the refs page-wide (a page's PageRefs, registry.ts); without it they are e1… of this snapshot. */
  refs?: { assign(built: BuiltTree, trees: readonly FrameAXTree[], complete: boolean): void };
}

export interface Snapshot {
  text: string;
  refs: RefMap;
  /** Estimated tokens of `text` (o200k-like; see render.ts estimateTokens). */
  tokens: number;
  /** With `view`: the refs `text` shows, and the whole outline's lines (the base of the next delta). */
  shown?: readonly string[];
  outline?: OutlineLine[];
}

/** Frames to read: all of them, or the scope's frame and the frames below it. Parents come before children. */
function framesFor(source: SnapshotSource, options: SnapshotOptions): { frames: Frame[]; topId: string } {
  const all = source.frames.ordered();
  if (!options.scope) {
    const top = all[0];
    if (!top) throw new ServiceElementNotFoundError("the page has no document yet", { hint: "navigate first" });
    return { frames: all, topId: top.id };
  }
  const topId = options.scope.frameId;
  const keep = new Set([topId]);
  const frames: Frame[] = [];
  for (const f of all) {
    if (f.id === topId || (f.parentId !== undefined && keep.has(f.parentId))) {
      keep.add(f.id);
      frames.push(f);
    }
  }
  if (!frames.length) {
    throw new ServiceElementNotFoundError(`the scope's frame ${topId} is not part of the page`, { hint: "the frame may have been detached; locate the element again" });
  }
  return { frames, topId };
}

async function readFrame(source: SnapshotSource, f: Frame, topId: string): Promise<FrameAXTree | undefined> {
  const parent = f.id !== topId && f.parentId !== undefined ? source.frames.get(f.parentId) : undefined;
  const owner = parent
    ? parent.session.send("DOM.getFrameOwner", { frameId: f.id }).then(
        (r) => r.backendNodeId,
        () => undefined,
      )
    : undefined;
  const ax = f.session.send("Accessibility.getFullAXTree", { frameId: f.id });
  if (f.id === topId) {
    // The top frame failing is the snapshot failing: a closed or crashed page keeps its own error; Chrome
    // refusing the tree of a live page is the DOM processing failing.
    const { nodes } = await ax.catch((e: unknown) => {
      throw e instanceof ProtocolError ? new ServiceDomProcessError(`cannot read the page's accessibility tree: ${(e as Error).message}`, { cause: e }) : e;
    });
    return { frameId: f.id, nodes: nodes as AXNodeLike[] };
  }
  // A child frame may detach or swap processes mid-capture: skip it, the rest of the page is still good.
  const [res, ownerId] = await Promise.all([ax.catch(() => undefined), owner]);
  if (!res || ownerId === undefined) return undefined;
  return { frameId: f.id, parentFrameId: f.parentId, ownerBackendNodeId: ownerId, nodes: res.nodes as AXNodeLike[] };
}

/** The pointer script's list of elements, released as soon as they are described. */
const GROUP = "svc-snapshot-clickable";
/** Each document's own object, kept for the next snapshot (one per document; it goes with its context). */
const DOC_GROUP = "svc-snapshot-document";
const documents = new WeakMap<Frame, { contextId: number; objectId: string }>();

/** The frame's document as a main-world object (Chrome lists only the listeners of the world it comes from). */
async function documentObject(f: Frame, contextId: number): Promise<string | undefined> {
  const known = documents.get(f);
  if (known?.contextId === contextId) return known.objectId;
  const { result } = await f.session.send("Runtime.evaluate", { expression: "document", contextId, objectGroup: DOC_GROUP });
  if (result.objectId) documents.set(f, { contextId, objectId: result.objectId });
  return result.objectId;
}

/**
 * Clickable elements (clickable.ts) by backendNodeId, one map per session (ids are unique per renderer): listeners from
 * each session's top documents (pierce covers its same-process iframes and shadow roots), pointers from every frame. A
 * step that fails (a frame navigating or detaching mid-capture) only loses those clickables; the AX trees decide whether
 * the snapshot fails.
 */
async function readClickables(frames: readonly Frame[]): Promise<Map<Frame["session"], Map<number, number>>> {
  const out = new Map<Frame["session"], Map<number, number>>();
  const ignore = () => undefined;
  const byId = new Map(frames.map((f) => [f.id, f]));
  await Promise.all(
    frames.map(async (f) => {
      const { session, contextId } = f;
      if (contextId === undefined) return;
      let flags = out.get(session);
      if (!flags) out.set(session, (flags = new Map()));
      const parent = f.parentId !== undefined ? byId.get(f.parentId) : undefined;
      const listeners = async () => {
        if (parent?.session === session) return; // its parent's document already covers it
        let objectId = await documentObject(f, contextId);
        if (!objectId) return;
        const read = () => session.send("DOMDebugger.getEventListeners", { objectId: objectId!, depth: -1, pierce: true });
        const res = await read().catch(async () => {
          documents.delete(f); // a kept object released by someone else's group release: fetch it again
          objectId = await documentObject(f, contextId);
          return objectId ? read() : undefined;
        });
        if (res) addListeners(flags, res.listeners);
      };
      // In svc's isolated world: a page that replaces getComputedStyle cannot hide its elements.
      const pointers = async () => {
        const group = `${GROUP}-${f.id}`; // per frame: frames of one session release theirs apart
        const list = await session.send("Runtime.evaluate", { expression: POINTER_SCRIPT, contextId: await utilityContext(f), objectGroup: group });
        const listId = list.result.objectId;
        if (!listId) return;
        try {
          if (list.result.description === "Array(0)") return;
          const { result } = await session.send("Runtime.getProperties", { objectId: listId, ownProperties: true });
          const els = result.filter((p) => /^\d+$/.test(p.name) && p.value?.objectId);
          const ids = await Promise.all(els.map((p) => session.send("DOM.describeNode", { objectId: p.value!.objectId! }).then((d) => d.node.backendNodeId, ignore)));
          addPointers(flags, ids.filter((id): id is number => id !== undefined));
        } finally {
          // Not awaited: the snapshot need not wait for the release.
          void session.send("Runtime.releaseObjectGroup", { objectGroup: group }).catch(ignore);
        }
      };
      await Promise.all([listeners().catch(ignore), pointers().catch(ignore)]);
    }),
  );
  return out;
}

/**
 * Icon-only controls named from what the page carries (icon-name.ts): one DOM.describeNode per ref line with no
 * usable name, all sent at once. A node that cannot be read (gone mid-capture) keeps its line as it was.
 */
async function nameIcons(source: SnapshotSource, built: BuiltTree, trees: readonly FrameAXTree[]): Promise<void> {
  const wanted = unnamedRefs(built);
  if (!wanted.length) return;
  const key = (frameId: string, backendNodeId: number) => `${frameId}:${backendNodeId}`;
  const descriptions = new Map(wanted.map((u) => [key(u.target.frameId, u.target.backendNodeId), ""]));
  for (const t of trees) {
    for (const n of t.nodes) {
      const k = n.backendDOMNodeId !== undefined ? key(t.frameId, n.backendDOMNodeId) : undefined;
      if (k !== undefined && descriptions.get(k) === "" && typeof n.description?.value === "string") descriptions.set(k, n.description.value);
    }
  }
  await Promise.all(
    wanted.map(async (u) => {
      const session = source.frames.get(u.target.frameId)?.session;
      const dom = session
        ? await session.send("DOM.describeNode", { backendNodeId: u.target.backendNodeId, depth: ICON_DEPTH, pierce: true }).then(
            (r) => r.node as DomNodeLike,
            () => undefined,
          )
        : undefined;
      const name = deriveName(dom, descriptions.get(key(u.target.frameId, u.target.backendNodeId)));
      if (name) applyDerived(built, u, name);
    }),
  );
}

export async function captureSnapshot(source: SnapshotSource, options: SnapshotOptions = {}): Promise<Snapshot> {
  const { frames, topId } = framesFor(source, options);
  const [read, clickables] = await Promise.all([Promise.all(frames.map((f) => readFrame(source, f, topId))), readClickables(frames)]);
  const trees: FrameAXTree[] = [];
  for (const t of read) {
    if (!t) continue;
    const session = source.frames.get(t.frameId)?.session;
    const clickable = session ? clickables.get(session) : undefined;
    trees.push(clickable ? { ...t, clickable } : t);
  }
  const built = buildTree(trees, {
    ...(options.scope ? { scope: options.scope } : {}),
    ...(options.interactiveOnly ? { interactiveOnly: true } : {}),
  });
  await nameIcons(source, built, trees);
  options.refs?.assign(built, trees, options.scope === undefined);
  const lines = outlineLines(built.nodes);
  const budget = options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {};
  const refs = new RefMap(built.refs);
  if (!options.view) {
    const out = fit(lines, budget);
    return { text: out.text, refs, tokens: out.tokens };
  }
  const outline = keptLines(lines);
  const shown = viewOf(lines, options.view);
  const out = fit(shown.lines, { ...budget, cutRefs: true, header: shown.header });
  return { text: out.text, refs, tokens: out.tokens, shown: out.refs, outline };
}

function viewOf(lines: Line[], view: NonNullable<SnapshotOptions["view"]>): { lines: Line[]; header: string[] } {
  if (view.delta && "previous" in view.delta) {
    const d = diffOutline(view.delta.previous, lines);
    return { lines: d.lines, header: [d.header] };
  }
  const header = view.delta ? [fullMarker(view.delta.full)] : [];
  if (view.from === undefined) return { lines, header };
  const at = lines.findIndex((l) => l.ref === view.from);
  if (at < 0) throw new ServiceStaleRefError(`from: no line of this outline has ref ${view.from}`, { hint: "use a ref the last snapshot with the same options showed" });
  return { lines: lines.slice(at), header };
}
