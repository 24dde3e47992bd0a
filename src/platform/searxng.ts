/**
 * Search through a SearXNG instance's JSON API, for local use and `svc serve`. Results keep SearXNG's order,
 * de-duplicated by canonical URL, further pages asked for (at most `maxPages`) when the first has too few. An
 * instance refusing the json format, or a URL that is not SearXNG, is a configuration error that says so, never an
 * empty list.
 */
import { createHash, randomUUID } from "node:crypto";
import { ServiceAbortedError, ServiceApiError, ServiceInvalidArgumentError, ServiceSearchNotConfiguredError } from "../errors.js";
import { withBackoff, type BackoffOptions } from "./backoff.js";
import { cleanText, isoDate, validateSearch, type SearchBackend, type SearchResponse, type SearchResult } from "./search.js";

export interface SearxngOptions {
  /** Per request. Default 15 000 ms. */
  timeoutMs?: number;
  /** Pages asked for at most, to fill numResults. Default 3. */
  maxPages?: number;
  /** Extra request headers (an instance behind a proxy that wants a token). */
  headers?: Record<string, string>;
  backoff?: BackoffOptions;
}

const ENABLE_JSON = "enable the json format in the instance's settings.yml: search: formats: [html, json]";
const MAX_SNIPPET = 400;

/** The page a result points at, fragment dropped (`https://Example.org/a#x` → `https://example.org/a`); undefined unless http(s). */
export function canonicalUrl(raw: unknown, base?: string): string | undefined {
  if (typeof raw !== "string" || !raw.trim()) return undefined;
  try {
    const u = new URL(raw.trim(), base);
    if (u.protocol !== "http:" && u.protocol !== "https:") return undefined;
    u.hash = "";
    return u.href;
  } catch {
    return undefined;
  }
}

/** A result's stable id: the same canonical URL always gives the same id. */
export function resultId(canonical: string): string {
  return createHash("sha256").update(canonical).digest("hex").slice(0, 32);
}

function text(v: unknown): string | null {
  if (typeof v === "string") return cleanText(v) || null;
  if (Array.isArray(v)) return cleanText(v.filter((x) => typeof x === "string").join(", ")) || null;
  return null;
}

/** One SearXNG result as a SearchResult; undefined when it has no usable URL. */
export function fromSearxng(raw: unknown): SearchResult | undefined {
  if (!raw || typeof raw !== "object") return undefined;
  const r = raw as Record<string, unknown>;
  const url = canonicalUrl(r.url);
  if (!url) return undefined;
  const snippet = text(r.content);
  return {
    id: resultId(url),
    title: text(r.title) ?? url,
    url,
    author: text(r.author),
    favicon: `${new URL(url).origin}/favicon.ico`,
    image: canonicalUrl(r.img_src, url) ?? canonicalUrl(r.thumbnail_src, url) ?? canonicalUrl(r.thumbnail, url) ?? null,
    publishedDate: isoDate(r.publishedDate ?? r.pubdate),
    ...(snippet ? { snippet: snippet.length > MAX_SNIPPET ? `${snippet.slice(0, MAX_SNIPPET - 1)}…` : snippet } : {}),
  };
}

export class SearxngSearch implements SearchBackend {
  readonly name = "searxng";
  /** The instance's search endpoint (`…/search`), without a query. */
  readonly endpoint: string;
  private readonly o: SearxngOptions;

  constructor(url: string, options: SearxngOptions = {}) {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new ServiceInvalidArgumentError(`search URL: "${url}" is not a valid URL`, { hint: "give the SearXNG instance's address, e.g. https://searx.example.org" });
    }
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new ServiceInvalidArgumentError(`search URL: "${url}" must be http(s)`);
    u.hash = "";
    // The instance's root (`https://host/searx/`) or its endpoint (`…/search`) both work.
    u.pathname = `${u.pathname.replace(/\/+$/, "").replace(/\/search$/, "")}/search`;
    this.endpoint = u.href;
    this.o = options;
  }

  async search(query: string, numResults: number, signal?: AbortSignal): Promise<SearchResponse> {
    const request = validateSearch(query, numResults);
    const results: SearchResult[] = [];
    const seen = new Set<string>();
    const maxPages = Math.max(1, this.o.maxPages ?? 3);
    for (let page = 1; page <= maxPages && results.length < request.numResults; page++) {
      const found = await this.page(request.query, page, signal);
      let added = 0;
      for (const raw of found) {
        const r = fromSearxng(raw);
        if (!r || seen.has(r.url)) continue;
        seen.add(r.url);
        results.push(r);
        added++;
      }
      if (added === 0) break;
    }
    return { query: request.query, requestId: randomUUID(), results: results.slice(0, request.numResults) };
  }

  /** The raw results of one page. */
  private async page(query: string, pageno: number, signal: AbortSignal | undefined): Promise<unknown[]> {
    const url = new URL(this.endpoint);
    url.searchParams.set("q", query);
    url.searchParams.set("format", "json");
    if (pageno > 1) url.searchParams.set("pageno", String(pageno));
    const where = url.origin + url.pathname;
    const timeoutMs = this.o.timeoutMs ?? 15_000;
    const send = async () => {
      const timeout = AbortSignal.timeout(timeoutMs);
      try {
        return await fetch(url, {
          headers: { accept: "application/json", "user-agent": "svc (search)", ...this.o.headers },
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
      } catch (e) {
        if (signal?.aborted) throw new ServiceAbortedError("search aborted");
        const why = timeout.aborted ? `no answer within ${timeoutMs} ms` : ((e as { cause?: Error }).cause?.message ?? (e as Error).message);
        throw new ServiceApiError(0, `cannot reach the search backend at ${where}: ${why}`, { hint: "check search.url / SVC_SEARCH_URL and that the SearXNG instance is running" });
      }
    };
    const res = await withBackoff(`search at ${where}`, send, this.o.backoff, signal);
    const body = await res.text().catch(() => "");
    if (res.status === 403) throw new ServiceSearchNotConfiguredError(`the SearXNG instance at ${where} refuses JSON answers (HTTP 403)`, { hint: ENABLE_JSON });
    if (!res.ok) throw new ServiceApiError(res.status, `search at ${where} failed (HTTP ${res.status}): ${cleanText(body).slice(0, 200) || res.statusText}`);
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      const type = res.headers.get("content-type")?.split(";")[0] ?? "no content type";
      throw new ServiceSearchNotConfiguredError(`${where} answered ${type}, not SearXNG's JSON`, { hint: `search.url must be a SearXNG instance; ${ENABLE_JSON}` });
    }
    const results = (json as { results?: unknown } | null)?.results;
    if (!Array.isArray(results)) throw new ServiceSearchNotConfiguredError(`${where} answered JSON without a results list: is it a SearXNG instance?`, { hint: ENABLE_JSON });
    return results;
  }
}
