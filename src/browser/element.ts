/**
 * What can be done to a resolved element: real mouse and keyboard input where a user would use them, page-side setters
 * only where input cannot express the change (select options, date inputs, scrolling). Every pointer and text action
 * first waits until the element is actionable (actionability.ts). All of it runs in svc's isolated world (frames.ts); a
 * main-world handle is adopted first.
 */
import { actionable, DEFAULT_ACTION_TIMEOUT_MS, type Actionable, type ActionableOptions } from "./actionability.js";
import { callOn, type ElementHost, held, opts, type WaitOptions } from "./element-call.js";
import type { Point } from "./input.js";
import { armPress, PRESS_BINDING, pressOutcome, type PressOutcome, watchPress } from "./press.js";
import { elementFromNode, isolated, type ElementHandle } from "./resolve.js";
import { settleOrMover } from "./moving.js";
import { selectOption } from "./select.js";
import { ServiceClickError, ServiceElementNotFoundError, ServiceInvalidArgumentError } from "../errors.js";

export { callOn, type ElementHost, type WaitOptions } from "./element-call.js";
export { selectOption } from "./select.js";

/** A press that missed is tried again only with this much time left before the deadline. */
const PRESS_RETRY_MARGIN_MS = 100;
/** Presses a click makes at most: each one that missed was cancelled, but a page that keeps moving is not clicked by trying more. */
export const MAX_PRESSES = 3;
/** How long a click waits for its element to stop moving: before the first press, and again after a press that missed. */
export const SETTLE_MS = 1000;

/**
 * Where the pointer would go now (the centre of the element, root viewport coordinates), after one check:
 * for showing the cursor before an action, which does its own waiting.
 */
export async function clickablePoint(host: ElementHost, el: ElementHandle): Promise<Point> {
  return (await actionable("hover", await isolated(el), { deadline: Date.now() }, opts(host, {}))).point;
}

/**
 * Checks, then moves the pointer onto the element. On a quiet page (pageActionable's `defer`) stability is confirmed
 * after the move, not waited for before it: the move waits for the next frame anyway. Where something moves, the pointer
 * waits for stability first, so it never passes over an element sliding under it. `then` runs in the last check's page
 * call (a click arms its press check there).
 */
async function pointAt<V>(host: ElementHost, kind: "click" | "hover", el: ElementHandle, wait: WaitOptions, then?: ActionableOptions["then"], moving: Pick<ActionableOptions, "unstableAfterMs" | "moving"> = {}): Promise<Actionable<V>> {
  const first = await actionable<V>(kind, el, wait, { ...opts(host, wait), deferStable: true, ...moving, ...(then ? { then } : {}) });
  await host.input.move(first.point);
  if (!first.since) return first;
  // The move may start the motion (an animation on hover): this wait has the same bound as the first.
  const sure = await actionable<V>(kind, first.handle, wait, { ...opts(host, wait), stableSince: first.since, ...moving, ...(then ? { then } : {}) });
  if (sure.point.x !== first.point.x || sure.point.y !== first.point.y) await host.input.move(sure.point);
  return sure;
}

/**
 * No button goes down before the element was seen enabled, hit at the point and stable (waited for up to SETTLE_MS, then
 * pressed at the point measured last), and the press is checked where it lands (press.ts). A press another element got
 * was cancelled: svc waits for things to stop moving and presses again, failing after MAX_PRESSES or at the deadline,
 * naming what moved.
 */
export async function click(host: ElementHost, el: ElementHandle, options: { button?: "left" | "right" | "middle"; clickCount?: number } = {}, wait: WaitOptions = {}): Promise<void> {
  const timing = { ...wait, deadline: wait.deadline ?? Date.now() + DEFAULT_ACTION_TIMEOUT_MS };
  await held(host, el, async (h) => {
    /** What kept moving once a settle wait ran out: later presses go at the freshest point without waiting. */
    let mover: string | null = null;
    for (let presses = 1; ; presses++) {
      const watch = watchPress(h.frame.session);
      let outcome: PressOutcome = { ok: false, reason: "the press did not happen" };
      try {
        const then = { fn: armPress, args: [watch.token, PRESS_BINDING] };
        const at = await pointAt<string>(host, "click", h, timing, then, { unstableAfterMs: SETTLE_MS, moving: !!mover });
        try {
          await host.input.buttons(at.point, options);
        } finally {
          outcome = await pressOutcome(at.handle, watch);
        }
        if (outcome.ok) return;
        if (outcome.gone) throw new ServiceClickError(`cannot click ${at.value}: ${outcome.reason}`, { hint: "the page moved on by itself; look at the page it is on now and act there" });
        const last = presses >= MAX_PRESSES || Date.now() >= timing.deadline - PRESS_RETRY_MARGIN_MS;
        if (!mover) mover = await settleOrMover(at.handle, Math.min(last ? SETTLE_MS / 4 : SETTLE_MS, timing.deadline - Date.now() - PRESS_RETRY_MARGIN_MS));
        if (last) {
          const moving = mover ? `; ${mover === at.value ? "it" : mover} kept moving` : "";
          throw new ServiceClickError(`cannot click ${at.value}: ${outcome.reason}; pressed ${presses} time${presses > 1 ? "s" : ""}, cancelled each${moving}`, {
            hint: mover ? `${mover} moves all the time (an animation that does not end?): stop it, or do what the page offers instead` : "the page kept moving under the pointer; wait for it to settle (or for its animation to end) and try again",
          });
        }
        h = at.handle;
      } finally {
        watch.stop();
      }
    }
  });
}

