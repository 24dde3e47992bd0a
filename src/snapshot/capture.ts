/**
 * The CDP side of a snapshot: one `Accessibility.getFullAXTree` per frame on that frame's own session, and one
 * `DOM.getFrameOwner` per child frame on its parent's session (which <iframe> element hosts it), all sent at
 * once. Nothing per node: everything else is linear work in tree.ts and render.ts.
 *
 * The AX tree is built on the flat tree, so open and closed shadow roots are already in it; a frame's tree
 * stops at its <iframe> elements, whose documents come from their own frames (same-process or OOPIF alike).
 *
 * Beside them, one `DOMSnapshot.captureSnapshot` per session (not per frame: it covers every document of its
 * process), asking only for the `cursor` style, says which role-less elements a user can click (clickable.ts).
 */
import type { Frame, FrameTree } from "../browser/frames.js";
import { ServiceElementNotFoundError } from "../errors.js";
import { clickablesByFrame, type DomSnapshotLike } from "./clickable.js";
import { RefMap } from "./refs.js";
import { render } from "./render.js";
import { buildTree, type AXNodeLike, type BuiltTree, type FrameAXTree } from "./tree.js";

export interface SnapshotSource {
  frames: FrameTree;
}

export interface SnapshotOptions {
  /** Only lines with a ref (plus headings and the iframes that hold refs, for orientation). */
  interactiveOnly?: boolean;
  /** Token budget: long text is shortened, then text lines dropped from the end; ref lines always stay. */
  maxTokens?: number;
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
    // The top frame failing is the snapshot failing (closed page, crash): let its error through.
    const { nodes } = await ax;
    return { frameId: f.id, nodes: nodes as AXNodeLike[] };
  }
  // A child frame may detach or swap processes mid-capture: skip it, the rest of the page is still good.
  const [res, ownerId] = await Promise.all([ax.catch(() => undefined), owner]);
  if (!res || ownerId === undefined) return undefined;
  return { frameId: f.id, parentFrameId: f.parentId, ownerBackendNodeId: ownerId, nodes: res.nodes as AXNodeLike[] };
}

/**
 * Clickable elements of every frame, by frame id: one capture per session. A session that fails (an OOPIF
 * detaching mid-capture) only loses its clickables; its AX tree decides whether the snapshot fails.
 */
async function readClickables(frames: readonly Frame[]): Promise<Map<string, Map<number, number>>> {
  const sessions = new Set(frames.map((f) => f.session));
  const out = new Map<string, Map<number, number>>();
  await Promise.all(
    [...sessions].map(async (session) => {
      const snap = await session.send("DOMSnapshot.captureSnapshot", { computedStyles: ["cursor"] }).catch(() => undefined);
      if (!snap) return;
      for (const [frameId, flags] of clickablesByFrame(snap as DomSnapshotLike)) out.set(frameId, flags);
    }),
  );
  return out;
}

export async function captureSnapshot(source: SnapshotSource, options: SnapshotOptions = {}): Promise<Snapshot> {
  const { frames, topId } = framesFor(source, options);
  const [read, clickables] = await Promise.all([Promise.all(frames.map((f) => readFrame(source, f, topId))), readClickables(frames)]);
  const trees: FrameAXTree[] = [];
  for (const t of read) {
    if (!t) continue;
    const clickable = clickables.get(t.frameId);
    trees.push(clickable ? { ...t, clickable } : t);
  }
  const built = buildTree(trees, {
    ...(options.scope ? { scope: options.scope } : {}),
    ...(options.interactiveOnly ? { interactiveOnly: true } : {}),
  });
  options.refs?.assign(built, trees, options.scope === undefined);
  const out = render(built.nodes, options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {});
  return { text: out.text, refs: new RefMap(built.refs), tokens: out.tokens };
}
