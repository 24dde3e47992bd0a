/**
 * Reading an element without acting on it (`svc get box|count`, `svc is`): its box in the top page's viewport
 * (frame offsets added, OOPIFs included), and how many elements a selector matches. In svc's isolated world.
 */
import { ServiceInvalidArgumentError } from "../errors.js";
import { callOn } from "./element.js";
import { OBJECT_GROUP, utilityContext, type Frame, type FrameTree } from "./frames.js";
import { elementFromNode, resolveSelector, type ElementHandle } from "./resolve.js";
import { SHADOW_STEP, isFrameStep, parseSelector } from "./selector.js";

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Where an element's content box starts inside its frame owner (<iframe>), in the owner's viewport. */
function ownerContentOrigin(this: Element): { x: number; y: number } {
  const r = this.getBoundingClientRect();
  const s = getComputedStyle(this);
  return { x: r.x + this.clientLeft + parseFloat(s.paddingLeft || "0"), y: r.y + this.clientTop + parseFloat(s.paddingTop || "0") };
}

/** The element's border box (getBoundingClientRect) in CSS pixels of the top page's viewport. */
export async function elementBox(frames: FrameTree, el: ElementHandle): Promise<Box> {
  const box = await callOn<Box>(el, function (this: Node) {
    const e = this.nodeType === Node.ELEMENT_NODE ? (this as Element) : this.parentElement!;
    const r = e.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  });
  let frame: Frame | undefined = el.frame;
  while (frame?.parentId) {
    const parent = frames.get(frame.parentId);
    if (!parent) break;
    const owner = await parent.session.send("DOM.getFrameOwner", { frameId: frame.id });
    const at = await callOn<{ x: number; y: number }>(await elementFromNode(parent, owner.backendNodeId), ownerContentOrigin);
    box.x += at.x;
    box.y += at.y;
    frame = parent;
  }
  return box;
}

/** `this`: a Document, ShadowRoot or Element; how many elements the CSS selector or XPath matches under it. */
function pageCount(this: Document | ShadowRoot | Element, kind: string, selector: string): number {
  if (kind === "css") return this.querySelectorAll(selector).length;
  const doc = (this as Node).ownerDocument ?? (this as unknown as Document);
  return doc.evaluate(`count(${selector})`, this, null, XPathResult.NUMBER_TYPE, null).numberValue;
}

async function countIn(frame: Frame, objectId: string | undefined, kind: "css" | "xpath", selector: string): Promise<number> {
  let on = objectId;
  if (on === undefined) {
    const contextId = await utilityContext(frame);
    on = (await frame.session.send("Runtime.evaluate", { expression: "document", contextId, objectGroup: OBJECT_GROUP })).result.objectId;
  }
  const handle: ElementHandle = { frame, backendNodeId: 0, objectId: on!, world: "utility" };
  return callOn<number>(handle, pageCount, kind, selector);
}

/**
 * How many elements the selector matches: a CSS selector or XPath in the main document; with ` >> ` hops,
 * the last hop counted inside the element the others lead to (an iframe's document, or a shadow root).
 */
export async function countMatches(frames: FrameTree, selector: string): Promise<number> {
  const parsed = parseSelector(selector);
  if (parsed.kind === "xpath") {
    if (parsed.steps.some((s) => s.trim() === SHADOW_STEP || isFrameStep(s))) {
      throw new ServiceInvalidArgumentError(`count: "${selector}" crosses a frame or shadow root`, { hint: 'count with CSS hops instead: svc get count "iframe#pay >> button"' });
    }
    return countIn(frames.main, undefined, "xpath", selector.replace(/^xpath=/, "").trim());
  }
  const last = parsed.hops[parsed.hops.length - 1]!;
  if (parsed.hops.length === 1) return countIn(frames.main, undefined, "css", last);
  const host = await resolveSelector(frames, parsed.hops.slice(0, -1).join(" >> "), { deep: false });
  const tag = await callOn<string>(host, function (this: Element) {
    return this.localName;
  });
  if (tag === "iframe" || tag === "frame") {
    for (const f of frames.ordered()) {
      if (f.parentId !== host.frame.id) continue;
      const owner = await host.frame.session.send("DOM.getFrameOwner", { frameId: f.id }).catch(() => undefined);
      if (owner?.backendNodeId === (await host.backendNodeId)) return countIn(f, undefined, "css", last);
    }
    return 0;
  }
  const { node } = await host.frame.session.send("DOM.describeNode", { backendNodeId: await host.backendNodeId, depth: 0 });
  const root = node.shadowRoots?.[0];
  if (!root) throw new ServiceInvalidArgumentError(`count: "${parsed.hops.slice(0, -1).join(" >> ")}" is neither an iframe nor a shadow host`);
  const shadow = await elementFromNode(host.frame, root.backendNodeId);
  return countIn(host.frame, shadow.objectId, "css", last);
}
