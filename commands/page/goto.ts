/**
 * `svc goto URL [--timeout MS] [--wait-until load|domcontentloaded|networkidle]`: navigate the session's
 * active page (a session is started when none is live). A 4xx/5xx answer is still a page that loaded (exit 0), and the text output says its status.
 */
import type { Page } from "../../src/index.js";
import { ServiceInvalidArgumentError, ServiceTimeoutError } from "../../src/base.js";
import { within } from "../../src/base.js";
import { parseTimeout } from "../core/numbers.js";
import type { CloudGlobals } from "../core/cloud.js";
import { withSessionOrStart } from "../core/runtime.js";
import { checkUrl } from "../core/url.js";
import type { GOTO_OPTIONS } from "../registry/page.js";
import type { FlagsOf } from "../registry/types.js";

export type GotoFlags = FlagsOf<typeof GOTO_OPTIONS>;

const WAIT_UNTIL = ["load", "domcontentloaded", "networkidle"] as const;
type WaitUntil = (typeof WAIT_UNTIL)[number];

export function parseWaitUntil(raw: string | undefined): WaitUntil | undefined {
  if (raw === undefined) return undefined;
  const v = WAIT_UNTIL.find((w) => w === raw.trim().toLowerCase());
  if (!v) throw new ServiceInvalidArgumentError(`--wait-until must be one of ${WAIT_UNTIL.join(", ")}, got "${raw}"`);
  return v;
}

/** `https://x/  Title` plus `  (HTTP 404)` when the server answered an error status. */
export function pageLine(url: string, title: string, status: number | null): string {
  return `${url}${title ? `  ${title}` : ""}${status !== null && status >= 400 ? `  (HTTP ${status})` : ""}`;
}

/**
 * After a failed navigation: the tab back where it was (its history's previous entry), not on Chrome's error
 * page whose refs would mislead the next command; about:blank when that cannot be had.
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

/** A navigation's bound without --timeout (Page.goto's default). */
const DEFAULT_NAV_TIMEOUT_MS = 30_000;

/** How long returnTo waits for the page to say where it is. */
const RETURN_ASK_MS = 2000;

/** What the title read may take past the navigation's timeout (a page navigating itself reads in a few ms). */
const TITLE_GRACE_MS = 2000;

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
    // One that does not answer is left for a blank page, as a navigation's timeout leaves it, so the session's
    // next command finds a page that answers (Page.leaveIfUnanswering).
    const left = await page.leaveIfUnanswering();
    if (left === undefined) return page.targetTitle();
    throw new ServiceTimeoutError(`${hung().message}: ${left}`);
  }
}

/** `svc goto URL` / `svc open URL`: with no live session, one is started first (runtime.ts withSessionOrStart). */
export async function goto(g: CloudGlobals, rawUrl: string, flags: GotoFlags = {}, command = "goto"): Promise<void> {
  const url = checkUrl(rawUrl);
  const timeout = parseTimeout(flags.timeout);
  const waitUntil = parseWaitUntil(flags.waitUntil);
  await withSessionOrStart(g, command, async ({ svc, out, session, note }) => {
    const page = svc.page;
    const before = page.url();
    const deadline = Date.now() + (timeout ?? DEFAULT_NAV_TIMEOUT_MS);
    let nav: Awaited<ReturnType<typeof page.goto>>;
    try {
      nav = await page.goto(url, { ...(timeout !== undefined ? { timeout } : {}), ...(waitUntil ? { waitUntil } : {}) });
    } catch (e) {
      // A navigation that failed (unreachable host, refused) goes back; one that ran out of time stays: its
      // document committed and may still be loading, as a browser would leave it.
      if (!(e instanceof ServiceTimeoutError)) await returnTo(page, before);
      throw e;
    }
    const title = await titleWithin(page, url, timeout ?? DEFAULT_NAV_TIMEOUT_MS, deadline);
    const finalUrl = page.url();
    const status = nav?.status ?? null;
    note({ method: "navigate", parameters: { url }, result: { url: finalUrl, title, status } });
    out.result({ session: session?.id, url: finalUrl, title, status }, () => pageLine(finalUrl, title, status));
  }, timeout !== undefined ? { timeoutMs: timeout } : {});
}
