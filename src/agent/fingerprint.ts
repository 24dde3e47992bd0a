/**
 * What a cached agent answer was read from: a digest of the page's URL (normalized as the cache keys
 * normalize it) and its rendered text (`innerText` of the body, whitespace collapsed). The rendered text is
 * what the model's answer reports on; it holds no ids, nonces or attribute values that differ between two
 * loads of the same content, so an unchanged page gives the same digest run after run, and any visible
 * change (a number, a message, another page) gives another. A page whose text cannot be read has no
 * fingerprint, and the model is asked.
 */
import { createHash } from "node:crypto";
import type { Page } from "../browser/page.js";
import { normalizeUrlForCache } from "../cache/store.js";

export async function pageFingerprint(page: Page): Promise<string | undefined> {
  try {
    const text = await page.evaluate(() => (document.body?.innerText ?? "").replace(/\s+/g, " ").trim());
    if (typeof text !== "string") return undefined;
    return createHash("sha256").update(`${normalizeUrlForCache(page.url())}\0${text}`).digest("hex");
  } catch {
    return undefined;
  }
}
