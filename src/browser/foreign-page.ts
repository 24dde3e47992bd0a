/**
 * A page of another automation library passed as `options.page` (docs/wire-formats.md "Library operations"): Playwright (and its
 * forks) and Puppeteer pages are recognised by the CDP session they can open on their own target, whose
 * target id names svc's page for the same tab. Anything else is a typed error saying what is accepted.
 */
import { ServiceInvalidArgumentError } from "../errors.js";

interface CdpLike {
  send(method: "Target.getTargetInfo"): Promise<{ targetInfo?: { targetId?: string; type?: string } }>;
  detach?(): Promise<unknown>;
}

type Opener = () => Promise<CdpLike>;

const ACCEPTED_PAGES = "svc's own page (service.page, context.pages()), a Playwright page or a Puppeteer page of the same browser";

function fn(o: unknown, key: string): ((...a: unknown[]) => unknown) | undefined {
  const v = (o as Record<string, unknown> | null)?.[key];
  return typeof v === "function" ? (v as (...a: unknown[]) => unknown) : undefined;
}

/** How to open a CDP session on this page's own target, when it is a Playwright or Puppeteer page. */
function cdpOpener(page: unknown): { library: string; open: Opener } | undefined {
  if (!page || typeof page !== "object") return undefined;
  // Puppeteer: page.createCDPSession() attaches to the page's target.
  const create = fn(page, "createCDPSession");
  if (create) return { library: "Puppeteer", open: () => create.call(page) as Promise<CdpLike> };
  // Playwright: page.context().newCDPSession(page) (Chromium only).
  const contextOf = fn(page, "context");
  if (contextOf && fn(page, "goto")) {
    const context = contextOf.call(page);
    const open = fn(context, "newCDPSession");
    if (open) return { library: "Playwright", open: () => open.call(context, page) as Promise<CdpLike> };
  }
  return undefined;
}

/**
 * The CDP target id of a Playwright or Puppeteer page; a ServiceInvalidArgumentError for any other value
 * (`field` names the option).
 */
export async function foreignTargetId(page: unknown, field: string): Promise<{ targetId: string; library: string }> {
  const opener = cdpOpener(page);
  if (!opener) {
    const what = page === null ? "null" : typeof page === "object" ? `an object (${(page as object).constructor?.name ?? "no class"})` : typeof page;
    throw new ServiceInvalidArgumentError(`${field}: expected ${ACCEPTED_PAGES}; got ${what}`);
  }
  let session: CdpLike;
  try {
    session = await opener.open();
  } catch (e) {
    throw new ServiceInvalidArgumentError(`${field}: cannot open a CDP session on that ${opener.library} page (${(e as Error).message?.split("\n")[0]})`, {
      hint: "svc works on Chromium pages only",
      cause: e,
    });
  }
  try {
    const { targetInfo } = await session.send("Target.getTargetInfo");
    if (!targetInfo?.targetId) throw new ServiceInvalidArgumentError(`${field}: that ${opener.library} page did not name its target`);
    return { targetId: targetInfo.targetId, library: opener.library };
  } finally {
    await session.detach?.().catch(() => {});
  }
}
