/**
 * The scrolls the Action methods have no word for: `svc scroll [target] left|right|Npx` (one visible width
 * sideways, or N CSS pixels down; `-N px` up), and `svc scrollintoview TARGET`. Each reports what the page
 * shows afterwards, read back from it: the scroll position before and after (a scroll at the edge moves
 * nothing and says so), or the element's box and whether it is in the viewport now.
 */
import type { Page } from "../src/index.js";
import { ServiceElementNotFoundError, ServiceInvalidArgumentError } from "../src/base.js";
import { callOn, elementBox } from "../src/internal.js";
import { elementOf } from "./inspect.js";
import type { GlobalOptions } from "./output.js";
import { withSession } from "./runtime.js";

/** The `where` words this file scrolls by (verbs.ts hands them here); the longest pixel amount accepted. */
export const PIXEL_SCROLL = /^(left|right|-?\d{1,6}(\.\d+)?px)$/i;

interface Position {
  x: number;
  y: number;
}

/** In the page: scroll the element's scroller (itself when it scrolls that way, else the page) and report before/after. */
function pageScrollBy(this: Node, where: string): { from: Position; to: Position; scroller: string } {
  const el = this.nodeType === Node.ELEMENT_NODE ? (this as Element) : this.parentElement!;
  const doc = el.ownerDocument;
  const horizontal = where === "left" || where === "right";
  const own = el !== doc.documentElement && el !== doc.body && (horizontal ? el.scrollWidth > el.clientWidth : el.scrollHeight > el.clientHeight);
  const target = own ? el : (doc.scrollingElement ?? doc.documentElement);
  const pos = (): Position => ({ x: target.scrollLeft, y: target.scrollTop });
  const from = pos();
  const width = own ? el.clientWidth : window.innerWidth;
  const dx = where === "left" ? -width : where === "right" ? width : 0;
  const dy = horizontal ? 0 : parseFloat(where);
  target.scrollBy({ left: dx, top: dy, behavior: "instant" });
  return { from, to: pos(), scroller: own ? "element" : "page" };
}

export async function scrollBy(g: GlobalOptions, target: string | undefined, where: string): Promise<void> {
  const w = where.toLowerCase();
  if (!PIXEL_SCROLL.test(w)) throw new ServiceInvalidArgumentError(`scroll: "${where}" is not a direction`, { hint: "down, up, left, right, top, bottom, N% or Npx" });
  await withSession(g, async ({ svc, out, session }) => {
    const page: Page = svc.page;
    const el = await elementOf(page, session, target ?? "/html");
    const r = await callOn<{ from: Position; to: Position; scroller: string }>(el, pageScrollBy, w);
    const moved = r.from.x !== r.to.x || r.from.y !== r.to.y;
    out.result({ session: session?.id, target: target ?? null, where: w, scroller: r.scroller, from: r.from, to: r.to, moved }, () =>
      moved ? `scrolled ${w}: ${r.scroller} at x ${r.to.x}, y ${r.to.y} (was x ${r.from.x}, y ${r.from.y})` : `did not move: the ${r.scroller} is already at the edge (x ${r.to.x}, y ${r.to.y})`,
    );
  });
}

export async function scrollIntoView(g: GlobalOptions, target: string | undefined): Promise<void> {
  if (!target?.trim()) throw new ServiceInvalidArgumentError("scrollintoview: the target is missing", { hint: "svc scrollintoview e3  (a ref from `svc snapshot`, or a selector)" });
  await withSession(g, async ({ svc, out, session }) => {
    const page: Page = svc.page;
    const el = await elementOf(page, session, target);
    const shown = await callOn<boolean>(el, function (this: Node) {
      const e = this.nodeType === Node.ELEMENT_NODE ? (this as Element) : this.parentElement!;
      if (e.getClientRects().length === 0) return false;
      e.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      return true;
    });
    if (!shown) throw new ServiceElementNotFoundError(`scrollintoview: ${target} has no box (display: none, or not rendered)`, { hint: "check it with `svc is visible`" });
    const box = await elementBox(page.frames, el);
    const view = await page.evaluate<{ w: number; h: number }>("({ w: window.innerWidth, h: window.innerHeight })");
    const inView = box.x < view.w && box.y < view.h && box.x + box.width > 0 && box.y + box.height > 0;
    out.result({ session: session?.id, target, box, inView }, () =>
      inView ? `in view: ${target} at x ${Math.round(box.x)}, y ${Math.round(box.y)} (${Math.round(box.width)}×${Math.round(box.height)})` : `scrolled, but ${target} is still outside the viewport (x ${Math.round(box.x)}, y ${Math.round(box.y)})`,
    );
  });
}
