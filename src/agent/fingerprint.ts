/**
 * What a cached agent answer was read from: a digest of the page's URL (normalized as the cache keys
 * normalize it) and the rendered text of every frame, in document order (`innerText` of each body,
 * whitespace collapsed; iframes, including out-of-process ones, are part of what the model is shown). The
 * rendered text is what the model's answer reports on; it holds no ids, nonces or attribute values that
 * differ between two loads of the same content, so an unchanged page gives the same digest run after run,
 * and any visible change (a number, a message, another page, an iframe's content) gives another. A page
 * whose main text cannot be read has no fingerprint, and the model is asked; a frame that cannot be read
 * (detached, still loading) counts as one that says so, so it does not match a page where it could be.
 */
import { createHash } from "node:crypto";
import type { Page } from "../browser/page.js";
import { type Frame, utilityContext } from "../browser/frames.js";
import { normalizeUrlForCache } from "../cache/store.js";

const TEXT = `(document.body?.innerText ?? "").replace(/\\s+/g, " ").trim()`;

async function frameText(frame: Frame): Promise<string | undefined> {
  try {
    const contextId = await utilityContext(frame);
    const res = await frame.session.send("Runtime.evaluate", { expression: TEXT, contextId, returnByValue: true });
    return typeof res.result.value === "string" && !res.exceptionDetails ? res.result.value : undefined;
  } catch {
    return undefined;
  }
}

export async function pageFingerprint(page: Page): Promise<string | undefined> {
  try {
    const frames = page.frames.ordered();
    if (frames.length === 0) return undefined;
    const texts = await Promise.all(frames.map(frameText));
    if (texts[0] === undefined) return undefined;
    const hash = createHash("sha256").update(normalizeUrlForCache(page.url()));
    texts.forEach((t, i) => hash.update(`\0${i === 0 ? "" : normalizeUrlForCache(frames[i]!.url)}\0${t ?? "\u0001unreadable"}`));
    return hash.digest("hex");
  } catch {
    return undefined;
  }
}
