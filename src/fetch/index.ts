/**
 * `fetchPage(url, options)`: one page as markdown, text, html, raw text or JSON, by plain HTTP (http.ts) or rendered
 * in Chrome (browser.ts), decoded (content.ts) and converted (html.ts, json.ts). Binary content is refused, never
 * garbled into text. An HTTP error status is not an exception: the result carries `statusCode` and the body, and the
 * caller decides.
 */
import { randomUUID } from "node:crypto";
import { ServiceFetchError, ServiceInvalidArgumentError, ServiceTimeoutError } from "../errors.js";
import { renderInBrowser } from "./browser.js";
import { Cancellation, abortError } from "../util/abort.js";
import { checkUrlPolicy } from "../util/url-policy.js";
import { type ContentKind, declaredKind, decodeBody, describeType, parseContentType, sniffKind } from "./content.js";
import { checkHost, httpGet } from "./http.js";
import { compileSchema, jsonContent } from "./json.js";
import {
  type BrowserRenderer,
  DEFAULT_FETCH_MAX_BYTES,
  DEFAULT_FETCH_MAX_REDIRECTS,
  DEFAULT_FETCH_TIMEOUT_MS,
  FETCH_FORMATS,
  type FetchFormat,
  type FetchOptions,
  type FetchResult,
} from "./types.js";

export { pageRenderer, renderInBrowser, type RenderInBrowserOptions } from "./browser.js";
export {
  type BrowserRenderer,
  DEFAULT_FETCH_MAX_BYTES,
  DEFAULT_FETCH_MAX_REDIRECTS,
  DEFAULT_FETCH_TIMEOUT_MS,
  FETCH_FORMATS,
  type FetchFormat,
  type FetchOptions,
  type FetchResult,
  type RenderOptions,
  type RenderedPage,
} from "./types.js";

const DEFAULT_USER_AGENT = "Mozilla/5.0 (compatible; svc-fetch/1.0)";
const ACCEPT_HTML = "text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.7";
const ACCEPT_JSON = "application/json,text/plain;q=0.9,*/*;q=0.8";

interface Resolved {
  format: FetchFormat;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  follow: boolean;
}

function invalid(message: string, hint?: string): ServiceInvalidArgumentError {
  return new ServiceInvalidArgumentError(message, hint ? { hint } : {});
}

function checkNumber(name: string, value: number | undefined, fallback: number, min: number, integer: boolean): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw invalid(`${name}: expected ${integer ? "an integer" : "a number"} ≥ ${min} (got ${String(value)})`);
  }
  return value;
}

function resolveOptions(options: FetchOptions): Resolved {
  const format = options.format ?? "markdown";
  if (!FETCH_FORMATS.includes(format)) throw invalid(`format: one of ${FETCH_FORMATS.join(", ")} (got ${JSON.stringify(format)})`);
  const timeoutMs = checkNumber("timeoutMs", options.timeoutMs, DEFAULT_FETCH_TIMEOUT_MS, 1, false);
  const maxBytes = checkNumber("maxBytes", options.maxBytes, DEFAULT_FETCH_MAX_BYTES, 1, true);
  const maxRedirects = checkNumber("maxRedirects", options.maxRedirects, DEFAULT_FETCH_MAX_REDIRECTS, 0, true);
  if (options.schema !== undefined && format !== "json") throw invalid(`schema: applies to format "json" only (format is "${format}")`);
  return { format, timeoutMs, maxBytes, maxRedirects, follow: options.allowRedirects !== false && maxRedirects > 0 };
}

