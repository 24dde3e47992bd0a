/**
 * Actionability, with Playwright's semantics: before input the element must be attached, visible, stable, enabled
 * (editable for text), scrolled into view, and be what receives the event at the input's point (hit test through
 * shadow roots and frames). One page call checks it all and returns the point; failures are retried until the
 * deadline, then reported with the cause.
 */
import { ProtocolError, type CdpSession } from "./cdp/connection.js";
import type { Frame, FrameTree } from "./frames.js";
import type { Point } from "./input.js";
import { NOT_STABLE, pageActionable, shortName, type Need, type PageResult, type Since } from "./actionability-page.js";
import { elementFromNode, type ElementHandle } from "./resolve.js";
import { ServiceClickError, ServiceElementNotFoundError, ServiceEvalError, ServiceStaleRefError } from "../errors.js";
import { abortable, abortError, sleep, throwIfAborted, withDetail } from "../util/abort.js";
import type { Abortable } from "../util/abort.js";

/**
 * Without an operation timeout, an action waits this long for its element. Playwright waits 30 s; here the
 * caller is often a model that can do better with the error (what covers the element) than with the wait.
 */
export const DEFAULT_ACTION_TIMEOUT_MS = 10_000;

/** Between attempts (Playwright's schedule), after the in-page wait for states has run out. */
const BACKOFF_MS = [0, 20, 100, 100, 500];
/** Longest single wait inside the page, so an abort or deadline is noticed between attempts. */
const MAX_PAGE_WAIT_MS = 2000;
/** Kept free before the deadline so the element's error, not the operation's timeout, is what surfaces. */
const DEADLINE_MARGIN_MS = 60;
/** Room kept for one more check after the last backoff (the page call itself takes a round trip or two). */
const LAST_ATTEMPT_MS = 100;
/** What an abort during the wait says (the timeout's own error, when the operation timed out). */
const STOPPED = "the action was stopped before its element was ready";
/** A wait inside the page ends this long before the deadline (a last frame can take 100 ms in a hidden tab). */
const PAGE_MARGIN_MS = 150;
/**
 * Covered by the same element, or disabled, while nothing in the document changed (no DOM mutation, no
 * animation) for this long: a person would not wait for that to go, so the action fails now, naming the cover
 * or what disables the element, rather than at its deadline. On a page that is still changing it is waited
 * for until the deadline.
 */
export const STILL_BLOCK_MS = 1000;

export type ActionKind = "click" | "hover" | "drag" | "drop" | "fill" | "type" | "select";

type Needs = Omit<Need, "scroll" | "defer" | "stillMs">;
const POINTER: Needs = { visible: true, enabled: false, editable: "", stable: true, hit: true, retarget: "button-link", select: false, viaLabel: false };
const TEXT: Needs = { visible: true, enabled: true, editable: "", stable: false, hit: false, retarget: "follow-label", select: false, viaLabel: false };
const NEEDS: Record<ActionKind, Needs> = {
  click: { ...POINTER, enabled: true, viaLabel: true },
  hover: POINTER,
  drag: POINTER,
  drop: POINTER,
  fill: { ...TEXT, editable: "fill" },
  type: { ...TEXT, editable: "type" },
  select: { ...TEXT, select: true },
};

const VERB: Record<ActionKind, string> = { click: "click", hover: "hover", drag: "drag", drop: "drop onto", fill: "fill", type: "type into", select: "select an option of" };

export interface ActionTiming extends Abortable {
  /** Epoch ms by which the element must be actionable (default: now + DEFAULT_ACTION_TIMEOUT_MS). */
  deadline?: number;
}

export interface Actionable<V = unknown> {
  handle: ElementHandle;
  /** Root viewport coordinates (pointer actions only). */
  point: Point;
  /** What `then` returned (it ran in the same page call, right after the checks passed). */
  value: V;
  /** With deferStable, when stability is still to be confirmed: pass it back as `stableSince`. */
  since?: Since;
  /** Checked without stability: it kept moving for `unstableAfterMs`, or the caller said so (`moving`). */
  moving?: true;
}

