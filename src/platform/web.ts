/**
 * The library's `platform` module (docs/wire-formats.md, "Library operations"): `search` and `fetch` over the
 * platform API (or `svc serve`). Input is checked first, so an invalid request never leaves the process; a 429 is
 * waited out as the server asks, a bounded number of times. `PlatformSearch` is the same search as a SearchBackend.
 */
import { ServiceApiError, ServiceInvalidArgumentError } from "../errors.js";
import { describeIssue } from "../util/zod.js";
import { z } from "zod";
import { withBackoff, type BackoffOptions } from "./backoff.js";
import { apiOrigin, errorOf } from "./http.js";
import { SearchResponseSchema, validateSearch, type SearchBackend, type SearchResponse } from "./search.js";
import { SearxngSearch } from "./searxng.js";
import type { CallOptions } from "../util/abort.js";

/** The platform's public API origin (the same default as the cloud sessions'). */
export const DEFAULT_PLATFORM_URL = "https://api.browserbase.com";

export interface PlatformRequestOptions extends CallOptions {
  /** Per request. Default 60 000 ms. */
  timeoutMs?: number;
  backoff?: BackoffOptions;
}

function checkKey(apiKey: unknown): string {
  if (typeof apiKey !== "string" || !apiKey.trim()) throw new ServiceInvalidArgumentError("apiKey: the platform API key is required", { hint: "pass the key (e.g. process.env.BROWSERBASE_API_KEY)" });
  return apiKey.trim();
}

