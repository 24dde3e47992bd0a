/**
 * Selector → element, across frames (OOPIFs included) and shadow roots (closed included). The page-side
 * work is one XPath/CSS evaluation per hop; hops into frames and closed shadow roots go through CDP. It all
 * runs in svc's isolated world of each frame (frames.ts), so the page's own patches of `querySelector` or
 * `document.evaluate` do not reach it, and the handles it returns live in that world too.
 */
import type { Protocol } from "devtools-protocol";
import { type CdpSession, isDocumentGone } from "./cdp/connection.js";
import { OBJECT_GROUP, utilityContext, type Frame, type FrameTree } from "./frames.js";
import {
  ContentFrameNotFoundError,
  ServiceElementNotFoundError,
  ServiceIframeError,
  ServiceShadowRootMissingError,
  XPathResolutionError,
} from "../errors.js";
import { SHADOW_STEP, isFrameStep, joinXPath, pageCssFirst, pageFunction, pageXPathFirst, pageXPathOf, parseSelector } from "./selector.js";

/** A live element: the frame whose session owns it, its backend node id and a remote object for it. */
export interface ElementHandle {
  frame: Frame;
  /**
   * A handle a selector found carries the id as Chrome's answer still to come (asked at once, awaited only by
   * what needs it: a pointer action does not, so it saves a round trip to the page before its check).
   */
  backendNodeId: number | Promise<number>;
  objectId: string;
  /** "utility": `objectId` lives in svc's isolated world; otherwise (a main-world object) see `isolated`. */
  world?: "utility";
}

/** The element with this backend node id, as an object of svc's isolated world in its frame. */
export async function elementFromNode(frame: Frame, backendNodeId: number): Promise<ElementHandle & { backendNodeId: number }> {
  const executionContextId = await utilityContext(frame);
  const { object } = await frame.session.send("DOM.resolveNode", { backendNodeId, executionContextId, objectGroup: OBJECT_GROUP });
  if (!object.objectId) throw new ContentFrameNotFoundError(`node ${backendNodeId} has no object in frame ${frame.id}`);
  return { frame, backendNodeId, objectId: object.objectId, world: "utility" };
}

/** The same element in svc's isolated world (a handle from elsewhere may be the page's main-world object). */
export async function isolated(handle: ElementHandle): Promise<ElementHandle> {
  return handle.world === "utility" ? handle : elementFromNode(handle.frame, await handle.backendNodeId);
}

/** A document or shadow root to search from. */
interface Root {
  frame: Frame;
  objectId: string;
}

export interface ResolveOptions {
  deep: boolean;
}

/**
 * Document objects per isolated world: valid for the world's lifetime (its document's), saving a round trip
 * per lookup. Outside the object group on purpose: the world's end releases them, one per document.
 */
const documents = new WeakMap<Frame, { contextId: number; objectId: string }>();

async function frameDocument(frames: FrameTree, frame: Frame): Promise<Root> {
  // A document that is still loading has no main world yet: its isolated world would be the old document's.
  if (frame.contextId === undefined) await frames.waitForContext(frame.id, 2000);
  const contextId = await utilityContext(frame);
  const cached = documents.get(frame);
  if (cached && cached.contextId === contextId) return { frame, objectId: cached.objectId };
  const res = await frame.session.send("Runtime.evaluate", { expression: "document", contextId });
  if (!res.result.objectId) throw new ContentFrameNotFoundError(`frame ${frame.id} has no document`);
  documents.set(frame, { contextId, objectId: res.result.objectId });
  return { frame, objectId: res.result.objectId };
}

async function callFirst(root: Root, fn: (this: any, arg: string) => unknown, arg: string): Promise<string | null> {
  const res = await root.frame.session.send("Runtime.callFunctionOn", {
    objectId: root.objectId,
    functionDeclaration: pageFunction(fn),
    arguments: [{ value: arg }],
    objectGroup: OBJECT_GROUP,
  });
  if (res.exceptionDetails) return Promise.reject(new Error(res.exceptionDetails.exception?.description ?? res.exceptionDetails.text));
  return res.result.subtype === "null" || !res.result.objectId ? null : res.result.objectId;
}

