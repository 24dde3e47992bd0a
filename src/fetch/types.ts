/**
 * The shapes of the fetch engine: what `fetchPage` takes and returns (the platform API's fetch response,
 * docs/wire-formats.md "Platform API" `POST /fetch`, plus the final `url` and the page `title`), and the browser hook.
 */
import type { Abortable, CallOptions } from "../util/abort.js";

export { DEFAULT_FETCH_MAX_BYTES, DEFAULT_FETCH_MAX_REDIRECTS, DEFAULT_FETCH_TIMEOUT_MS, FETCH_FORMATS, type FetchFormat } from "../util/fetch-limits.js";
import type { FetchFormat } from "../util/fetch-limits.js";

/** What a browser gives back for one URL: the rendered document, serialized. */
export interface RenderedPage {
  /** The URL the page ended on (after redirects and client-side navigation). */
  url: string;
  /** `<!DOCTYPE …>` + `document.documentElement.outerHTML` after scripts ran. */
  html: string;
  /** HTTP status of the main document (200 when the browser did not report one). */
  statusCode: number;
  /** `document.contentType` (text/html for pages). */
  contentType: string;
  title?: string;
}

export interface RenderOptions extends Abortable {
  /** Navigation and rendering budget. */
  timeoutMs: number;
}

/** Renders a URL in a real browser; see `pageRenderer` (a page you hold) and `renderInBrowser` (one-shot Chrome). */
export type BrowserRenderer = (url: string, options: RenderOptions) => Promise<RenderedPage>;

export interface FetchOptions extends CallOptions {
  /** Default "markdown". */
  format?: FetchFormat;
  /** The whole fetch (every redirect hop and the body; with a browser: launch and render). Default 30000. */
  timeoutMs?: number;
  /** Largest body accepted, in bytes (decompressed). Default 10 MiB. Larger: ServiceFetchError, connection aborted. */
  maxBytes?: number;
  /** Redirects followed before giving up with ServiceFetchError. Default 10. 0: a 3xx is returned as it is. */
  maxRedirects?: number;
  /** false: a 3xx is returned as it is (statusCode, headers.location). Default true. */
  allowRedirects?: boolean;
  /** Render in Chrome first: true = a one-shot headless Chrome launched and closed for this call; or a renderer of yours. */
  browser?: boolean | BrowserRenderer;
  /** format "json" only: a JSON Schema the JSON must satisfy (converted by zod's z.fromJSONSchema). */
  schema?: object;
  userAgent?: string;
  /**
   * A policy hook (the server refuses loopback/private targets with it): called with the host and the
   * addresses it resolves to, for the first URL and every redirect target; a string refuses the URL
   * (ServiceInvalidArgumentError with that reason). With a browser only the first and the final URL are checked.
   */
  refuseHost?: (host: string, addresses: string[], port?: number) => string | undefined;
}

export interface FetchResult {
  /** A fresh uuid. */
  id: string;
  /** The final URL, after redirects. */
  url: string;
  content: string;
  /** The response's Content-Type as sent (or the sniffed type when it sent none). */
  contentType: string;
  /** The charset the body was decoded with (WHATWG name: utf-8, windows-1252 …). */
  encoding: string;
  /** Response headers, lower-case names (empty when rendered in a browser). */
  headers: Record<string, string>;
  statusCode: number;
  /** The page title (HTML only). */
  title?: string;
}