export async function hover(host: ElementHost, el: ElementHandle, wait: WaitOptions = {}): Promise<void> {
  await held(host, el, async (h) => void (await pointAt(host, "hover", h, wait)));
}

/**
 * check / uncheck: a checkbox, a radio or an element with aria-checked. Already in that state: nothing
 * happens. Otherwise one click (with the click's actionability), then the state is read back: a click that
 * did not change it fails rather than reporting success.
 */
export async function setChecked(host: ElementHost, el: ElementHandle, checked: boolean, wait: WaitOptions = {}): Promise<string | undefined> {
  const state = () =>
    callOn<boolean | "none">(el, function (this: Element) {
      const t = this.nodeType === Node.TEXT_NODE ? (this as unknown as Text).parentElement! : this;
      const input = t.localName === "input" ? (t as HTMLInputElement) : t.localName === "label" ? (t as HTMLLabelElement).control : null;
      if (input instanceof HTMLInputElement && (input.type === "checkbox" || input.type === "radio")) return input.checked;
      const aria = t.getAttribute("aria-checked");
      return aria === "true" ? true : aria === "false" || aria === "mixed" ? false : "none";
    });
  const before = await state();
  if (before === "none") throw new ServiceElementNotFoundError(`cannot ${checked ? "check" : "uncheck"} the element: it is not a checkbox or radio button`, { hint: "use click for other elements" });
  // What the result says, so "nothing happened" is told apart from a click.
  if (before === checked) return `already ${checked ? "checked" : "unchecked"}`;
  if (!checked && (await callOn<boolean>(el, function (this: Element) { return (this as HTMLInputElement).type === "radio"; }))) {
    throw new ServiceElementNotFoundError("cannot uncheck a radio button", { hint: "check another option of its group" });
  }
  await click(host, el, {}, wait);
  if ((await state()) !== checked) throw new ServiceClickError(`clicked the element but it is still ${checked ? "unchecked" : "checked"}`, { hint: "the page may handle the click itself; look at it with a new snapshot" });
  return undefined;
}

/**
 * Sets the files of an <input type=file> (or the one a <label> is for) with DOM.setFileInputFiles: no file
 * dialog opens; Chrome fires input and change as for a user's choice. The paths must be absolute and exist.
 */
export async function setInputFiles(el: ElementHandle, files: readonly string[]): Promise<void> {
  const kind = await callOn<string>(el, function (this: Element, count: number) {
    const t = this.localName === "label" ? (this as HTMLLabelElement).control : this;
    if (!(t instanceof HTMLInputElement) || t.type !== "file") return "not";
    if (t.disabled) return "disabled";
    if (this.localName === "label") return "label";
    return count > 1 && !t.multiple ? "single" : "ok";
  }, files.length);
  if (kind === "not") throw new ServiceElementNotFoundError("cannot upload to the element: it is not a file input", { hint: "give the ref of the <input type=file> (or its label)" });
  if (kind === "disabled") throw new ServiceElementNotFoundError("cannot upload to the file input: it is disabled", { hint: "do what enables it first" });
  if (kind === "single") throw new ServiceInvalidArgumentError(`the file input takes one file, got ${files.length}`);
  let target = el;
  if (kind === "label") {
    const { result } = await el.frame.session.send("Runtime.callFunctionOn", {
      objectId: (await isolated(el)).objectId,
      functionDeclaration: "function () { return this.control; }",
      returnByValue: false,
    });
    const { node } = await el.frame.session.send("DOM.describeNode", { objectId: result.objectId! });
    target = await elementFromNode(el.frame, node.backendNodeId);
  }
  await target.frame.session.send("DOM.setFileInputFiles", { files: [...files], backendNodeId: await target.backendNodeId });
}

/**
 * Focus only (press with a selector: Playwright's press checks nothing more). Says whether the element (or
 * one inside it) has the focus afterwards: the focus method fails when it does not (focusAndCheck).
 */
export async function focus(el: ElementHandle): Promise<boolean> {
  return callOn<boolean>(el, function (this: HTMLElement) {
    const target = this.nodeType === Node.TEXT_NODE ? (this as unknown as Text).parentElement! : this;
    target.focus();
    const active = (target.getRootNode() as Document | ShadowRoot).activeElement;
    return !!active && (active === target || target.contains(active));
  });
}

/** The focus method: focus, then fail unless the element has the focus (not focusable, or the page moved it). */
export async function focusAndCheck(el: ElementHandle): Promise<void> {
  if (await focus(el)) return;
  throw new ServiceClickError("focused the element but the focus is elsewhere", { hint: "the element is not focusable (no tabindex) or the page moved the focus; look at it with a new snapshot" });
}

