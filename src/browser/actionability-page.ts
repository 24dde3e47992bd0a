/**
 * The in-page half of actionability (see actionability.ts): one function, run on the element with
 * Runtime.callFunctionOn, that waits for its states, scrolls it into view and hit-tests its centre. It is
 * sent as source text, so it uses nothing from outside its own body.
 */

/** What one action requires (the page function reads it; plain data). */
export interface Need {
  visible: boolean;
  enabled: boolean;
  /** fill: a text field that is not read-only; type: not read-only when it is a text field. */
  editable: "" | "fill" | "type";
  stable: boolean;
  hit: boolean;
  /** button-link: a span inside a button counts as the button; follow-label: a label stands for its control. */
  retarget: "none" | "button-link" | "follow-label";
  /** Scroll into view: only when needed, always (subframes: the frame itself may be out of view), or a forced alignment. */
  scroll: "" | "if-needed" | "always" | "end" | "center" | "start";
  select: boolean;
  /** click: when the control's own point is covered, its label (which passes the click on) may take it. */
  viaLabel: boolean;
  /**
   * Do not wait a frame for stability when everything else holds at once and the page is quiet (no DOM
   * change or scroll for 50 ms, no animation running): the result carries the box (`since`) and the
   * caller confirms stability after its pointer move, which waits for a frame anyway.
   */
  defer: boolean;
  /** A block (disabled) seen for this long by this call, in a document unchanged as long, is returned then. */
  stillMs: number;
}

/** A box and the animation frame it was measured on: a later call compares against it. */
export interface Since {
  box: { x: number; y: number; width: number; height: number };
  frame: string;
}

export type PageResult =
  | { state: "ok"; x: number; y: number; target: string; value?: unknown; stable: boolean; since?: Since }
  | { state: "retry"; reason: string; target: string; block?: Block }
  | { state: "fatal"; reason: string; target: string }
  | { state: "detached" };

/**
 * What keeps the action from the element and may never go by itself: the element covering it at every point
 * tried, or what disables it; and how long nothing in the document changed.
 */
export interface Block {
  kind: "cover" | "disabled";
  /** `<div id="veil">`; `its disabled attribute`, `the disabled <fieldset id="billing">`, `aria-disabled on <div class="row">`. */
  by: string;
  /** ms since the last DOM change in this document (0 while a CSS animation or transition runs). */
  stillMs: number;
}

/** The hit test, handed to `then` (the press check reuses it at the moment of each event). */
export interface HitTools {
  /** The element the pointer must reach (a button or link for a span inside one). */
  hitTarget: Element;
  hitAt(x: number, y: number): Element | null;
  accepted(hit: Element): boolean;
  within(e: Element | null, of: Element): boolean;
  short(e: Element): string;
}

/** Why a check failed when the element's box changed between two frames. */
export const NOT_STABLE = "the element is not stable (it moves)";

/**
 * How errors name an element: `<div id="veil">`, `<p class="title">`, `<input type="text">`. Runs in the page:
 * every page function that uses it is sent with its source (see actionability.ts's declaration).
 */
export function shortName(e: Element): string {
  let s = `<${e.localName}`;
  const cls = typeof e.className === "string" ? e.className.trim().split(/\s+/).slice(0, 2).join(" ") : "";
  if (e.id) s += ` id="${e.id.slice(0, 40)}"`;
  else if (cls) s += ` class="${cls.slice(0, 40)}"`;
  else if (e.localName === "input") s += ` type="${(e as HTMLInputElement).type}"`;
  return s + ">";
}

/**
 * `this`: the element (or a text node). Polls one animation frame at a time, at most `budget` ms, until the element
 * is as `need` asks (stable: the same box on two frames; `since` is an earlier call's box), scrolls it into view and
 * hit-tests its centre; then `then` runs on it. With `through`, `this` is a child frame's iframe and the point is
 * carried into this frame.
 */
