/**
 * `svc screenshot --annotate`: a fresh interactive snapshot's refs drawn as labelled boxes, the picture taken, the
 * drawing removed (also on failure). The drawing is one element with a closed shadow root added from svc's isolated
 * world, so page scripts cannot reach it. Refs in cross-origin frames are counted, not drawn: their boxes are in that
 * frame's own coordinates.
 */
import type { Page } from "../index.js";
import type { CapabilityContext } from "./declare.js";

/** The colour of boxes and labels: rgb(255, 0, 255), rare on real pages. */
export const ANNOTATION_COLOR = "#ff00ff";

interface Box {
  ref: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Annotated<T> {
  result: T;
  /** The refs drawn, and those that could not be (no box: hidden; or in another process's frame). */
  drawn: string[];
  skipped: string[];
}

async function boxes(ctx: CapabilityContext, page: Page): Promise<{ boxes: Box[]; skipped: string[] }> {
  const snap = await ctx.snapshot(page, { interactiveOnly: true });
  const out: Box[] = [];
  const skipped: string[] = [];
  for (const t of snap.refs) {
    const frame = page.frames.get(t.frameId);
    if (!frame || frame.session !== page.mainSession) {
      skipped.push(t.ref);
      continue;
    }
    const model = await frame.session.send("DOM.getBoxModel", { backendNodeId: t.backendNodeId }).catch(() => undefined);
    const q = model?.model.border;
    if (!q) {
      skipped.push(t.ref);
      continue;
    }
    const xs = [q[0]!, q[2]!, q[4]!, q[6]!];
    const ys = [q[1]!, q[3]!, q[5]!, q[7]!];
    const x = Math.min(...xs);
    const y = Math.min(...ys);
    out.push({ ref: t.ref, x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y });
  }
  return { boxes: out, skipped };
}

/** Draws the boxes (viewport coordinates) in the page, in a closed shadow root. */
function draw(this: Element, list: Box[], color: string): void {
  const w = window as unknown as { __svcAnnotations?: Element };
  w.__svcAnnotations?.remove();
  const host = document.createElement("svc-annotations");
  host.setAttribute("style", "all:initial;position:absolute;left:0;top:0;width:0;height:0;overflow:visible;z-index:2147483647;pointer-events:none");
  const root = host.attachShadow({ mode: "closed" });
  const base = "position:absolute;box-sizing:border-box;pointer-events:none;";
  for (const b of list) {
    const left = b.x + window.scrollX;
    const top = b.y + window.scrollY;
    const box = document.createElement("div");
    box.setAttribute("style", `${base}left:${left}px;top:${top}px;width:${Math.max(b.width, 4)}px;height:${Math.max(b.height, 4)}px;border:2px solid ${color}`);
    const label = document.createElement("div");
    label.textContent = b.ref;
    label.setAttribute("style", `${base}left:${left}px;top:${Math.max(0, top - 14)}px;height:14px;padding:0 3px;background:${color};color:#fff;font:bold 11px/14px monospace;white-space:nowrap`);
    root.append(box, label);
  }
  this.ownerDocument.documentElement.appendChild(host);
  w.__svcAnnotations = host;
}

function undraw(this: Element): void {
  const w = window as unknown as { __svcAnnotations?: Element };
  w.__svcAnnotations?.remove();
  delete w.__svcAnnotations;
}

/** Runs `capture` with the snapshot's refs drawn on the page; the drawing is gone when this returns. */
export async function withAnnotations<T>(ctx: CapabilityContext, page: Page, capture: () => Promise<T>): Promise<Annotated<T>> {
  // Loaded here: the CLI reads the declarations before any command runs, without the library.
  const { callOn, resolveTarget } = await import("../internal.js");
  const found = await boxes(ctx, page);
  const html = await resolveTarget(page, "/html");
  await callOn(html, draw, found.boxes, ANNOTATION_COLOR);
  try {
    return { result: await capture(), drawn: found.boxes.map((b) => b.ref), skipped: found.skipped };
  } finally {
    await callOn(html, undraw).catch(() => {});
  }
}