/** The element's handle at once; its backend node id is asked for now and awaited by whoever needs it. */
function handleFor(frame: Frame, objectId: string): ElementHandle {
  const backendNodeId = frame.session.send("DOM.describeNode", { objectId }).then(({ node }) => node.backendNodeId);
  backendNodeId.catch(() => {}); // unread when no one needs it: not an unhandled rejection
  return { frame, objectId, backendNodeId, world: "utility" };
}

/** The document inside an iframe element (same-process or OOPIF). */
async function enterFrame(frames: FrameTree, el: ElementHandle, selector: string): Promise<Root> {
  const { node } = await el.frame.session.send("DOM.describeNode", { objectId: el.objectId });
  if (!node.frameId || !/^i?frame$/i.test(node.nodeName)) {
    throw new ServiceIframeError(`"${selector}": ${node.nodeName.toLowerCase()} is not an iframe`, { hint: "a hop (>> or a step after it) must select an <iframe>" });
  }
  const child = frames.get(node.frameId);
  if (!child) throw new ContentFrameNotFoundError(`"${selector}": the iframe's content frame is not attached yet`, { hint: "wait for the iframe to load" });
  return frameDocument(frames, child);
}

async function shadowRootOf(session: CdpSession, frame: Frame, objectId: string, selector: string): Promise<Root> {
  const { node } = await session.send("DOM.describeNode", { objectId, pierce: true, depth: 1 });
  const shadow = node.shadowRoots?.[0];
  if (!shadow) throw new ServiceShadowRootMissingError(`"${selector}": <${node.localName}> has no shadow root`, { hint: "remove the #shadow-root step, or point at the shadow host" });
  const { object } = await session.send("DOM.resolveNode", { backendNodeId: shadow.backendNodeId, executionContextId: await utilityContext(frame), objectGroup: OBJECT_GROUP });
  return { frame, objectId: object.objectId! };
}

async function resolveXPath(frames: FrameTree, root: Root, steps: string[], selector: string): Promise<ElementHandle | null> {
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    const last = i === steps.length - 1;
    if (step === SHADOW_STEP) {
      const hostId = await evalXPath(root, steps.slice(0, i), selector);
      if (!hostId) return null;
      const shadow = await shadowRootOf(root.frame.session, root.frame, hostId, selector);
      return resolveXPath(frames, shadow, [".", ...steps.slice(i + 1)], selector);
    }
    if (!last && isFrameStep(step)) {
      const frameId = await evalXPath(root, steps.slice(0, i + 1), selector);
      // The path names an iframe to enter and there is none: the iframe, not the target, is what is missing.
      if (!frameId) throw new ServiceIframeError(`"${selector}": no iframe at ${joinXPath(steps.slice(0, i + 1))}`, { hint: "the page's iframes changed; locate the element again" });
      const doc = await enterFrame(frames, handleFor(root.frame, frameId), selector);
      const rest = steps.slice(i + 1);
      return resolveXPath(frames, doc, rest[0] === "" ? rest : ["", ...rest], selector);
    }
  }
  const id = await evalXPath(root, steps, selector);
  return id ? handleFor(root.frame, id) : null;
}

async function evalXPath(root: Root, steps: string[], selector: string): Promise<string | null> {
  const expr = joinXPath(steps);
  try {
    return await callFirst(root, pageXPathFirst, expr);
  } catch (e) {
    if (isDocumentGone(e)) throw e;
    throw new XPathResolutionError(`invalid XPath "${selector}": ${(e as Error).message.split("\n")[0]}`, { cause: e });
  }
}

async function resolveCss(frames: FrameTree, root: Root, hops: string[], selector: string): Promise<ElementHandle | null> {
  let current = root;
  for (let i = 0; i < hops.length; i++) {
    let id: string | null;
    try {
      id = await callFirst(current, pageCssFirst, hops[i]!);
    } catch (e) {
      // The page navigated under the lookup: not a selector problem.
      if (isDocumentGone(e)) throw e;
      throw new ServiceElementNotFoundError(`invalid CSS selector "${hops[i]}"`, { cause: e });
    }
    if (!id) {
      // A hop that names an iframe (`iframe#pay >> …`) and matches none: the iframe cannot be resolved.
      if (i < hops.length - 1 && /^\s*i?frame\b/i.test(hops[i]!)) throw new ServiceIframeError(`"${selector}": no iframe matches "${hops[i]}"`, { hint: "check the iframe's selector" });
      return null;
    }
    if (i === hops.length - 1) return handleFor(current.frame, id);
    const el = handleFor(current.frame, id);
    const { node } = await current.frame.session.send("DOM.describeNode", { objectId: id, pierce: true, depth: 1 });
    current = node.frameId && /^i?frame$/i.test(node.nodeName) ? await enterFrame(frames, el, selector) : await shadowRootOf(current.frame.session, current.frame, id, selector);
  }
  return null;
}

