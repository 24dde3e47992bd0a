/**
 * What can be done to a resolved element: real mouse and keyboard input where a user would use them,
 * page-side setters only where input cannot express the change (select options, date inputs, scrolling).
 */
import type { CdpSession } from "./cdp/connection.js";
import type { Frame, FrameTree } from "./frames.js";
import type { Input, Point } from "./input.js";
import type { ElementHandle } from "./resolve.js";
import { pageFunction } from "./selector.js";
import { ServiceClickError, ServiceElementNotFoundError, ServiceEvalError, ServiceInvalidArgumentError } from "../errors.js";

export interface ElementHost {
  readonly frames: FrameTree;
  readonly mainSession: CdpSession;
  readonly input: Input;
}

export async function callOn<T = unknown>(el: ElementHandle, fn: (this: any, ...args: any[]) => unknown, ...args: unknown[]): Promise<T> {
  const res = await el.frame.session.send("Runtime.callFunctionOn", {
    objectId: el.objectId,
    functionDeclaration: pageFunction(fn),
    arguments: args.map((value) => ({ value })),
    returnByValue: true,
    awaitPromise: true,
  });
  if (res.exceptionDetails) {
    const msg = res.exceptionDetails.exception?.description?.split("\n")[0] ?? res.exceptionDetails.text;
    throw new ServiceEvalError(`page script failed: ${msg}`);
  }
  return res.result.value as T;
}

/** Offset of a frame's viewport within the root (main frame) viewport; same-process frames need none. */
async function frameOffset(host: ElementHost, frame: Frame): Promise<Point> {
  let local: Frame = frame;
  for (;;) {
    const parent = local.parentId ? host.frames.get(local.parentId) : undefined;
    if (!parent || parent.session !== local.session) break;
    local = parent;
  }
  const parent = local.parentId ? host.frames.get(local.parentId) : undefined;
  if (!parent || local.session === host.mainSession) return { x: 0, y: 0 };
  // The browser routes input into an OOPIF with the geometry of the parent's last rendered frame, not its
  // current layout: after a change that moves the iframe (a result text pushing it aside) wait for a frame.
  // The timeout covers background tabs, where requestAnimationFrame does not run.
  const rendered = parent.session
    .send("Runtime.evaluate", { expression: "new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(r)); setTimeout(r, 100); })", awaitPromise: true })
    .catch(() => {});
  const owner = await parent.session.send("DOM.getFrameOwner", { frameId: local.id });
  const { model } = await parent.session.send("DOM.getBoxModel", { backendNodeId: owner.backendNodeId });
  await rendered;
  const above = await frameOffset(host, parent);
  return { x: model.content[0]! + above.x, y: model.content[1]! + above.y };
}

export async function scrollIntoView(el: ElementHandle): Promise<void> {
  await callOn(el, function (this: Element) {
    if (this.nodeType === Node.TEXT_NODE) (this as unknown as Text).parentElement?.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
    else if (typeof this.scrollIntoView === "function") this.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  });
}

/** The centre of the element's first visible box, in root viewport coordinates. */
export async function clickablePoint(host: ElementHost, el: ElementHandle, action: string): Promise<Point> {
  if (!el.frame.parentId) {
    // Main frame: scroll and measure in one round trip; client rects are root viewport coordinates.
    const box = await callOn<{ x: number; y: number; w: number; h: number } | null>(el, function (this: Element) {
      const target = this.nodeType === Node.TEXT_NODE ? (this as unknown as Text).parentElement : this;
      if (!target) return null;
      target.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      const r = Array.from(target.getClientRects()).find((q) => q.width * q.height > 1);
      return r ? { x: r.left, y: r.top, w: r.width, h: r.height } : null;
    });
    if (!box) throw new ServiceClickError(`cannot ${action}: the element is not visible (zero size)`, { hint: "it may be hidden or collapsed; open its container first" });
    return { x: box.x + box.w / 2, y: box.y + box.h / 2 };
  }
  await scrollIntoView(el);
  let quads: number[][];
  try {
    ({ quads } = await el.frame.session.send("DOM.getContentQuads", { objectId: el.objectId }));
  } catch (e) {
    throw new ServiceClickError(`cannot ${action}: the element has no layout box`, { hint: "it may be hidden (display:none) or detached", cause: e });
  }
  const quad = quads.find((q) => area(q) > 1);
  if (!quad) throw new ServiceClickError(`cannot ${action}: the element is not visible (zero size)`, { hint: "it may be hidden or collapsed; open its container first" });
  const offset = await frameOffset(host, el.frame);
  const x = (quad[0]! + quad[2]! + quad[4]! + quad[6]!) / 4 + offset.x;
  const y = (quad[1]! + quad[3]! + quad[5]! + quad[7]!) / 4 + offset.y;
  return { x, y };
}

function area(q: number[]): number {
  let a = 0;
  for (let i = 0; i < 4; i++) {
    const j = (i + 1) % 4;
    a += q[i * 2]! * q[j * 2 + 1]! - q[j * 2]! * q[i * 2 + 1]!;
  }
  return Math.abs(a / 2);
}

export async function click(host: ElementHost, el: ElementHandle, options: { button?: "left" | "right" | "middle"; clickCount?: number } = {}): Promise<void> {
  const at = await clickablePoint(host, el, "click");
  await host.input.click(at, options);
}

export async function hover(host: ElementHost, el: ElementHandle): Promise<void> {
  await host.input.move(await clickablePoint(host, el, "hover"));
}