export interface ActionableOptions {
  /** Resolves the element again when it was detached (a re-render); without it, detached is final. */
  again?: () => Promise<ElementHandle>;
  /** drop: a hit on the dragged element (it may follow the pointer) counts as a hit on the target. */
  alsoAccept?: ElementHandle;
  /**
   * Runs in the page on the element once every check passed, in the same call; `this` is the element, its
   * arguments `args` and then the hit test (HitTools).
   */
  then?: { fn: (this: any, ...args: any[]) => unknown; args: unknown[] };
  /** The page's frames: a point in a subframe is carried up to the root viewport through them. */
  frames: FrameTree;
  /**
   * Main frame: when all else holds at once, return without waiting a frame for stability; the result's
   * `since` is then confirmed by a second call (`stableSince`) after the pointer move's own frame.
   */
  deferStable?: boolean;
  /** The box an earlier call measured: stable means the same box now, on a later frame. */
  stableSince?: Since;
  /**
   * Stability is waited for this long at most: then the element is checked without it and its point is the
   * one measured last (a click verifies where its press lands, press.ts). Without it, until the deadline.
   */
  unstableAfterMs?: number;
  /** Known to keep moving: checked without stability at once. */
  moving?: boolean;
}

/** Why an action failed at its deadline when its element was gone each time it was looked at (a part of the message). */
export const DETACHED_EVERY_TRY = "the element was removed from the page on every try";

/** Waits until `kind` can be done to the element; throws ServiceClickError (or a fatal element error) when it cannot. */
export async function actionable<V = unknown>(kind: ActionKind, first: ElementHandle, timing: ActionTiming, options: ActionableOptions): Promise<Actionable<V>> {
  const seen: Seen = {};
  try {
    return await waitActionable<V>(kind, first, timing, options, seen);
  } catch (e) {
    // Stopped (the operation's timeout, or its caller) while the element was not ready: the stop's own error,
    // saying what the last check saw, as Playwright's call log does. A timeout stays a timeout.
    const { signal } = timing;
    const { last } = seen;
    if (last && signal?.aborted && e instanceof Error && e === abortError(signal)) throw withDetail(e, `waiting to ${VERB[kind]} ${last.target}: ${last.reason}`);
    throw e;
  }
}

/** What the latest check found wrong (kept by the wait, read by its caller when the wait was stopped). */
interface Seen {
  last?: { reason: string; target: string };
}