export async function pageActionable(
  this: Node,
  need: Need,
  budget: number,
  through: { x: number; y: number; settleFrame: boolean } | null,
  since: Since | null,
  also: Element | null,
  then: ((el: Element, tools: HitTools) => unknown) | null,
): Promise<PageResult> {
  const started = performance.now();
  let waited = 0;
  const nextFrame = () => new Promise<void>((resolve) => {
    waited++;
    requestAnimationFrame(() => resolve());
    setTimeout(resolve, 100); // no animation frames in a hidden tab
  });
  // The animation frame now: the timeline's time is fixed for a whole frame (and null in an inactive one).
  const frameNow = () => `${document.timeline?.currentTime ?? "-"}:${waited}`;
  // Quiet: no DOM change or scroll for 50 ms (a script animating a box changes its style every frame; the
  // watch starts with svc's first check in this document, which is never quiet) and no CSS animation or
  // transition running.
  const changes = () => {
    const key = Symbol.for("svc.lastChange");
    const w = window as unknown as Record<symbol, { at: number; dom: number } | undefined>;
    let seen = w[key];
    if (!seen) {
      const mark = { at: performance.now(), dom: performance.now() };
      const touch = () => void (mark.at = performance.now());
      new MutationObserver(() => void (mark.at = mark.dom = performance.now())).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      addEventListener("scroll", touch, { capture: true, passive: true });
      addEventListener("resize", touch, { passive: true });
      Object.defineProperty(window, key, { value: mark });
      seen = mark;
    }
    return seen;
  };
  const animating = () => document.getAnimations().some((a) => a.playState === "running");
  const quiet = () => performance.now() - changes().at > 50 && !animating();
  // Scrolls are left out here: svc's own retries scroll the element into view at other alignments.
  const stillFor = () => (animating() ? 0 : Math.round(performance.now() - changes().dom));
  const short = shortName;
  const parentOf = (e: Element): Element | null => e.parentElement ?? ((e.parentNode as ShadowRoot | null)?.host || null);
  const within = (e: Element | null, of: Element): boolean => {
    for (let n = e; n; n = parentOf(n)) if (n === of) return true;
    return false;
  };
  let el = (this.nodeType === Node.ELEMENT_NODE ? this : this.parentElement) as Element | null;
  if (!el || !el.isConnected) return { state: "detached" };
  const textLike = (e: Element) => e.localName === "textarea" || (e.localName === "input" && !["checkbox", "radio", "file", "button", "submit", "reset", "image", "hidden"].includes((e as HTMLInputElement).type));
  const editableNow = (e: Element) => textLike(e) || e.localName === "select" || (e as HTMLElement).isContentEditable;
  if (need.retarget === "follow-label" && !editableNow(el)) {
    const control = (el.closest("label") as HTMLLabelElement | null)?.control;
    if (control) el = control;
  }
  const target = el;
  const hitTarget = need.retarget === "button-link" && !editableNow(el) ? (el.closest("button, [role=button], a, [role=link]") ?? el) : el;
  const name = short(target);
  if (need.editable === "fill" && !editableNow(target)) {
    const reason = target.localName === "input" ? `an <input type="${(target as HTMLInputElement).type}"> cannot be filled` : "the element is not a text field";
    return { state: "fatal", reason, target: name };
  }
  if (need.select && target.localName !== "select") return { state: "fatal", reason: "the element is not a <select>", target: name };

  const box = (e: Element): DOMRect | null => {
    if (typeof e.checkVisibility === "function" && !e.checkVisibility()) return null;
    const style = getComputedStyle(e);
    if (style.visibility !== "visible") return null;
    if (style.display === "contents") {
      for (const c of Array.from(e.children)) {
        const r = box(c);
        if (r) return r;
      }
      return null;
    }
    for (const r of Array.from(e.getClientRects())) if (r.width > 0 && r.height > 0) return r;
    return null;
  };
  const ariaDisabled = (e: Element) => {
    const owner = e.closest("[aria-disabled]");
    return owner?.getAttribute("aria-disabled")?.toLowerCase() === "true" ? owner : null;
  };
  const disabled = (e: Element) => e.matches(":disabled") || !!ariaDisabled(e);
  // What disables it, for the model: the attribute, the fieldset or optgroup that passes it on, or aria-disabled.
  const disabledBy = (e: Element): string => {
    if (e.matches(":disabled")) {
      if (e.hasAttribute("disabled")) return "its disabled attribute";
      const owner = e.closest("fieldset:disabled, optgroup:disabled");
      return owner ? `the disabled ${short(owner)}` : "the page";
    }
    const owner = ariaDisabled(e)!;
    return owner === e ? `its aria-disabled="true"` : `aria-disabled="true" on ${short(owner)}`;
  };
  const readOnly = (e: Element) => (textLike(e) && (e as HTMLInputElement).readOnly) || e.getAttribute("aria-readonly")?.toLowerCase() === "true";
  const hitAt = (x: number, y: number): Element | null => {
    // The target's roots, innermost first: closed shadow roots are reachable from the inside only.
    const roots: Array<Document | ShadowRoot> = [];
    for (let n: Node = hitTarget; ; ) {
      const root = n.getRootNode() as Document | ShadowRoot;
      roots.push(root);
      if (!(root as ShadowRoot).host) break;
      n = (root as ShadowRoot).host;
    }
    let hit: Element | null = null;
    for (let i = roots.length - 1; i >= 0; i--) {
      hit = roots[i]!.elementFromPoint(x, y);
      if (!hit || i === 0 || hit !== (roots[i - 1] as ShadowRoot).host) break;
    }
    return hit;
  };
  const accepted = (hit: Element) => {
    if (within(hit, hitTarget) || (also && within(hit, also))) return true;
    // A click on a control's label reaches the control (custom checkboxes draw the label over the input).
    const label = hit.closest("label") as HTMLLabelElement | null;
    return !!label && label.control === target;
  };
  // A visually hidden control (1 px, clipped: the "sr-only" pattern) is clicked through its visible label.
  const labelPoint = (): { x: number; y: number } | null => {
    for (const label of Array.from((target as HTMLInputElement).labels ?? [])) {
      const r = box(label);
      if (!r) continue;
      const x = r.left + r.width / 2;
      const y = r.top + r.height / 2;
      const hit = hitAt(x, y);
      if (hit && accepted(hit)) return { x, y };
    }
    return null;
  };
  const coverName = (hit: Element): string => {
    let owner: Element | null = hit;
    for (let i = 0; owner && i < 5 && !owner.id && !(typeof owner.className === "string" && owner.className.trim()); i++) owner = parentOf(owner);
    return `${short(hit)}${owner && owner !== hit ? ` in ${short(owner)}` : ""}`;
  };
  const blocker = (hit: Element | null): string => (hit ? `${coverName(hit)} intercepts pointer events` : "the point is outside of the viewport");
  // Centre covered: a point of the element a person can see. The parts of its box inside the viewport,
  // minus the box of each element found covering it, largest part first; then a grid over the box.
  type Piece = { l: number; t: number; r: number; b: number };
  const visiblePoint = (r: DOMRect, first: Element | null): { x: number; y: number } | null => {
    const usable = (p: Piece) => p.r - p.l >= 2 && p.b - p.t >= 2;
    const minus = (p: Piece, c: Piece): Piece[] => {
      if (c.r <= p.l || c.l >= p.r || c.b <= p.t || c.t >= p.b) return [p];
      const out: Piece[] = [];
      if (c.t > p.t) out.push({ l: p.l, t: p.t, r: p.r, b: c.t });
      if (c.b < p.b) out.push({ l: p.l, t: c.b, r: p.r, b: p.b });
      const t = Math.max(p.t, c.t);
      const b = Math.min(p.b, c.b);
      if (c.l > p.l) out.push({ l: p.l, t, r: c.l, b });
      if (c.r < p.r) out.push({ l: c.r, t, r: p.r, b });
      return out;
    };
    const area = (p: Piece) => (p.r - p.l) * (p.b - p.t);
    let pieces: Piece[] = [{ l: Math.max(r.left, 0), t: Math.max(r.top, 0), r: Math.min(r.right, innerWidth), b: Math.min(r.bottom, innerHeight) }].filter(usable);
    let hit = first;
    let at = { x: r.left + r.width / 2, y: r.top + r.height / 2 };
    for (let i = 0; i < 8 && hit; i++) {
      const c = hit.getBoundingClientRect();
      // The point itself goes too, in case the covering element draws outside its box.
      const cut = [{ l: c.left, t: c.top, r: c.right, b: c.bottom }, { l: at.x - 2, t: at.y - 2, r: at.x + 2, b: at.y + 2 }];
      pieces = pieces.flatMap((p) => minus(p, cut[0]!)).flatMap((p) => minus(p, cut[1]!)).filter(usable).sort((a, b) => area(b) - area(a));
      const p = pieces[0];
      if (!p) break;
      at = { x: (p.l + p.r) / 2, y: (p.t + p.b) / 2 };
      hit = hitAt(at.x, at.y);
      if (hit && accepted(hit)) return at;
    }
    for (let gy = 1; gy < 6; gy++) {
      for (let gx = 1; gx < 6; gx++) {
        const x = r.left + (r.width * gx) / 6;
        const y = r.top + (r.height * gy) / 6;
        if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
        const h = hitAt(x, y);
        if (h && accepted(h)) return { x, y };
      }
    }
    return null;
  };

  if (through) {
    // `this` is an iframe: its content box origin plus the point in its own viewport.
    if (through.settleFrame) {
      await nextFrame();
      await nextFrame();
    }
    const r = target.getBoundingClientRect();
    const cs = getComputedStyle(target);
    const x = r.left + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft) + through.x;
    const y = r.top + parseFloat(cs.borderTopWidth) + parseFloat(cs.paddingTop) + through.y;
    const hit = hitAt(x, y);
    return hit === target ? { state: "ok", x, y, target: name, stable: true } : { state: "retry", reason: blocker(hit), target: name };
  }

  let scrolled = need.scroll === "";
  let previous = since;
  let first = true;
  for (;;) {
    if (!target.isConnected) return { state: "detached" };
    let reason = "";
    let block: Block | undefined;
    const r = need.visible ? box(target) : target.getBoundingClientRect();
    if (!r) reason = "the element is not visible";
    else if (need.enabled && disabled(target)) {
      reason = "the element is not enabled";
      block = { kind: "disabled", by: disabledBy(target), stillMs: stillFor() };
    }
    else if (need.editable && readOnly(target)) reason = "the element is not editable (read-only)";
    else if (!scrolled) {
      scrolled = true;
      const cx = r.left + r.width / 2;
      const cy = r.top + r.height / 2;
      const inView = cx >= 0 && cy >= 0 && cx < innerWidth && cy < innerHeight;
      if (need.scroll !== "if-needed" || !inView) {
        const block = (need.scroll === "if-needed" || need.scroll === "always" ? "center" : need.scroll) as ScrollLogicalPosition;
        target.scrollIntoView({ block, inline: block, behavior: "instant" });
        continue; // measure again where the scroll put it
      }
    }
    if (r && !reason) {
      const b = previous?.box;
      const moved = !b || b.x !== r.x || b.y !== r.y || b.width !== r.width || b.height !== r.height;
      const deferred = need.stable && need.defer && first && !since && quiet();
      if (need.stable && !deferred && (moved || previous!.frame === frameNow())) {
        reason = NOT_STABLE;
        if (moved) previous = { box: { x: r.x, y: r.y, width: r.width, height: r.height }, frame: frameNow() };
      } else {
        let at = { x: r.left + r.width / 2, y: r.top + r.height / 2 };
        if (need.hit) {
          const hit = hitAt(at.x, at.y);
          if (!hit || !accepted(hit)) {
            const other = visiblePoint(r, hit) ?? (need.viaLabel ? labelPoint() : null);
            if (!other) return { state: "retry", reason: blocker(hit), target: name, ...(hit ? { block: { kind: "cover", by: coverName(hit), stillMs: stillFor() } } : {}) };
            at = other;
          }
        }
        const measured = { box: { x: r.x, y: r.y, width: r.width, height: r.height }, frame: frameNow() };
        const tools: HitTools = { hitTarget, hitAt, accepted, within, short };
        return { state: "ok", ...at, target: name, stable: !deferred, ...(deferred ? { since: measured } : {}), ...(then ? { value: await then(target, tools) } : {}) };
      }
    } else previous = null;
    first = false;
    const stillBlocked = block && performance.now() - started >= need.stillMs && block.stillMs >= need.stillMs;
    if (performance.now() - started >= budget || stillBlocked) return { state: "retry", reason, target: name, ...(block ? { block } : {}) };
    await nextFrame();
  }
}
