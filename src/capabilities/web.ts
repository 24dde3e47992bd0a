/**
 * The web, with no session's page: a search through the door's backend, and one URL fetched by plain HTTP (or
 * rendered in a browser of the call's own on the CLI). Both run with no browser (`needs: "none"`); the fetch's URL
 * goes through the "http" URL policy before anything is sent, on every door.
 */
import { z } from "zod";
import { ServiceFetchError } from "../errors.js";
import { FETCH_FORMATS, type FetchFormat } from "../util/fetch-limits.js";
import { SEARCH_NUM_RESULTS, SEARCH_QUERY } from "../util/search-rules.js";
import { type Capability, capability, readOnly } from "./declare.js";

export const search = capability({
  name: "search",
  description: "Search the web",
  needs: "none",
  input: { query: SEARCH_QUERY.describe("the search query"), numResults: SEARCH_NUM_RESULTS.describe("how many results, 1–25 (default 10)") },
  mcp: { cap: "web", annotations: readOnly("Web search") },
  cli: {
    verb: "search",
    args: "<query>",
    flags: { numResults: "-n, --num-results <n>" },
    namesProperties: true,
    description: "web search through the configured backend (search.url: a SearXNG instance; or the platform with --env BROWSERBASE): a ranked list",
    examples: ['svc search "chromium release notes" -n 5'],
    hosted: false,
  },
  run: async (ctx, i) => {
    const backend = await ctx.searchBackend();
    const { cleanText } = await import("../internal.js");
    const r = await backend.search(i.query, i.numResults, ctx.signal);
    return { kind: "report", text: rankedList(r, cleanText).join("\n"), data: { query: r.query, requestId: r.requestId, results: r.results } };
  },
});

/** `1. Title` then `   URL · 2024-03-01`, for each result; control characters never reach a terminal or a model. */
function rankedList(r: { query: string; results: ReadonlyArray<{ title: string; url: string; publishedDate: string | null }> }, clean: (s: string) => string): string[] {
  if (!r.results.length) return [`no results for "${clean(r.query)}"`];
  const width = String(r.results.length).length;
  return r.results.flatMap((x, i) => {
    const n = `${String(i + 1).padStart(width)}. `;
    return [`${n}${clean(x.title)}`, `${" ".repeat(n.length)}${clean(x.url)}${x.publishedDate ? ` · ${x.publishedDate.slice(0, 10)}` : ""}`];
  });
}

const positive = (what: string, max: number) => {
  const rule = (iss: { input?: unknown }) => `expected a positive whole number up to ${max} (got ${JSON.stringify(iss.input)})`;
  return z.number({ error: rule }).int({ error: rule }).min(1, { error: rule }).max(max, { error: rule }).optional().describe(what);
};

/** The longest a fetch may be given, and the largest body it may be allowed (docs/cli.md). */
export const FETCH_MAX_TIMEOUT_MS = 600_000;
export const FETCH_MAX_BYTES_LIMIT = 100 * 1024 * 1024;

export const fetch = capability({
  name: "fetch",
  description: "Fetch a URL as markdown, text, html, raw or json (no browser)",
  needs: "none",
  input: {
    url: z.string().min(1).max(8192).describe("the http(s) URL to fetch"),
    format: z
      .enum(FETCH_FORMATS as [FetchFormat, ...FetchFormat[]], { error: (iss) => `one of ${FETCH_FORMATS.join(", ")} (got ${JSON.stringify(iss.input)})` })
      .default("markdown")
      .describe("markdown (readable content, default), text, html, raw (the bytes as text) or json"),
    browser: z.boolean().optional().describe("render the page in Chrome first (pages that build themselves with JavaScript)"),
    timeout: positive("give up after this many milliseconds (default 30000)", FETCH_MAX_TIMEOUT_MS),
    maxBytes: positive("refuse bodies larger than this many bytes (default 10485760)", FETCH_MAX_BYTES_LIMIT),
    redirects: z.boolean().default(true).describe("follow redirects (default); false (--no-redirects): a 3xx is the answer, its location in the headers"),
    output: z.string().min(1).max(4096).optional().describe("write the content to this file instead of printing it"),
  },
  only: {
    browser: { door: "cli", why: "the MCP server's browser is the client's working tab, which a fetch does not move (navigate and snapshot read it)" },
    output: { door: "cli", why: "a file on the CLI's machine; the MCP tool answers with the content" },
  },
  mcp: { cap: "web", annotations: readOnly("Fetch a URL") },
  cli: {
    verb: "fetch",
    args: "<url>",
    flags: { output: "-o, --output <file>" },
    urls: { url: "typed" },
    output: { property: "output" },
    sessionWith: "browser",
    description: "fetch a page without any key: plain HTTP (or Chrome with --browser), printed as markdown, text, html, raw or json",
    examples: ["svc fetch https://example.com", "svc fetch https://example.com/data.json --format json"],
    hosted: false,
  },
  check: (i) => (i.browser && !i.redirects ? "--no-redirects cannot apply with --browser: Chrome follows redirects itself" : undefined),
  run: async (ctx, i) => {
    // Everything is checked before a request is sent or a browser started.
    const [{ fetchPage, pageRenderer }, { checkFetchUrl }] = await Promise.all([import("../index.js"), import("../internal.js")]);
    const url = checkFetchUrl(i.url).href;
    const base = { format: i.format, allowRedirects: i.redirects, ...(i.timeout !== undefined ? { timeoutMs: i.timeout } : {}), ...(i.maxBytes !== undefined ? { maxBytes: i.maxBytes } : {}), ...(ctx.signal ? { signal: ctx.signal } : {}) };
    const r = i.browser
      ? await ctx.browse(async (page, note) => {
          const got = await fetchPage(url, { ...base, browser: pageRenderer(page) });
          note({ method: "navigate", parameters: { url }, result: { url: got.url, status: got.statusCode } });
          return got;
        })
      : await fetchPage(url, base);
    return {
      kind: "report",
      // The content as it is: one trailing newline at most, as a file would end.
      text: r.content.replace(/\n$/, ""),
      heading: `${r.statusCode} ${r.url}`,
      data: { ...r },
      file: { bytes: Buffer.from(r.content, "utf8"), replaces: "content" },
      ...withFailure(failed(r, i.redirects)),
    };
  },
});

function withFailure(failure: Error | undefined): { failure?: Error } {
  return failure ? { failure } : {};
}

function absoluteLocation(location: string | undefined, base: string): string | undefined {
  if (!location) return undefined;
  try {
    return new URL(location, base).href;
  } catch {
    return location;
  }
}

/** A final status outside 2xx, as one line naming it (a redirect names where it points). */
function failed(r: { statusCode: number; url: string; headers: Record<string, string> }, redirects: boolean): Error | undefined {
  const s = r.statusCode;
  if (s >= 200 && s < 300) return undefined;
  const location = absoluteLocation(r.headers["location"], r.url);
  return s >= 300 && s < 400 && location
    ? new ServiceFetchError(`${r.url} answered HTTP ${s}, a redirect to ${location}${redirects ? "" : " (not followed: --no-redirects)"}`, { hint: "add --json for the response itself" })
    : new ServiceFetchError(`${r.url} answered HTTP ${s}`, { hint: "add --json for the response anyway (its content and statusCode)" });
}

export const WEB_CAPABILITIES: readonly Capability[] = [search, fetch] as readonly Capability[];