async function waitActionable<V>(kind: ActionKind, first: ElementHandle, timing: ActionTiming, options: ActionableOptions, seen: Seen): Promise<Actionable<V>> {
  const deadline = timing.deadline ?? Date.now() + DEFAULT_ACTION_TIMEOUT_MS;
  const started = Date.now();
  let handle = first;
  let attempt = 0;
  /** What blocks the element on the latest tries (a cover, what disables it), and since when (this process's clock). */
  let blocked: { by: string; since: number } | undefined;
  /** Since when the element has been found moving on every try (this process's clock). */
  let movingSince: number | undefined;
  const bound = options.unstableAfterMs;
  for (;;) {
    if (attempt > 0) {
      // The last wait is cut short rather than skipped: the element gets every chance up to the deadline.
      const room = deadline - Date.now() - DEADLINE_MARGIN_MS - LAST_ATTEMPT_MS;
      if (room <= 0) break;
      await sleep(Math.min(BACKOFF_MS[Math.min(attempt - 1, BACKOFF_MS.length - 1)]!, room), timing.signal, STOPPED);
    }
    throwIfAborted(timing.signal, STOPPED);
    const unstable = !!options.moving || (bound !== undefined && movingSince !== undefined && Date.now() - movingSince >= bound);
    const budget = Math.max(50, Math.min(MAX_PAGE_WAIT_MS, bound ?? MAX_PAGE_WAIT_MS, deadline - Date.now() - PAGE_MARGIN_MS));
    const need: Need = { ...NEEDS[kind], ...(unstable ? { stable: false } : {}), scroll: scrollFor(kind, handle.frame, attempt), defer: !!options.deferStable && !handle.frame.parentId, stillMs: STILL_BLOCK_MS };
    const since = attempt === 0 && handle === first ? options.stableSince : undefined;
    const called = Date.now();
    const r = await abortable(checkInFrame(handle, need, budget, since, options), timing.signal, STOPPED);
    attempt++;
    if (r.state === "detached") {
      seen.last = { reason: DETACHED_EVERY_TRY, target: "the element" };
      if (!options.again) throw new ServiceStaleRefError(`cannot ${VERB[kind]} the element: it was removed from the page`, { hint: "take a new snapshot and use its refs" });
      handle = await options.again();
      continue;
    }
    if (r.state === "fatal") throw new ServiceElementNotFoundError(`cannot ${VERB[kind]} ${r.target}: ${r.reason}`, { hint: hintFor(r.reason) });
    if (r.state === "retry") {
      seen.last = { reason: r.reason, target: r.target };
      movingSince = r.reason === NOT_STABLE ? (movingSince ?? called) : undefined;
      // Blocked by the same thing for the bound, and the document unchanged for as long: it stays.
      const block = r.block;
      if (blocked?.by !== block?.by) blocked = block ? { by: block.by, since: called } : undefined;
      if (block && Date.now() - blocked!.since >= STILL_BLOCK_MS && block.stillMs >= STILL_BLOCK_MS) {
        const hint = block.kind === "cover" ? `${block.by} covers it and is not going away by itself: close or dismiss it first` : "do what enables it first";
        const cause = block.kind === "disabled" ? `, disabled by ${block.by}` : "";
        throw new ServiceClickError(`cannot ${VERB[kind]} ${r.target}: ${r.reason}${cause} (nothing on the page changed for ${Math.round(block.stillMs)} ms)`, { hint });
      }
      continue;
    }
    const done = { handle, value: r.value as V, ...(r.since ? { since: r.since } : {}), ...(unstable && NEEDS[kind].stable ? { moving: true as const } : {}) };
    if (!NEEDS[kind].hit || !handle.frame.parentId) return { ...done, point: { x: r.x, y: r.y } };
    const up = await abortable(pointInRoot(options.frames, handle.frame, { x: r.x, y: r.y }), timing.signal, STOPPED);
    if ("point" in up) return { ...done, point: up.point };
    seen.last = { reason: up.reason, target: r.target };
  }
  const waited = Date.now() - started;
  const { last } = seen;
  const what = last ? `${last.target}: ${last.reason}` : "the element";
  throw new ServiceClickError(`cannot ${VERB[kind]} ${what} (waited ${waited} ms)`, { hint: hintFor(last?.reason ?? "") });
}

function scrollFor(kind: ActionKind, frame: Frame, attempt: number): Need["scroll"] {
  if (kind === "fill" || kind === "type" || kind === "select") return attempt === 0 ? "if-needed" : "";
  // Playwright cycles the alignment on retries: a sticky header or footer can cover the element at one.
  const cycle = (["", "end", "center", "start"] as const)[attempt % 4]!;
  return cycle || (frame.parentId ? "always" : "if-needed");
}

function hintFor(reason: string): string {
  if (/intercepts pointer events/.test(reason)) return "another element covers it (an overlay, a dialog, a banner): close or wait for that first";
  if (/not visible/.test(reason)) return "it may be hidden or collapsed; open its container first";
  if (/not enabled/.test(reason)) return "it is disabled; do what enables it first";
  if (/not editable/.test(reason)) return "the field is read-only";
  if (/not stable/.test(reason)) return "it kept moving (an animation that does not end?)";
  if (/not a text field|cannot be filled/.test(reason)) return "target an <input>, <textarea> or contenteditable element";
  if (/<select>/.test(reason)) return "for a custom dropdown, click it open, then click the option";
  return "check the element's state on the page";
}

