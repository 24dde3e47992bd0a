/**
 * URLs as people type them, for every door that takes one (the CLI's commands, the navigate and tabs capabilities): `localhost:3000/x`, `127.0.0.1:8080`, `[::1]:9000`,
 * `app.localhost` mean `http://…` (a local server speaks plain HTTP); a public host without a scheme is refused with
 * a hint, since http and https may be different sites; a bare word that is not a host is not a URL.
 */
import { ServiceInvalidArgumentError } from "../errors.js";
import { checkUrlPolicy, type UrlPolicy } from "./url-policy.js";

/** `data:[mediatype][;param…],payload`: the payload may hold spaces (`data:text/html,<h1>from data</h1>`). */
const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+)?(;[\w.+-]+(=[^,;\s]*)?)*,/i;

/** A scheme (`https:`, `about:`, `javascript:`), but not `host:port`. */
const SCHEME = /^[a-z][a-z0-9+.-]*:(\/\/|[^\s/])/i;
const HOST_PORT = /^[\w.-]+:\d+([/?#]|$)/;

/** A local host: localhost, *.localhost, an IPv4 address or a bracketed IPv6 one; with an optional port and path. */
const LOCAL = /^(localhost|[\w-]+(\.[\w-]+)*\.localhost|\d{1,3}(\.\d{1,3}){3}|\[[0-9a-f:.]+\])(:\d+)?([/?#]\S*)?$/i;

/** A dotted host name with an optional port and path (`example.com`, `shop.example.co.uk:8443/cart`). */
const DOTTED = /^[\w-]+(\.[\w-]+)+(:\d+)?([/?#]\S*)?$/i;

/**
 * File name endings that are also top-level domains (`.md` is Moldova's): a bare `readme.md` or
 * `setup.py` is a file name in an instruction, not a site, unless a port or a path says otherwise.
 */
const FILE_ENDINGS = new Set(["md", "txt", "json", "csv", "tsv", "html", "htm", "pdf", "png", "jpg", "jpeg", "gif", "svg", "js", "mjs", "ts", "tsx", "py", "rb", "sh", "go", "rs", "java", "xml", "yml", "yaml", "toml", "zip", "gz", "tar", "log", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "mp3", "mp4", "mov", "wav", "lock", "ini", "cfg", "env"]);

function isFileName(a: string): boolean {
  if (/[:/?#]/.test(a)) return false;
  const last = a.slice(a.lastIndexOf(".") + 1).toLowerCase();
  return FILE_ENDINGS.has(last);
}

/**
 * Whether an argument is meant as a URL: a data: URL, or no whitespace and either a scheme
 * (`https://…`, `about:blank`, `javascript:…`, which checkUrl then refuses), a local host or a host name.
 */
export function looksLikeUrl(arg: string): boolean {
  const a = arg.trim();
  if (DATA_URL.test(a)) return true;
  if (!a || /\s/.test(a)) return false;
  if (SCHEME.test(a) && !HOST_PORT.test(a)) return true;
  if (LOCAL.test(a)) return true;
  return DOTTED.test(a) && !isFileName(a);
}

/** A local address typed without a scheme gets `http://`; anything else is returned as typed. */
export function typedUrl(raw: string): string {
  const a = raw.trim();
  if (SCHEME.test(a) && !HOST_PORT.test(a)) return a;
  return LOCAL.test(a) ? `http://${a}` : a;
}

/**
 * Reject anything that is not an absolute URL (after typedUrl), or that `policy` refuses (url-policy.ts: the same
 * words as every door), before a browser is touched.
 */
export function checkTypedUrl(raw: string, policy: UrlPolicy): string {
  const typed = typedUrl(raw);
  let url: URL;
  try {
    url = new URL(typed);
  } catch {
    throw invalidUrl(raw, `not an absolute URL`);
  }
  checkUrlPolicy(url, policy);
  return typed;
}

function invalidUrl(raw: string, why: string): Error {
  const hint = DOTTED.test(raw) ? `did you mean https://${raw} ?` : "use a full URL such as https://example.com";
  return new ServiceInvalidArgumentError(`invalid URL "${raw}": ${why}`, { hint });
}