/**
 * Last resort for deepLocator with one CSS selector: search every frame's document and every shadow root
 * (closed ones too: CDP pierces them) in document order.
 */
async function deepCss(frames: FrameTree, css: string): Promise<ElementHandle | null> {
  for (const frame of frames.ordered()) {
    const roots: Root[] = [await frameDocument(frames, frame)];
    const { root } = await frame.session.send("DOM.getDocument", { depth: -1, pierce: true });
    const owned = findFrameDocument(root, frame.id) ?? root;
    collectShadowRoots(owned, (n) => roots.push({ frame, objectId: "" + n.backendNodeId }));
    for (const r of roots) {
      let objectId = r.objectId;
      if (/^\d+$/.test(objectId)) objectId = (await elementFromNode(frame, Number(objectId))).objectId;
      const hit = await callFirst({ frame, objectId }, pageCssFirst, css).catch(() => null);
      if (hit) return handleFor(frame, hit);
    }
  }
  return null;
}

function findFrameDocument(node: Protocol.DOM.Node, frameId: string): Protocol.DOM.Node | undefined {
  if (node.nodeType === 9 && node.frameId === frameId) return node;
  if (node.frameId === frameId && node.contentDocument) return node.contentDocument;
  for (const c of [...(node.children ?? []), ...(node.shadowRoots ?? []), ...(node.contentDocument ? [node.contentDocument] : [])]) {
    const f = findFrameDocument(c, frameId);
    if (f) return f;
  }
  return undefined;
}

/** Shadow roots under a document, not descending into child frames (they are searched as frames). */
function collectShadowRoots(node: Protocol.DOM.Node, visit: (n: Protocol.DOM.Node) => void): void {
  for (const s of node.shadowRoots ?? []) {
    visit(s);
    collectShadowRoots(s, visit);
  }
  for (const c of node.children ?? []) collectShadowRoots(c, visit);
}

export async function resolveSelector(frames: FrameTree, selector: string, options: ResolveOptions): Promise<ElementHandle> {
  const parsed = parseSelector(selector);
  const main = await frameDocument(frames, frames.main);
  let handle: ElementHandle | null;
  if (parsed.kind === "xpath") handle = await resolveXPath(frames, main, parsed.steps, selector);
  else {
    handle = await resolveCss(frames, main, parsed.hops, selector);
    if (!handle && options.deep && parsed.hops.length === 1) handle = await deepCss(frames, parsed.hops[0]!);
  }
  if (!handle) {
    const Err = parsed.kind === "xpath" ? XPathResolutionError : ServiceElementNotFoundError;
    throw new Err(`no element matches "${selector}"`, {
      hint: parsed.kind === "xpath" ? "check the path; inside iframes continue with /html/…, inside shadow roots use /#shadow-root/" : "check the selector; use deepLocator or >> to reach into iframes and shadow roots",
    });
  }
  return handle;
}

/** The svc selector (deep XPath) of an element, walking up through shadow roots and frame owners. */
export async function selectorOf(frames: FrameTree, el: { frame: Frame; backendNodeId: number | Promise<number> }): Promise<string> {
  const parts: string[] = [];
  let frame: Frame | undefined = el.frame;
  let backendNodeId = await el.backendNodeId;
  while (frame) {
    const { objectId } = await elementFromNode(frame, backendNodeId);
    const res = await frame.session.send("Runtime.callFunctionOn", { objectId, functionDeclaration: pageFunction(pageXPathOf), returnByValue: true });
    parts.unshift(String(res.result.value));
    if (!frame.parentId) break;
    const parent = frames.get(frame.parentId);
    if (!parent) break;
    const owner = await parent.session.send("DOM.getFrameOwner", { frameId: frame.id });
    backendNodeId = owner.backendNodeId;
    frame = parent;
  }
  return "xpath=" + parts.join("");
}
