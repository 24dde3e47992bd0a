/**
 * What a navigation may open and how it waits: the URL rules of Page.goto (bare hosts accepted, schemes
 * bounded, and the browser's URL policy, util/url-policy.ts) and the wait for a lifecycle event
 * of the main frame, shared by goto, reload and history.
 */
import type { CdpSession } from "./cdp/connection.js";
import type { WaitUntil } from "./types.js";
import { ServiceInvalidArgumentError, ServiceTimeoutError } from "../errors.js";
import { checkUrlPolicy, isOpenableScheme, type UrlPolicy } from "../util/url-policy.js";
import { within } from "../util/abort.js";

/**
 * Accepts full URLs and bare hosts (`example.com`, `localhost:3000`); rejects anything else clearly, and what
 * `policy` refuses (util/url-policy.ts) with its own words, whatever the scheme.
 */
export function normalizeUrl(raw: string, policy: UrlPolicy = "any"): string {
  const text = raw.trim();
  if (!text) throw new ServiceInvalidArgumentError("url: expected a URL, got an empty string");
  let url: URL;
  try {
    url = new URL(text);
    if (!isOpenableScheme(url.protocol) && /^[a-z0-9.-]+:\d+/i.test(text)) url = new URL(`http://${text}`);
  } catch {
    if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+(:\d+)?(\/.*)?$|^localhost(:\d+)?(\/.*)?$/i.test(text)) {
      throw new ServiceInvalidArgumentError(`url: "${text}" is not a valid URL`, { hint: "use a full URL such as https://example.com" });
    }
    url = new URL(`${/^(localhost|127\.)/.test(text) ? "http" : "https"}://${text}`);
  }
  checkUrlPolicy(url, policy);
  return url.href;
}

/**
 * Resolves when the main frame (its id read at each event: a navigation may swap it) reaches `event`, rejects
 * with TIMEOUT after `timeout` ms; `cancel` stops listening. Subscribe before sending the navigation.
 */
export function lifecycleWaiter(session: CdpSession, mainFrameId: () => string, event: WaitUntil, timeout: number, url: string): { promise: Promise<void>; cancel: () => void } {
  const name = event === "load" ? "load" : event === "domcontentloaded" ? "DOMContentLoaded" : "networkIdle";
  let off = () => {};
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<void>((resolve, reject) => {
    off = session.on("Page.lifecycleEvent", (e) => {
      if (e.name === name && e.frameId === mainFrameId()) {
        cleanup();
        resolve();
      }
    });
    timer = setTimeout(() => {
      cleanup();
      reject(new ServiceTimeoutError(`navigation to ${url} did not reach "${event}" within ${timeout} ms`));
    }, timeout);
  });
  const cleanup = () => {
    off();
    if (timer) clearTimeout(timer);
  };
  promise.catch(() => {});
  return { promise, cancel: cleanup };
}

const blank = (u: string) => u === "" || u === "about:blank";

/**
 * The main frame's URL once a document other than the initial empty one committed (`current()` until then):
 * waits for that commit up to timeoutMs, then gives what there is.
 */
export async function committedMainUrl(session: CdpSession, current: () => string, timeoutMs: number): Promise<string> {
  if (!blank(current())) return current();
  let committed = "";
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      off();
      resolve();
    };
    const seen = (url: string) => {
      if (blank(url)) return;
      committed = url;
      done();
    };
    const timer = setTimeout(done, timeoutMs);
    const off = session.on("Page.frameNavigated", (e) => {
      if (!e.frame.parentId) seen(e.frame.url);
    });
    // Subscribed first, then asked: a commit this page got no event for (likely one made before its Page.enable
    // took effect; a suite run waited the whole bound for one) is in the frame tree.
    void session.send("Page.getFrameTree").then(({ frameTree }) => seen(frameTree.frame.url + (frameTree.frame.urlFragment ?? "")), () => {});
  });
  return blank(current()) && committed ? committed : current();
}

/**
 * A navigation's work (the navigate call, its lifecycle event, the settling) ends at its deadline with TIMEOUT,
 * whatever call the page leaves unanswered: a page whose script never yields (a loop of alert()/confirm()
 * started after its load event) answers none, and each call would wait for Chrome's 180 s protocol timeout.
 */
export async function navigationWithin<T>(work: Promise<T>, deadline: number, describe: () => string): Promise<T> {
  work.catch(() => {});
  return within(work, Math.max(0, deadline - Date.now()), () => new ServiceTimeoutError(describe()));
}

/** How long a page whose navigation ran out of time has to answer a trivial script before its tab is left. */
export const HUNG_PROBE_MS = 1000;
/** The longest the move to a blank page, and the check that the tab shows it, may take. */
const LEAVE_MS = 5000;
/** How long one try at that move has before it is sent again. */
const LEAVE_TRY_MS = 1000;
/** Where such a tab is sent: an empty data: document, which Chrome commits in a new renderer (about:blank may stay in the hung one). */
const BLANK_DATA = "data:text/html,";

/**
 * After a navigation's timeout: a page that does not answer a trivial script within HUNG_PROBE_MS (a loop of dialogs)
 * would hold every later command of the session. Navigating to an empty data: document leaves it (Chrome commits it
 * in a new renderer). Resolves with what happened, for the TIMEOUT's message, or undefined when the page answered
 * (left as it is).
 */
export async function leaveUnanswering(session: CdpSession): Promise<string | undefined> {
  let dialogs = 0;
  const offDialog = session.on("Page.javascriptDialogOpening", () => void dialogs++);
  const ask = (ms: number) => within(session.send("Runtime.evaluate", { expression: "location.href", returnByValue: true }), ms, () => new ServiceTimeoutError("no answer"));
  try {
    // Any reply is an answer: an error (the document between contexts, a page navigating itself) is not a hang.
    if (await ask(HUNG_PROBE_MS).then(() => true, (e: unknown) => !(e instanceof ServiceTimeoutError))) return undefined;
  } finally {
    offDialog();
  }
  const what = dialogs > 0 ? "the page kept opening dialogs" : "the page did not answer";
  const deadline = Date.now() + LEAVE_MS;
  // The navigation may wait on the old renderer (a dialog of the loop open as it is sent): asked again
  // each LEAVE_TRY_MS until the bound, and the tab asked where it is after each.
  let left = false;
  while (!left && Date.now() < deadline) {
    const bound = Math.min(LEAVE_TRY_MS, Math.max(0, deadline - Date.now()));
    const sent = Date.now();
    left = await within(session.send("Page.navigate", { url: BLANK_DATA }), bound, () => new ServiceTimeoutError("no answer"))
      .then(() => ask(Math.max(0, bound - (Date.now() - sent))))
      .then((r) => r.result.value === BLANK_DATA, () => false);
  }
  return left ? `${what}; the tab was left on a blank page (${BLANK_DATA})` : `${what}, and leaving it for a blank page failed`;
}