const SET_DIRECTLY = ["date", "time", "datetime-local", "month", "week", "color", "range"];

/**
 * Replaces the element's value as a user would: select everything, then type over it. The checks (visible,
 * enabled, editable) and the preparation (focus + select all, or setting a date-like value) are one call.
 */
export function fill(host: ElementHost, el: ElementHandle, value: string, wait: WaitOptions = {}): Promise<void> {
  return held(host, el, (h) => fillIsolated(host, h, value, wait));
}

async function fillIsolated(host: ElementHost, el: ElementHandle, value: string, wait: WaitOptions): Promise<void> {
  const { handle, value: kind } = await actionable<string>("fill", el, wait, {
    ...opts(host, wait),
    then: {
      fn: function (this: HTMLElement, direct: string[], v: string) {
        if (this.localName === "select") return "select";
        if (this.localName === "input" && direct.includes((this as HTMLInputElement).type)) {
          (this as HTMLInputElement).value = v;
          this.dispatchEvent(new Event("input", { bubbles: true }));
          this.dispatchEvent(new Event("change", { bubbles: true }));
          return "done";
        }
        this.focus();
        if (this.localName === "input" || this.localName === "textarea") (this as HTMLInputElement).select();
        else {
          const range = document.createRange();
          range.selectNodeContents(this);
          const sel = window.getSelection();
          sel?.removeAllRanges();
          sel?.addRange(range);
        }
        return "text";
      },
      args: [SET_DIRECTLY, value],
    },
  });
  if (kind === "select") return void (await selectOption(host, handle, value, wait));
  if (kind !== "done") {
    if (value === "") await host.input.press("Delete");
    else await host.input.insertText(value);
  }
  const now = await textOf(handle);
  if (!sameText(now, value)) throw new ServiceClickError(`filled "${value}" but the field now holds "${now}"`, { hint: REFUSED_HINT });
}

const REFUSED_HINT = "the page refused or rewrote the text (a length limit, a format, a script); look at it with a new snapshot";

/**
 * The text an element holds now: an input's or textarea's value, or an editable element's text. A label (or
 * an element inside one) stands for its control, as in the action's own checks (actionability-page.ts).
 */
function textOf(el: ElementHandle): Promise<string> {
  return callOn<string>(el, function (this: Element) {
    let t = (this.nodeType === Node.ELEMENT_NODE ? this : this.parentElement!) as HTMLElement;
    const field = (e: Element) => e.localName === "input" || e.localName === "textarea";
    if (!field(t) && !t.isContentEditable) t = ((t.closest("label") as HTMLLabelElement | null)?.control as HTMLElement | null) ?? t;
    if (field(t)) return (t as HTMLInputElement).value;
    return t.innerText ?? t.textContent ?? "";
  });
}

/** Letters and digits only, case folded: a field that formats what it got (`5551234567` → `(555) 123-4567`) holds the same text. */
const essence = (s: string): string => s.replace(/[^\p{L}\p{N}]+/gu, "").toLowerCase();
const sameText = (now: string, wanted: string): boolean => now === wanted || essence(now) === essence(wanted);

/** Types key by key into the element (visible, enabled, not read-only), focused first. */
export function type(host: ElementHost, el: ElementHandle, text: string, wait: WaitOptions = {}): Promise<void> {
  return held(host, el, (h) => typeIsolated(host, h, text, wait));
}

async function typeIsolated(host: ElementHost, el: ElementHandle, text: string, wait: WaitOptions): Promise<void> {
  const { handle } = await actionable("type", el, wait, {
    ...opts(host, wait),
    then: {
      fn: function (this: HTMLElement) {
        this.focus();
      },
      args: [],
    },
  });
  await host.input.type(text, wait.signal);
  // Typing inserts at the caret: the typed text is in the field afterwards. Text with control characters
  // (Enter, Tab) may submit or move on: there is no field value to read back then.
  if (/[\u0000-\u001f]/.test(text)) return;
  const now = await textOf(handle);
  if (!essence(now).includes(essence(text))) {
    throw new ServiceClickError(`typed "${text}" but the field now holds "${now}"`, { hint: REFUSED_HINT });
  }
}

export async function press(host: ElementHost, el: ElementHandle | null, key: string): Promise<void> {
  if (el) await focus(el);
  await host.input.press(key);
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

/** Press on the source, travel, release on the target: both checked as a pointer target (the dragged element may cover the drop point). */
export async function dragTo(host: ElementHost, from: ElementHandle, to: ElementHandle, wait: WaitOptions = {}): Promise<void> {
  await held(host, from, async (h) => {
    const source = await actionable("drag", h, wait, opts(host, wait));
    const target = await isolated(to);
    await host.input.drag(source.point, async () => (await actionable("drop", target, wait, { frames: host.frames, alsoAccept: source.handle })).point);
  });
}

export function parsePercent(arg: string | undefined): number {
  if (arg === undefined || arg === "") return 100;
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*%?\s*$/.exec(arg);
  if (!m) throw new ServiceInvalidArgumentError(`scrollTo expects a percentage like "50%", got "${arg}"`);
  return Math.min(100, Math.max(0, Number(m[1])));
}