/** An absolute http(s) URL (the "http" URL policy, util/url-policy.ts, as goto applies it), or a clear refusal. */
export function checkFetchUrl(raw: string): URL {
  if (typeof raw !== "string" || !raw.trim()) throw invalid("url: expected an http(s) URL, got an empty string");
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    const bare = /^[\w-]+(\.[\w-]+)+(:\d+)?([/?#].*)?$/.test(raw.trim());
    throw invalid(`url: "${raw}" is not an absolute URL`, bare ? `did you mean https://${raw.trim()} ?` : "use a full URL such as https://example.com");
  }
  checkUrlPolicy(url, "http", "read the file directly, or open it with svc goto");
  if (url.username || url.password) throw invalid("url: credentials in the URL (user:password@) are not supported");
  return url;
}

interface Body {
  url: string;
  statusCode: number;
  headers: Record<string, string>;
  contentType: string;
  kind: ContentKind;
  text: string;
  encoding: string;
}

function describe(body: Pick<Body, "url" | "statusCode">, type: string): string {
  return `${body.url} (${type}${body.statusCode >= 200 && body.statusCode < 300 ? "" : `, HTTP ${body.statusCode}`})`;
}

function binaryRefusal(url: string, statusCode: number, essence: string): ServiceFetchError {
  const status = statusCode >= 200 && statusCode < 300 ? "" : ` (HTTP ${statusCode})`;
  return new ServiceFetchError(
    `${url}${status} is ${describeType(essence)}: fetch gives text only, and every format (markdown, text, html, json, and raw, the body as text) needs a textual response`,
    { hint: "download it with curl -o FILE instead" },
  );
}

/** The body in the asked format, plus the page title for HTML. */
async function convert(body: Body, format: FetchFormat, schema: ReturnType<typeof compileSchema> | undefined): Promise<{ content: string; title: string | undefined }> {
  const type = parseContentType(body.contentType).essence || body.kind;
  const ok = body.statusCode >= 200 && body.statusCode < 300;
  // An error page or a redirect without a body: nothing to convert, the status says what happened.
  if (!body.text.trim() && !ok) return { content: "", title: undefined };
  if (format === "json") return { content: jsonContent(body.text, describe(body, type), schema), title: undefined };
  if (body.kind !== "html") {
    if (format === "html") throw new ServiceFetchError(`${describe(body, type)} is not HTML`, { hint: "use format raw for the body as it is, or markdown/text (which pass text through)" });
    // Plain text, Markdown, CSV, XML, JSON…: already text; markdown and text pass it through.
    return { content: body.text, title: undefined };
  }
  // linkedom, Readability and turndown load on first use, not with the library.
  const { documentTitle, htmlToMarkdown, htmlToText } = await import("./html.js");
  if (format === "markdown") return htmlToMarkdown(body.text, body.url);
  if (format === "text") return htmlToText(body.text, body.url);
  return { content: body.text, title: documentTitle(body.text) }; // html and raw: the document as served
}

function result(body: Body, converted: { content: string; title: string | undefined }): FetchResult {
  return {
    id: randomUUID(),
    url: body.url,
    content: converted.content,
    contentType: body.contentType,
    encoding: body.encoding,
    headers: body.headers,
    statusCode: body.statusCode,
    ...(converted.title ? { title: converted.title } : {}),
  };
}

async function overHttp(url: URL, o: Resolved, options: FetchOptions): Promise<Body> {
  const res = await httpGet(url.href, {
    timeoutMs: o.timeoutMs,
    maxBytes: o.maxBytes,
    maxRedirects: o.maxRedirects,
    followRedirects: o.follow,
    userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
    accept: o.format === "json" ? ACCEPT_JSON : ACCEPT_HTML,
    signal: options.signal,
    refuseHost: options.refuseHost,
    // Refuse declared binary content before downloading it.
    inspect: (head) => {
      const essence = parseContentType(head.headers["content-type"]).essence;
      if (declaredKind(essence) === "binary") throw binaryRefusal(head.url, head.status, essence);
    },
  });
  const media = parseContentType(res.headers["content-type"]);
  const kind = declaredKind(media.essence) ?? (res.body.byteLength ? sniffKind(res.body) : "text");
  if (kind === "binary") throw binaryRefusal(res.url, res.status, media.essence);
  const decoded = decodeBody(res.body, media, kind);
  const sniffed = kind === "html" ? "text/html" : kind === "json" ? "application/json" : "text/plain";
  return {
    url: res.url,
    statusCode: res.status,
    headers: res.headers,
    contentType: res.headers["content-type"] ?? `${sniffed}; charset=${decoded.encoding}`,
    kind,
    text: decoded.text,
    encoding: decoded.encoding,
  };
}

async function inBrowser(url: URL, o: Resolved, options: FetchOptions, renderer: BrowserRenderer): Promise<Body> {
  if (options.allowRedirects === false || options.maxRedirects === 0) throw invalid("allowRedirects: a browser always follows redirects; fetch without browser rendering to see a 3xx");
  await checkHost(url, options.refuseHost, "URL");
  const call = new Cancellation({
    signal: options.signal,
    timeout: o.timeoutMs,
    timeoutError: () => new ServiceTimeoutError(`rendering ${url.href} did not finish within ${o.timeoutMs} ms`, { hint: "raise the timeout (--timeout MS)" }),
  });
  try {
    const page = await renderer(url.href, { timeoutMs: o.timeoutMs, signal: call.signal }).catch((e: unknown) => {
      throw call.timedOut ? abortError(call.signal) : e;
    });
    const final = new URL(page.url);
    if (final.href !== url.href && (final.protocol === "http:" || final.protocol === "https:")) await checkHost(final, options.refuseHost, "redirect to");
    const essence = parseContentType(page.contentType).essence;
    if (declaredKind(essence) !== "html") {
      throw new ServiceFetchError(`${page.url} is ${essence || "not a page"}, not HTML: browser rendering is for HTML pages`, { hint: "fetch it without --browser" });
    }
    const size = Buffer.byteLength(page.html);
    if (size > o.maxBytes) throw new ServiceFetchError(`${page.url} rendered to ${size} bytes: over the limit of ${o.maxBytes} bytes`, { hint: "raise the limit (--max-bytes N / maxBytes)" });
    return { url: page.url, statusCode: page.statusCode, headers: {}, contentType: `${essence}; charset=utf-8`, kind: "html", text: page.html, encoding: "utf-8" };
  } finally {
    call.dispose();
  }
}

/** Fetch one page and give it in `options.format` (default markdown). See the module comment for errors. */
export async function fetchPage(url: string, options: FetchOptions = {}): Promise<FetchResult> {
  const o = resolveOptions(options);
  const target = checkFetchUrl(url);
  const schema = options.schema !== undefined ? compileSchema(options.schema) : undefined;
  const renderer: BrowserRenderer | undefined =
    options.browser === true ? (u, r) => renderInBrowser(u, r) : typeof options.browser === "function" ? options.browser : undefined;
  const body = renderer ? await inBrowser(target, o, options, renderer) : await overHttp(target, o, options);
  return result(body, await convert(body, o.format, schema));
}
