/**
 * A ref → the live element it was issued for, or a STALE_REF error saying why not: the page navigated
 * (another document in the main frame), the frame or element is gone, or the element's role or name is no
 * longer the one the snapshot showed. Never another element: refs are not reused (registry.ts), and what
 * is found is checked against what was shown.
 */
import { callOn } from "../browser/element.js";
import type { Page } from "../browser/page.js";
import { elementFromNode, type ElementHandle } from "../browser/resolve.js";
import { ServiceStaleRefError } from "../errors.js";
import { axIdentity } from "./registry.js";
import { RefMap, type RefLookup } from "./refs.js";

const HINT = "take a new snapshot (svc extract, extract() or observe()) and use its refs";

/** The document the page's main frame shows now (its loaderId: the same over any CDP connection). */
export async function documentOf(page: Page): Promise<string> {
  const { frameTree } = await page.mainSession.send("Page.getFrameTree");
  return frameTree.frame.loaderId;
}

export async function resolveRef(page: Page, refs: RefLookup | undefined, ref: string): Promise<ElementHandle> {
  const key = RefMap.normalize(ref) ?? ref;
  const target = refs?.get(key);
  const stale = (why: string) => new ServiceStaleRefError(why, { hint: HINT });
  if (!target) throw stale(refs?.explain?.(key) ?? `ref ${key} is not in the page's latest snapshot`);
  const frame = page.frames.get(target.frameId);
  const [document, found, identity] = await Promise.all([
    refs?.document !== undefined ? documentOf(page).catch(() => undefined) : undefined,
    // In svc's isolated world (browser/frames.ts): the page's own patches do not reach the checks.
    frame ? elementFromNode(frame, target.backendNodeId).catch(() => undefined) : undefined,
    target.ax && frame
      ? frame.session.send("Accessibility.getPartialAXTree", { backendNodeId: target.backendNodeId, fetchRelatives: false }).then(
          ({ nodes }) => {
            const node = nodes.find((n) => n.backendDOMNodeId === target.backendNodeId) ?? nodes[0];
            // Hidden now (ignored): not a different element; whether it can be acted on is actionability's call.
            return node && !node.ignored ? axIdentity(node.role, node.name) : undefined;
          },
          () => undefined,
        )
      : undefined,
  ]);
  if (refs?.document !== undefined && document !== refs.document) {
    throw stale(`ref ${key} is from an earlier document: the page navigated since the snapshot that showed it`);
  }
  if (!frame) throw stale(`ref ${key}: its frame is gone (the frame navigated or was removed since the snapshot)`);
  const handle = found;
  const connected =
    handle &&
    (await callOn<boolean>(handle, function (this: Node) {
      return this.isConnected;
    }).catch(() => false));
  if (!handle || !connected) throw stale(`ref ${key}: its element (${target.role} "${target.name}") was removed from the page since the snapshot`);
  if (target.ax && identity && (identity.role !== target.ax.role || identity.name !== target.ax.name)) {
    throw stale(`ref ${key} was ${target.role} "${target.name}"; that element is now ${identity.role} "${identity.name}"`);
  }
  return handle;
}
