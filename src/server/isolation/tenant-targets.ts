/**
 * Which targets of a session's Chrome a tenant may drive on an isolated server: web pages, frames and workers (http,
 * https, about:blank, data:, blob:, chrome-error:) and its own extensions' targets. Everything else is Chrome's own
 * or the server's, with privileged bindings (chrome://extensions turns on file access) or the server's paths. One
 * definition for the CDP filter and svc's target watch.
 */

/** Schemes a page, worker or frame target of a tenant may have (chrome-error: is a failed navigation). */
const WEB_TARGET_SCHEMES = new Set(["http:", "https:", "about:", "data:", "blob:", "chrome-error:"]);
export const ABOUT_PAGES = new Set(["blank", "srcdoc"]);

export interface TargetDescription {
  type?: unknown;
  url?: unknown;
}

/** Whether a target (as /json/list or Target.TargetInfo describes it) is a web page, frame or worker. */
export function isWebTarget(info: TargetDescription): boolean {
  if (info.type === "browser_ui") return false;
  if (info.url === "" || info.url === undefined) return true;
  return webUrl(info.url);
}

/** A web page, frame or worker, or a target of the session's own extension (`own`: its Chrome ids). */
export function tenantTarget(info: TargetDescription, own: readonly string[]): boolean {
  return isWebTarget(info) || (info.type !== "browser_ui" && ownExtensionUrl(info.url, own));
}

/** Whether a tab navigating to `url` stays where a tenant may be (a javascript: URL runs in the page it is in). */
export function tenantNavigation(url: string, own: readonly string[]): boolean {
  return url === "" || url.startsWith("javascript:") || webUrl(url) || ownExtensionUrl(url, own);
}

/** Whether `url` is chrome-extension://<one of `own`>/…. */
export function ownExtensionUrl(url: unknown, own: readonly string[]): boolean {
  const u = parse(url);
  return u !== undefined && u.protocol === "chrome-extension:" && own.includes(u.hostname);
}

function webUrl(url: unknown): boolean {
  const u = parse(url);
  if (!u || !WEB_TARGET_SCHEMES.has(u.protocol)) return false;
  // Chrome shows other about: pages as chrome:// ones (about:version is chrome://version).
  return u.protocol !== "about:" || ABOUT_PAGES.has(u.pathname);
}

function parse(url: unknown): URL | undefined {
  if (typeof url !== "string") return undefined;
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}