/** POST `{origin}/v1{path}` with the key; 429s waited out; the answer checked against `schema`. */
async function post<S extends z.ZodType>(apiKey: string, baseUrl: string | undefined, path: string, body: unknown, schema: S, o: PlatformRequestOptions): Promise<z.output<S>> {
  const origin = apiOrigin(baseUrl ?? DEFAULT_PLATFORM_URL);
  const timeoutMs = o.timeoutMs ?? 60_000;
  const send = async () => {
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      return await globalThis.fetch(`${origin}/v1${path}`, {
        method: "POST",
        headers: { "x-bb-api-key": apiKey, "content-type": "application/json", "x-language": "typescript" },
        body: JSON.stringify(body),
        signal: o.signal ? AbortSignal.any([o.signal, timeout]) : timeout,
      });
    } catch (e) {
      if (o.signal?.aborted) throw e;
      const why = timeout.aborted ? `no answer within ${timeoutMs} ms` : ((e as { cause?: Error }).cause?.message ?? (e as Error).message);
      throw new ServiceApiError(0, `cannot reach ${origin}: ${why}`, { hint: "check the base URL and that the server is running" });
    }
  };
  const res = await withBackoff(`${path.slice(1)} at ${origin}`, send, o.backoff, o.signal);
  if (!res.ok) throw await errorOf(res, path);
  let json: unknown;
  try {
    json = await res.json();
  } catch {
    throw new ServiceApiError(res.status, `${path}: the answer is not JSON`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new ServiceApiError(res.status, `${path}: unexpected answer: ${describeIssue(parsed.error)}`);
  return parsed.data;
}

async function searchAt(apiKey: unknown, query: unknown, numResults: unknown, baseUrl: string | undefined, o: PlatformRequestOptions): Promise<SearchResponse> {
  const request = validateSearch(query, numResults);
  const key = checkKey(apiKey);
  if (baseUrl !== undefined) apiOrigin(baseUrl);
  return post(key, baseUrl, "/search", request, SearchResponseSchema, o);
}

/**
 * Web search on the platform (docs/wire-formats.md "Library operations"): results in relevance order, `requestId` / `publishedDate`
 * casing. Invalid input (empty query, over 200 characters, numResults outside 1..25) throws
 * ServiceInvalidArgumentError before any request; a lasting 429 throws ServiceRateLimitError.
 */
export function search(apiKey: string, query: string, numResults?: number, baseUrl?: string): Promise<SearchResponse> {
  return searchAt(apiKey, query, numResults, baseUrl, {});
}

export const FETCH_FORMATS = ["markdown", "raw", "json", "html", "text"] as const;
/** The public platform takes raw, markdown and json; `svc serve` also html and text. */
export type PlatformFetchFormat = (typeof FETCH_FORMATS)[number];

export interface PlatformFetchOptions extends PlatformRequestOptions {
  /** JSON Schema the fetched JSON must satisfy (format json only). */
  schema?: Record<string, unknown>;
  /** Follow redirects (default: the server's, true). */
  allowRedirects?: boolean;
  /** The platform API origin (default: the public platform). */
  baseUrl?: string;
}

const PlatformFetchResultSchema = z.looseObject({
  id: z.string(),
  content: z.string(),
  contentType: z.string(),
  encoding: z.string(),
  headers: z.record(z.string(), z.string()),
  statusCode: z.number().int(),
});
/** `{id, content, contentType, encoding, headers, statusCode}` (svc serve adds the final `url` and the page's `title`). */
export type PlatformFetchResult = z.output<typeof PlatformFetchResultSchema> & { url?: string; title?: string };

/** Fetch a page through the platform's `POST /v1/fetch`, as markdown (default), raw text, JSON, html or text. */
async function fetchContent(apiKey: string, url: string, format: PlatformFetchFormat = "markdown", options: PlatformFetchOptions = {}): Promise<PlatformFetchResult> {
  let target: URL | undefined;
  try {
    target = new URL(url);
  } catch {
    target = undefined;
  }
  if (!target || (target.protocol !== "http:" && target.protocol !== "https:")) throw new ServiceInvalidArgumentError(`url: "${url}" is not an absolute http(s) URL`);
  if (!(FETCH_FORMATS as readonly string[]).includes(format)) throw new ServiceInvalidArgumentError(`format: one of ${FETCH_FORMATS.join(", ")} (got ${JSON.stringify(format)})`);
  if (options.schema !== undefined) {
    if (format !== "json") throw new ServiceInvalidArgumentError(`schema: only with format "json" (got format "${format}")`);
    if (!options.schema || typeof options.schema !== "object" || Array.isArray(options.schema)) throw new ServiceInvalidArgumentError("schema: expected a JSON Schema object");
  }
  const key = checkKey(apiKey);
  if (options.baseUrl !== undefined) apiOrigin(options.baseUrl);
  const body = { url: target.href, format, ...(options.schema ? { schema: options.schema } : {}), ...(options.allowRedirects !== undefined ? { allowRedirects: options.allowRedirects } : {}) };
  return (await post(key, options.baseUrl, "/fetch", body, PlatformFetchResultSchema, { timeoutMs: options.timeoutMs ?? 90_000, ...(options.backoff ? { backoff: options.backoff } : {}), ...(options.signal ? { signal: options.signal } : {}) })) as PlatformFetchResult;
}

/** The library's `platform` namespace: `platform.search(...)`, `platform.fetch(...)`. */
export const platform = Object.freeze({ search, fetch: fetchContent });

/** Search through the platform API as a SearchBackend. */
export class PlatformSearch implements SearchBackend {
  readonly name = "platform";
  /** The platform API origin. */
  readonly baseUrl: string;
  private readonly apiKey: string;

  constructor(apiKey: string, baseUrl: string = DEFAULT_PLATFORM_URL, private readonly options: Omit<PlatformRequestOptions, "signal"> = {}) {
    this.apiKey = checkKey(apiKey);
    this.baseUrl = apiOrigin(baseUrl);
  }

  search(query: string, numResults: number, signal?: AbortSignal): Promise<SearchResponse> {
    return searchAt(this.apiKey, query, numResults, this.baseUrl, { ...this.options, ...(signal ? { signal } : {}) });
  }
}

export interface SearchBackendConfig {
  /** A SearXNG instance (option searchUrl, SVC_SEARCH_URL, config search.url). */
  searchUrl?: string | undefined;
  /** The platform (cloud mode with a key). */
  platform?: { apiKey: string; baseUrl?: string | undefined } | undefined;
}

/** SearXNG when a search URL is given, else the platform when it is (with a key), else none. */
export function searchBackendFor(config: SearchBackendConfig): SearchBackend | undefined {
  const url = config.searchUrl?.trim();
  if (url) return new SearxngSearch(url);
  if (config.platform?.apiKey) return new PlatformSearch(config.platform.apiKey, config.platform.baseUrl ?? DEFAULT_PLATFORM_URL);
  return undefined;
}