export async function focus(el: ElementHandle): Promise<void> {
  await callOn(el, function (this: HTMLElement) {
    const target = this.nodeType === Node.TEXT_NODE ? (this as unknown as Text).parentElement! : this;
    target.focus();
  });
}

const SET_DIRECTLY = ["date", "time", "datetime-local", "month", "week", "color", "range"];

/** Replaces the element's value as a user would: select everything, then type over it. */
export async function fill(host: ElementHost, el: ElementHandle, value: string): Promise<void> {
  const kind = await callOn<string>(
    el,
    function (this: HTMLElement, direct: string[], v: string) {
      if (this instanceof HTMLSelectElement) return "select";
      if (this instanceof HTMLInputElement && direct.includes(this.type)) {
        this.value = v;
        this.dispatchEvent(new Event("input", { bubbles: true }));
        this.dispatchEvent(new Event("change", { bubbles: true }));
        return "done";
      }
      if (this instanceof HTMLInputElement || this instanceof HTMLTextAreaElement) {
        if (this.readOnly || this.disabled) return "readonly";
        this.focus();
        this.select();
        return "text";
      }
      if (this.isContentEditable) {
        this.focus();
        const range = document.createRange();
        range.selectNodeContents(this);
        const sel = window.getSelection();
        sel?.removeAllRanges();
        sel?.addRange(range);
        return "text";
      }
      return "other";
    },
    SET_DIRECTLY,
    value,
  );
  if (kind === "done") return;
  if (kind === "select") return selectOption(el, value);
  if (kind === "readonly") throw new ServiceElementNotFoundError("cannot fill: the field is read-only or disabled");
  if (kind === "other") throw new ServiceElementNotFoundError("cannot fill: the element is not a text field", { hint: "target an <input>, <textarea> or contenteditable element" });
  if (value === "") await host.input.press("Delete");
  else await host.input.insertText(value);
}

export async function type(host: ElementHost, el: ElementHandle, text: string): Promise<void> {
  await focus(el);
  await host.input.type(text);
}

export async function press(host: ElementHost, el: ElementHandle | null, key: string): Promise<void> {
  if (el) await focus(el);
  await host.input.press(key);
}

/** Chooses an option of a native <select> by its visible text or value. */
export async function selectOption(el: ElementHandle, choice: string): Promise<void> {
  const result = await callOn<{ ok: boolean; reason?: string; options?: string[] }>(
    el,
    function (this: HTMLSelectElement, want: string) {
      if (!(this instanceof HTMLSelectElement)) return { ok: false, reason: "not-select" };
      const norm = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();
      const opts = Array.from(this.options);
      const hit = opts.find((o) => o.value === want) ?? opts.find((o) => norm(o.text) === norm(want)) ?? opts.find((o) => norm(o.text).includes(norm(want)));
      if (!hit) return { ok: false, reason: "no-option", options: opts.map((o) => o.text.trim()) };
      this.focus();
      hit.selected = true;
      this.dispatchEvent(new Event("input", { bubbles: true }));
      this.dispatchEvent(new Event("change", { bubbles: true }));
      return { ok: true };
    },
    choice,
  );
  if (result.ok) return;
  if (result.reason === "not-select") {
    throw new ServiceElementNotFoundError("selectOptionFromDropdown needs a <select> element", { hint: "for a custom dropdown, click it open, then click the option" });
  }
  throw new ServiceElementNotFoundError(`no option "${choice}" in the dropdown`, { hint: `options are: ${(result.options ?? []).slice(0, 20).join(", ")}` });
}

/** Scrolls the element (or the page, for html/body) to a percentage of its scroll height. */
export async function scrollToPercent(el: ElementHandle, percent: number): Promise<void> {
  await callOn(
    el,
    function (this: Element, pct: number) {
      const doc = this.ownerDocument;
      const page = this === doc.documentElement || this === doc.body || this.scrollHeight <= this.clientHeight;
      const target = page ? doc.scrollingElement ?? doc.documentElement : this;
      const max = target.scrollHeight - (page ? window.innerHeight : target.clientHeight);
      target.scrollTop = Math.max(0, (max * pct) / 100);
      target.dispatchEvent(new Event("scroll"));
    },
    percent,
  );
}

/** Scrolls the element's scroll container (or the page) by one visible height. */
export async function scrollChunk(el: ElementHandle, direction: 1 | -1): Promise<void> {
  await callOn(
    el,
    function (this: Element, dir: number) {
      const doc = this.ownerDocument;
      const page = this === doc.documentElement || this === doc.body || this.scrollHeight <= this.clientHeight;
      if (page) window.scrollBy({ top: dir * window.innerHeight, behavior: "instant" });
      else this.scrollBy({ top: dir * this.clientHeight, behavior: "instant" });
    },
    direction,
  );
}

export async function dragTo(host: ElementHost, from: ElementHandle, to: ElementHandle): Promise<void> {
  const a = await clickablePoint(host, from, "drag");
  await host.input.drag(a, () => clickablePoint(host, to, "drop onto"));
}

export function parsePercent(arg: string | undefined): number {
  if (arg === undefined || arg === "") return 100;
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*%?\s*$/.exec(arg);
  if (!m) throw new ServiceInvalidArgumentError(`scrollTo expects a percentage like "50%", got "${arg}"`);
  return Math.min(100, Math.max(0, Number(m[1])));
}
