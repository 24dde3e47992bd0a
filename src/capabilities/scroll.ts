/**
 * The scrolls the Action methods have no word for: one visible width sideways, or N CSS pixels down (-N up).
 * Each reports what the page shows afterwards, read back from it: the scroll position before and after, so a
 * scroll at the edge moves nothing and says so.
 */
import type { CapabilityContext, Scrolled } from "./declare.js";

/** Every `to` of the scroll capability; the longest pixel amount has 6 digits. */
export const SCROLL_WHERE = /^(up|down|top|bottom|left|right|-?\d{1,6}(\.\d+)?(%|px))$/i;
/** The ones done here rather than by an Action. */
export const SIDEWAYS_OR_PIXELS = /^(left|right|-?\d{1,6}(\.\d+)?px)$/i;

interface Position {
  x: number;
  y: number;
}

/** In the page: scroll the element's scroller (itself when it scrolls that way, else the page) and report before/after. */
function pageScrollBy(this: Node, where: string): { from: Position; to: Position; scroller: "page" | "element" } {
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

export async function scrollBy(ctx: CapabilityContext, target: string | undefined, where: string, tab?: number): Promise<Scrolled> {
  // Loaded here: the CLI reads the declarations before any command runs, without the library.
  const { callOn } = await import("../internal.js");
  const el = await ctx.resolve(target ?? "/html", await ctx.page(tab));
  const r = await callOn<{ from: Position; to: Position; scroller: "page" | "element" }>(el, pageScrollBy, where);
  return { kind: "scrolled", target: target ?? null, where, ...r, moved: r.from.x !== r.to.x || r.from.y !== r.to.y };
}
