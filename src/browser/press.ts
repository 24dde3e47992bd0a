/**
 * A press verified where it lands: a layout that moves between the last check and the button going down puts the press
 * on another element. So the last check's page call arms a listener in svc's isolated world that hit-tests each event of
 * the press and cancels one reaching another element. A press whose document is gone at read-back counts only if the
 * listener reported it (PRESS_BINDING).
 */
import { type CdpSession, ProtocolError } from "./cdp/connection.js";
import type { HitTools } from "./actionability-page.js";
import type { ElementHandle } from "./resolve.js";

/** What the armed listener saw. */
export interface PressRecord {
  /** Trusted pointer/mouse events of the press seen in the element's document. */
  seen: number;
  /** The first event that reached another element: `mousedown on <p class="title">`; "" when none did. */
  miss: string;
  /**
   * How many of each event type reached the element before any miss. Each button that went down must come up:
   * a release can be lost (a dialog the page opens between the two, a timer's confirm(), swallows it, and the
   * page's click never comes).
   */
  counts: Record<string, number>;
}

/** `gone`: the element's document went away, so pressing again is pointless. */
export type PressOutcome = { ok: true } | { ok: false; reason: string; gone?: true };

/** The binding svc's isolated world calls with a press's token when the press reached its element. */
export const PRESS_BINDING = "__svcPressReached";

/** A press about to be made: its token (for armPress) and whether the page reported it reached the element. */
export interface PressWatch {
  token: string;
  reached(): boolean;
  stop(): void;
}

let pressCount = 0;

/** Listens, on the element's session, for the report of press `token` (see the header). */
export function watchPress(session: CdpSession): PressWatch {
  const token = `${process.pid}-${++pressCount}`;
  let reached = false;
  const stop = session.on("Runtime.bindingCalled", (e) => {
    if (e.name === PRESS_BINDING && e.payload === token) reached = true;
  });
  return { token, reached: () => reached, stop };
}

/**
 * Runs in the page (svc's isolated world) as `then` of the final check; `this` is the element. Arms the
 * listener (replacing one left from an earlier press) and returns the element's short name.
 */
export function armPress(this: Element, token: string, binding: string, tools: HitTools): string {
  const key = Symbol.for("svc.press");
  const w = window as unknown as Record<symbol, { stop(): void; record: PressRecord } | undefined>;
  w[key]?.stop();
  const types = ["pointerdown", "mousedown", "pointerup", "mouseup", "click", "auxclick", "dblclick", "contextmenu"];
  const hitTarget = tools.hitTarget;
  let outer: Element = hitTarget;
  for (let root = outer.getRootNode() as ShadowRoot; root.host; root = outer.getRootNode() as ShadowRoot) outer = root.host;
  const record: PressRecord = { seen: 0, miss: "", counts: {} };
  const reached = (e: MouseEvent): boolean => {
    // A later event missing because the element went away (a menu item closing its menu) is the page's reaction, not a miss.
    if (record.seen > 0 && !hitTarget.isConnected) return true;
    const t = e.target instanceof Element ? e.target : null;
    if (!t) return false;
    if (outer === hitTarget) return tools.accepted(t);
    // At the window, a target inside shadow roots shows as its outermost host: hit-test the point again.
    const hit = tools.within(t, outer) ? tools.hitAt(e.clientX, e.clientY) : null;
    return !!hit && tools.accepted(hit);
  };
  const listener = (e: Event) => {
    if (!e.isTrusted || !(e instanceof MouseEvent)) return;
    if (!record.miss) {
      const ok = reached(e);
      record.seen++;
      record.counts[e.type] = (record.counts[e.type] ?? 0) + 1;
      if (ok && record.seen === 1) {
        const report = (globalThis as unknown as Record<string, ((payload: string) => void) | undefined>)[binding];
        if (typeof report === "function") report(token);
      }
      if (!ok) {
        const t = e.target instanceof Element ? e.target : null;
        const hit = t && t === outer && outer !== hitTarget ? (tools.hitAt(e.clientX, e.clientY) ?? t) : t;
        record.miss = `${e.type} on ${hit ? tools.short(hit) : "nothing"}`;
      }
    }
    if (record.miss) {
      e.preventDefault();
      e.stopImmediatePropagation();
    }
  };
  for (const t of types) addEventListener(t, listener, true);
  // A backstop: the caller reads (and so removes) it right after the press.
  const timer = setTimeout(() => armed.stop(), 30_000);
  const armed = {
    record,
    stop() {
      clearTimeout(timer);
      for (const t of types) removeEventListener(t, listener, true);
      if (w[key] === armed) w[key] = undefined;
    },
  };
  w[key] = armed;
  return tools.short(this);
}

/** Disarms the listener and says whether the press reached the element. */
export async function pressOutcome(handle: ElementHandle, watch: PressWatch): Promise<PressOutcome> {
  let res;
  try {
    res = await handle.frame.session.send("Runtime.callFunctionOn", {
      objectId: handle.objectId,
      functionDeclaration: `function () { const k = Symbol.for("svc.press"); const a = window[k]; if (!a) return null; a.stop(); return a.record; }`,
      returnByValue: true,
    });
  } catch (e) {
    // The element's document or frame is gone: received if the page reported so before (see the header).
    if (!(e instanceof ProtocolError)) throw e;
    return watch.reached() ? { ok: true } : { ok: false, reason: "its document was gone before the press reached it (the page navigated)", gone: true };
  }
  const record = res.exceptionDetails ? null : (res.result.value as PressRecord | null);
  if (!record) return { ok: false, reason: "the press was not observed (its listener was removed)" };
  if (record.miss) return { ok: false, reason: `the press landed elsewhere: ${record.miss} (the page moved between the check and the press)` };
  if (record.seen === 0) return { ok: false, reason: "no pointer event of the press reached its document (something of another frame took it)" };
  // Pointer or mouse events, whichever came more often: a page that cancels pointerdown gets no mouse events.
  const times = (pointer: string, mouse: string) => Math.max(record.counts[pointer] ?? 0, record.counts[mouse] ?? 0);
  if (times("pointerup", "mouseup") < times("pointerdown", "mousedown")) return { ok: false, reason: "the button went down on it but its release never reached the page (a dialog the page opened meanwhile swallowed it)" };
  return { ok: true };
}