/** One page call on the element: checks, scrolling, stability, the in-frame hit test and `then`. */
async function checkInFrame(handle: ElementHandle, need: Need, budget: number, since: Since | undefined, options: ActionableOptions): Promise<PageResult> {
  const also = options.alsoAccept && options.alsoAccept.frame === handle.frame ? options.alsoAccept.objectId : undefined;
  try {
    return await callPage<PageResult>(handle.frame.session, handle.objectId, declaration(options.then?.fn), [
      { value: need },
      { value: budget },
      { value: null },
      { value: since ?? null },
      also ? { objectId: also } : { value: null },
      ...(options.then?.args ?? []).map((value) => ({ value })),
    ]);
  } catch (e) {
    // The document went away (navigation) or the object is no longer valid: like a detached element.
    if (e instanceof ProtocolError) return { state: "detached" };
    throw e;
  }
}

/**
 * From a point in a frame's own viewport to the root viewport: at every frame boundary, in the parent, the
 * iframe element must be what is hit there (nothing of the parent covers the frame at that point).
 */
async function pointInRoot(frames: FrameTree, frame: Frame, local: Point): Promise<{ point: Point } | { reason: string }> {
  let point = local;
  let child = frame;
  while (child.parentId) {
    const parent = frames.get(child.parentId);
    if (!parent) break;
    const owner = await parent.session.send("DOM.getFrameOwner", { frameId: child.id });
    const { objectId } = await elementFromNode(parent, owner.backendNodeId);
    // The browser routes input into an OOPIF with the geometry of the parent's last rendered frame: after a
    // change that moved the iframe (a scroll the child asked for), wait for a frame before measuring.
    const settleFrame = parent.session !== child.session;
    const need: Need = { ...NEEDS.drop, stable: false, enabled: false, retarget: "none", scroll: "", defer: false, stillMs: STILL_BLOCK_MS };
    let r: PageResult;
    try {
      r = await callPage<PageResult>(parent.session, objectId, declaration(undefined), [{ value: need }, { value: 50 }, { value: { ...point, settleFrame } }, { value: null }, { value: null }]);
    } finally {
      void parent.session.send("Runtime.releaseObject", { objectId }).catch(() => {});
    }
    if (r.state === "detached") return { reason: "its frame was removed" };
    if (r.state !== "ok") return { reason: `in its parent frame, ${r.reason}` };
    point = { x: r.x, y: r.y };
    child = parent;
  }
  return { point };
}

async function callPage<T>(session: CdpSession, objectId: string, functionDeclaration: string, args: Array<{ value: unknown } | { objectId: string }>): Promise<T> {
  const res = await session.send("Runtime.callFunctionOn", { objectId, functionDeclaration, arguments: args, returnByValue: true, awaitPromise: true });
  if (res.exceptionDetails) {
    const msg = res.exceptionDetails.exception?.description?.split("\n")[0] ?? res.exceptionDetails.text;
    throw new ServiceEvalError(`actionability check failed: ${msg}`);
  }
  return res.result.value as T;
}

const declarations = new Map<unknown, string>();

/** The page function with `then` bound in, as source (cached: the same text lets V8 reuse its compilation). */
function declaration(then: ((...args: any[]) => unknown) | undefined): string {
  let text = declarations.get(then);
  if (!text) {
    // `__name`: bundlers that keep function names (esbuild keepNames, used by tsx) call it; see pageFunction.
    text = `function (need, budget, through, since, also, ...rest) { const __name = (f) => f; const NOT_STABLE = ${JSON.stringify(NOT_STABLE)}; const shortName = ${shortName.toString()}; const then = ${then ? `(${then.toString()})` : "null"}; return (${pageActionable.toString()}).call(this, need, budget, through, since, also, then ? (el, tools) => then.apply(el, [...rest, tools]) : null); }`;
    declarations.set(then, text);
  }
  return text;
}
