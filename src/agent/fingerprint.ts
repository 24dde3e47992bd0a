/**
 * What a cached agent answer was read from: a digest of the normalized URL and every frame's rendered text (innerText,
 * whitespace collapsed). That text is what an answer reports on, and it holds no ids or nonces that differ between loads
 * of the same content. A page whose main text cannot be read has no fingerprint (the model is asked); an unreadable
 * frame never matches a readable one.
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
