/**
 * What keeps an element moving. A press that landed elsewhere (press.ts) means the layout moved between the check and
 * the press, so before pressing again svc waits (bounded) for the element and its ancestors to stay put: no change of
 * box or own transform (CSS or SVG animation, a script) between two animation frames. The outermost mover is named: a
 * pie menu's rotating group, not its item.
 */
import { ProtocolError } from "./cdp/connection.js";
import { shortName } from "./actionability-page.js";
import type { ElementHandle } from "./resolve.js";

/** Still for this long: the element has settled (longer than a timer-driven animation's step). */
const SETTLED_MS = 150;
/** Beyond `maxMs`, how long the page's answer is waited for (a hidden tab's throttled timers): then nothing is named. */
const ANSWER_SLACK_MS = 500;

/**
 * Waits up to `maxMs` for the element and its ancestors to stay put for SETTLED_MS. Null once they did (or the
 * element is gone); otherwise the outermost that kept moving, as errors name elements (`<g id="pie">`).
 */
export async function settleOrMover(handle: ElementHandle, maxMs: number): Promise<string | null> {
  const wait = Math.max(0, maxMs);
  const asked = handle.frame.session.send("Runtime.callFunctionOn", {
    objectId: handle.objectId,
    functionDeclaration: DECLARATION,
    arguments: [{ value: wait }, { value: SETTLED_MS }],
    returnByValue: true,
    awaitPromise: true,
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), wait + ANSWER_SLACK_MS)));
  try {
    const res = await Promise.race([asked, late]);
    return !res || res.exceptionDetails ? null : ((res.result.value as string | null) ?? null);
  } catch (e) {
    if (e instanceof ProtocolError) return null; // its document went away: nothing left to wait for
    throw e;
  } finally {
    clearTimeout(timer);
    asked.catch(() => {}); // answered after the bound: no one reads it
  }
}

/**
 * Runs in the page; `this` is the element (or a text node). `short` comes in as an argument: a free name here
 * would be whatever a bundler or test transform calls the import, which the page does not have.
 */
function pageMover(this: Node, maxMs: number, settledMs: number, short: (e: Element) => string): Promise<string | null> {
  const chain: Element[] = [];
  for (let e = this.nodeType === Node.ELEMENT_NODE ? (this as Element) : this.parentElement; e && chain.length < 64; ) {
    chain.push(e);
    e = e.parentElement ?? ((e.parentNode as ShadowRoot | null)?.host || null);
  }
  const pose = (e: Element): string => {
    const r = e.getBoundingClientRect();
    const m = e instanceof SVGGraphicsElement ? e.getCTM() : null;
    return `${r.x},${r.y},${r.width},${r.height}|${m ? [m.a, m.b, m.c, m.d, m.e, m.f].join() : getComputedStyle(e).transform}`;
  };
  return new Promise((resolve) => {
    const started = performance.now();
    let still = started;
    let mover: Element | null = null;
    let last = chain.map(pose);
    const tick = () => {
      try {
        step();
      } catch {
        resolve(null); // a throw in an animation frame callback would leave the promise pending for ever
      }
    };
    const step = () => {
      const now = chain.map(pose);
      for (let i = chain.length - 1; i >= 0; i--) {
        if (now[i] === last[i]) continue;
        mover = chain[i]!;
        still = performance.now();
        break;
      }
      last = now;
      if (performance.now() - still >= settledMs || !chain[0]!.isConnected) return resolve(null);
      if (performance.now() - started >= maxMs) return resolve(mover ? short(mover) : null);
      let done = false;
      const next = () => void (done || ((done = true), tick()));
      requestAnimationFrame(next);
      setTimeout(next, 100); // no animation frames in a hidden tab
    };
    tick();
  });
}

const DECLARATION = `function (maxMs, settledMs) { const __name = (f) => f; const shortName = ${shortName.toString()}; return (${pageMover.toString()}).call(this, maxMs, settledMs, shortName); }`;
