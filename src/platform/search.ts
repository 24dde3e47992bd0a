/**
 * Web search, whatever answers it: the request rules and records (docs/wire-formats.md, "Library operations",
 * "Records") and the interface the backends implement, SearXNG (searxng.ts) and the platform's `POST /v1/search`
 * (web.ts). One schema validates the library's input and the server route's body.
 */
import { z } from "zod";
import { ServiceInvalidArgumentError } from "../errors.js";
import { SEARCH_NUM_RESULTS, SEARCH_QUERY } from "../util/search-rules.js";
import { describeIssue } from "../util/zod.js";

export { DEFAULT_NUM_RESULTS, MAX_NUM_RESULTS, MAX_QUERY_LENGTH } from "../util/search-rules.js";

/** `{query, numResults}`: the query trimmed, numResults defaulted. Error messages name the rule; the issue path names the field. */
export const SearchRequestSchema = z.object({ query: SEARCH_QUERY, numResults: SEARCH_NUM_RESULTS });
export type SearchRequest = z.output<typeof SearchRequestSchema>;

/** One result (docs/wire-formats.md "Records"): `id` stable for a URL, `url` canonical; the rest string or null. */
export interface SearchResult {
  id: string;
  title: string;
  url: string;
  author: string | null;
  favicon: string | null;
  image: string | null;
  /** ISO 8601, or null when the source gives no date. */
  publishedDate: string | null;
  /** A short excerpt of the page, when the backend gives one (SearXNG does); beyond docs/wire-formats.md's record. */
  snippet?: string;
}

/** Results in relevance order, best first. */
export interface SearchResponse {
  query: string;
  requestId: string;
  results: SearchResult[];
}

export interface SearchBackend {
  /** What answers (`searxng`, `platform`), for logs and messages. */
  readonly name: string;
  search(query: string, numResults: number, signal?: AbortSignal): Promise<SearchResponse>;
}

/** The request, checked before anything is sent; throws ServiceInvalidArgumentError naming the field and the rule. */
export function validateSearch(query: unknown, numResults?: unknown): SearchRequest {
  const parsed = SearchRequestSchema.safeParse({ query, numResults });
  if (!parsed.success) throw new ServiceInvalidArgumentError(describeIssue(parsed.error));
  return parsed.data;
}

const nullableText = z
  .string()
  .nullish()
  .transform((v) => v ?? null);

/** A search answer as it travels (the platform's and `svc serve`'s `POST /v1/search`); missing nullables become null. */
export const SearchResponseSchema = z.object({
  query: z.string(),
  requestId: z.string(),
  results: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      url: z.string(),
      author: nullableText,
      favicon: nullableText,
      image: nullableText,
      publishedDate: nullableText,
      snippet: z.string().optional(),
    }),
  ),
});

/** Text from the web for a terminal or a prompt: no control characters, whitespace collapsed. */
export function cleanText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").replace(/\s+/g, " ").trim();
}

/** `2024-03-01T12:00:00Z` for any date a source gives (a date with no zone is taken as UTC); null when there is none. */
export function isoDate(value: unknown): string | null {
  if (typeof value === "number" && Number.isFinite(value)) {
    const d = new Date(value < 1e12 ? value * 1000 : value);
    return Number.isNaN(d.getTime()) ? null : d.toISOString();
  }
  if (typeof value !== "string" || !value.trim()) return null;
  let s = value.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(s)) s += "T00:00:00Z";
  else if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(s)) s = `${s.replace(" ", "T")}Z`;
  const t = Date.parse(s);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}
