/**
 * URLs as people type them (src/util/typed-url.ts), checked by the CLI's URL policy: the library's "any"
 * (util/url-policy.ts), before a browser is touched.
 */
import { checkTypedUrl } from "../../src/base.js";

export { looksLikeUrl, typedUrl } from "../../src/base.js";

export function checkUrl(raw: string): string {
  return checkTypedUrl(raw, "any");
}

/** Whether `raw` parses as an http(s) URL (the addresses `svc serve` advertises or forwards to). */
export function isHttpUrl(raw: string): boolean {
  try {
    return /^https?:$/.test(new URL(raw).protocol);
  } catch {
    return false;
  }
}
