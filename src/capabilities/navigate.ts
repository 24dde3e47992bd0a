/**
 * Opening a URL in a tab. The URL is read as people type it (`localhost:3000` is http://localhost:3000,
 * util/typed-url.ts) and opened through Page.goto, which applies the door's URL policy (util/url-policy.ts). A
 * navigation that failed puts the tab back where it was; a 4xx/5xx page is a page that loaded, with its status.
 */
import { z } from "zod";
import type { Page } from "../index.js";
import { ServiceInvalidArgumentError, ServiceTimeoutError } from "../errors.js";
import { within } from "../util/abort.js";
import { typedUrl } from "../util/typed-url.js";
import { capability, moves, type Navigated } from "./declare.js";
import { TAB, TIMEOUT } from "./element.js";

/** A URL as typed; Chrome's own bound on a URL is 2 MB. */
export const URL_TEXT = z.string().min(1).max(2_000_000);

/** A navigation's bound without a timeout (Page.goto's default). */
const DEFAULT_NAV_TIMEOUT_MS = 30_000;

/** How long returnTo waits for the page to say where it is. */
const RETURN_ASK_MS = 2000;

/** What the title read may take past the navigation's timeout (a page navigating itself reads in a few ms). */
const TITLE_GRACE_MS = 2000;

/**
 * After a failed navigation: the tab back where it was (its history's previous entry), not on Chrome's error
 * page whose refs would mislead the next call; about:blank when that cannot be had.
 */
async function returnTo(page: Page, before: string): Promise<void> {
  // What the tab shows now, asked of the page itself (the failed navigation may have committed an error page);
  // a page that does not answer within RETURN_ASK_MS is taken as not the one before.
  const shown = async () =>
    String(await within(page.evaluate("location.href"), RETURN_ASK_MS, () => new ServiceTimeoutError(`no answer within ${RETURN_ASK_MS} ms`)).catch(() => ""));
  if ((await shown()) === before) return;
  try {
    if (before && before !== "about:blank" && (await page.goBack({ timeout: 10_000 })) && (await shown()) === before) return;
  } catch {
    // no way back: a blank tab below
  }
  await page.goto("about:blank", { timeout: 10_000 }).catch(() => {});
}

/**
 * The loaded page's title, bounded by the navigation's deadline plus a grace (a page never quiet spends the whole
 * timeout settling). A page whose documents never last long enough to be read gets Chrome's own title for the tab;
 * one that answers nothing (a dialog loop after load) is a TIMEOUT saying where its tab was left.
 */
async function titleWithin(page: Page, url: string, timeout: number, deadline: number): Promise<string> {
  const hung = () => new ServiceTimeoutError(`${url} loaded but did not answer within ${timeout} ms (a script that never yields, such as a dialog loop)`);
  const read = page.title();
  try {
    return await within(read, Math.max(TITLE_GRACE_MS, deadline - Date.now()), hung);
  } catch (e) {
    if (!(e instanceof ServiceTimeoutError)) throw e;
    read.catch(() => {});
    // One that does not answer is left for a blank page, as a navigation's timeout leaves it, so the next call
    // finds a page that answers (Page.leaveIfUnanswering).
    const left = await page.leaveIfUnanswering();
    if (left === undefined) return page.targetTitle();
    throw new ServiceTimeoutError(`${hung().message}: ${left}`);
  }
}

export const navigate = capability({
  name: "navigate",
  description: "Open a URL in the current tab (or the tab given)",
  input: {
    url: URL_TEXT.describe("the URL to open: https://…, or localhost:3000 for http://localhost:3000 (other schemes as the URL policy allows)"),
    timeout: TIMEOUT,
    waitUntil: z.enum(["load", "domcontentloaded", "networkidle"]).optional().describe("when the navigation is done: load (default), domcontentloaded or networkidle"),
    tab: TAB,
  },
  mcp: { cap: "core", annotations: moves("Open a URL") },
  cli: {
    verb: "goto",
    args: "<url>",
    description:
      "navigate the session's selected tab, starting a session when none is live (localhost:3000/x means http://localhost:3000/x); a 4xx/5xx page still loads (exit 0) and says its status",
    examples: ["svc goto https://example.com", "svc goto localhost:3000/login --wait-until networkidle"],
    hosted: true,
    aliases: [
      {
        verb: "open",
        description: "open URL in the live session's selected tab, starting a session (configured defaults) when none is live; same as goto",
        examples: ["svc open https://example.com", "svc open localhost:3000 && svc snapshot -i"],
      },
    ],
    startsSession: true,
    urls: { url: "any" },
  },
  run: async (ctx, i): Promise<Navigated> => {
    const url = typedUrl(i.url);
    const page = await ctx.page(i.tab);
    const before = page.url();
    const timeout = i.timeout ?? DEFAULT_NAV_TIMEOUT_MS;
    const deadline = Date.now() + timeout;
    let nav: Awaited<ReturnType<Page["goto"]>>;
    try {
      nav = await page.goto(url, { timeout, ...(i.waitUntil ? { waitUntil: i.waitUntil } : {}) });
    } catch (e) {
      // A navigation that failed (unreachable host, refused) goes back; one that ran out of time stays: its
      // document committed and may still be loading, as a browser would leave it. A refused URL moved nothing.
      if (!(e instanceof ServiceTimeoutError || e instanceof ServiceInvalidArgumentError)) await returnTo(page, before);
      throw e;
    }
    const title = await titleWithin(page, url, timeout, deadline);
    const finalUrl = page.url();
    ctx.note({ method: "navigate", parameters: { url }, result: { url: finalUrl, title, status: nav.status } });
    return { kind: "navigated", url: finalUrl, title, status: nav.status };
  },
});
