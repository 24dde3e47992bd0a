/**
 * A browser's login state — cookies (session-only ones too) and the localStorage and sessionStorage of the
 * origins open in its tabs — collected over CDP and applied to another browser. The shape is Playwright's
 * storageState plus sessionStorage, with a version, so a saved file can be read by later versions.
 */
import { z } from "zod";
import type { BrowserContext } from "./context.js";
import type { Page } from "./page.js";
import { ServiceInvalidArgumentError, ServiceTimeoutError } from "../errors.js";

const item = z.object({ name: z.string(), value: z.string() }).strict();

const storageCookieSchema = z.object({
  name: z.string(),
  value: z.string(),
  domain: z.string().min(1),
  path: z.string(),
  /** Seconds since the epoch; -1 for a session-only cookie. */
  expires: z.number(),
  httpOnly: z.boolean(),
  secure: z.boolean(),
  sameSite: z.enum(["Strict", "Lax", "None"]).optional(),
});

const originStorageSchema = z.object({
  origin: z.string().regex(/^https?:\/\/[^/]+$/, "an http(s) origin such as https://example.com"),
  localStorage: z.array(item),
  sessionStorage: z.array(item),
});

export const storageStateSchema = z.object({
  version: z.literal(1),
  cookies: z.array(storageCookieSchema),
  origins: z.array(originStorageSchema),
});

export type StorageCookie = z.infer<typeof storageCookieSchema>;
export type OriginStorage = z.infer<typeof originStorageSchema>;
export type StorageState = z.infer<typeof storageStateSchema>;

/** Validate outside input (a file, a request body): one-line error naming the first bad field. */
export function parseStorageState(value: unknown, from = "state"): StorageState {
  const r = storageStateSchema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const at = issue?.path.length ? `${from}.${issue.path.join(".")}` : from;
  throw new ServiceInvalidArgumentError(`invalid ${at}: ${issue?.message ?? "not a storage state"}`);
}

/** Reads the storage of the page's main frame; null on opaque origins (about:blank, data:). */
const READ_STORAGE = `(() => {
  try {
    const origin = location.origin;
    if (!/^https?:/.test(origin)) return null;
    const items = (s) => Object.keys(s).map((name) => ({ name, value: s.getItem(name) ?? "" }));
    return { origin, localStorage: items(localStorage), sessionStorage: items(sessionStorage) };
  } catch { return null; }
})()`;

export async function collectStorageState(context: BrowserContext): Promise<StorageState> {
  // A client in a context of its own on a shared Chrome reads its own cookies, not the default context's.
  const where = context.browserContextId ? { browserContextId: context.browserContextId } : {};
  const { cookies } = await context.connection.root.send("Storage.getCookies", where);
  const byOrigin = new Map<string, OriginStorage>();
  for (const page of context.pages()) {
    const got = await page.evaluate<OriginStorage | null>(READ_STORAGE).catch(() => null);
    if (!got) continue;
    const seen = byOrigin.get(got.origin);
    // localStorage is one per origin; sessionStorage is per tab: two tabs on one origin are merged.
    byOrigin.set(got.origin, seen ? { ...got, sessionStorage: merge(seen.sessionStorage, got.sessionStorage) } : got);
  }
  return {
    version: 1,
    cookies: cookies.map((c) => ({
      name: c.name,
      value: c.value,
      domain: c.domain,
      path: c.path,
      expires: c.session ? -1 : c.expires,
      httpOnly: c.httpOnly,
      secure: c.secure,
      ...(c.sameSite ? { sameSite: c.sameSite } : {}),
    })),
    origins: [...byOrigin.values()].filter((o) => o.localStorage.length || o.sessionStorage.length),
  };
}

function merge(a: OriginStorage["sessionStorage"], b: OriginStorage["sessionStorage"]) {
  const m = new Map(a.map((x) => [x.name, x.value]));
  for (const x of b) m.set(x.name, x.value);
  return [...m].map(([name, value]) => ({ name, value }));
}

/**
 * Cookies go to the whole browser. Web storage can only be written by a document of its origin, so the active tab
 * visits each origin with the document answered locally (Fetch: nothing reaches the site), sets the items and
 * returns. sessionStorage lands in the active tab. Fetch is disabled afterwards: a page answering proxy
 * authentication through Fetch loses that until set up again.
 */
export async function applyStorageState(context: BrowserContext, state: StorageState): Promise<void> {
  if (state.cookies.length) {
    await context.connection.root.send("Storage.setCookies", { cookies: state.cookies.map(cookieParam), ...(context.browserContextId ? { browserContextId: context.browserContextId } : {}) });
  }
  const origins = state.origins.filter((o) => o.localStorage.length || o.sessionStorage.length);
  if (!origins.length) return;
  const page = context.activePage() ?? (await context.newPage());
  const back = page.url();
  const session = page.mainSession;
  const onPaused = (e: { requestId: string; request: { url: string } }) => {
    const stub = origins.some((o) => e.request.url.startsWith(`${o.origin}/`));
    void (
      stub
        ? session.send("Fetch.fulfillRequest", {
            requestId: e.requestId,
            responseCode: 200,
            responseHeaders: [{ name: "Content-Type", value: "text/html; charset=utf-8" }],
            body: Buffer.from("<!doctype html><title></title>").toString("base64"),
          })
        : session.send("Fetch.continueRequest", { requestId: e.requestId })
    ).catch(() => {});
  };
  const off = session.on("Fetch.requestPaused", onPaused);
  try {
    await session.send("Fetch.enable", { patterns: [{ urlPattern: "*", resourceType: "Document", requestStage: "Request" }] });
    for (const o of origins) {
      await session.send("Page.navigate", { url: `${o.origin}/` });
      await waitForOrigin(page, o.origin);
      await page.evaluate(
        (s: OriginStorage) => {
          for (const x of s.localStorage) localStorage.setItem(x.name, x.value);
          for (const x of s.sessionStorage) sessionStorage.setItem(x.name, x.value);
        },
        o,
      );
    }
  } finally {
    off();
    await session.send("Fetch.disable").catch(() => {});
  }
  // Back to the page it showed (loaded anew, now with the state), so the next command finds it ready.
  if (/^(https?|file):/.test(back)) await page.goto(back);
  else await session.send("Page.navigate", { url: "about:blank" });
}

/** A host-only cookie is set through a URL (a `domain` would make it a domain cookie); a domain cookie by its domain. */
function cookieParam(c: StorageCookie) {
  const where = c.domain.startsWith(".") ? { domain: c.domain, path: c.path } : { url: `${c.secure ? "https" : "http"}://${c.domain}${c.path}` };
  return {
    name: c.name,
    value: c.value,
    ...where,
    path: c.path,
    httpOnly: c.httpOnly,
    secure: c.secure,
    ...(c.sameSite ? { sameSite: c.sameSite } : {}),
    ...(c.expires >= 0 ? { expires: c.expires } : {}),
  };
}

/** The stub document has committed and its execution context is the page's main one. */
async function waitForOrigin(page: Page, origin: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = await page.evaluate<string>("location.origin").catch(() => "");
    if (now === origin) return;
    if (Date.now() > deadline) throw new ServiceTimeoutError(`could not open ${origin} to restore its storage within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
