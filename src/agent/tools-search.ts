/**
 * The agent's `search` tool (execute option useSearch): a web search through the service's search
 * backend — SearXNG (searchUrl / SVC_SEARCH_URL) or the platform (env BROWSERBASE with a key) — whose
 * ranked list (title, URL, date, snippet) the model sees once in the next step; it opens a result with
 * goto. With no backend the tool is absent and the run says how to configure one.
 */
import { z } from "zod";
import { cleanText, SearchRequestSchema, type SearchBackend, type SearchResponse } from "../platform/search.js";
import { defineTool, oneLine, type AgentTool } from "./tools.js";

export const NO_SEARCH_BACKEND =
  "useSearch: no search backend is configured, so the agent has no search tool (set the Service option searchUrl or SVC_SEARCH_URL to a SearXNG instance, or use env BROWSERBASE with an API key for the platform's search)";

const MAX_SNIPPET = 200;

/** The list as the model reads it: `1. Title — URL (2024-03-01)` and the snippet on the next line. */
export function searchListing(r: SearchResponse): string {
  if (!r.results.length) return `No results for "${r.query}".`;
  const lines = [`Results for "${r.query}" (best first):`];
  r.results.forEach((x, i) => {
    lines.push(`${i + 1}. ${cleanText(x.title)} — ${x.url}${x.publishedDate ? ` (${x.publishedDate.slice(0, 10)})` : ""}`);
    const snippet = x.snippet ? cleanText(x.snippet) : "";
    if (snippet) lines.push(`   ${snippet.length > MAX_SNIPPET ? `${snippet.slice(0, MAX_SNIPPET - 1)}…` : snippet}`);
  });
  return lines.join("\n");
}

export function searchTool(backend: SearchBackend): AgentTool {
  return defineTool({
    name: "search",
    description: "search the web: a ranked list of results (title, URL, date, snippet) shown in the next step; open one with goto",
    input: z.object({
      query: SearchRequestSchema.shape.query.describe("what to search for, 1 to 200 characters"),
      numResults: SearchRequestSchema.shape.numResults.describe("how many results, 1 to 25 (default 10)"),
    }),
    describe: (a) => `search "${oneLine(a.query, 80)}"`,
    async run(env, a) {
      const r = await backend.search(a.query, a.numResults, env.signal);
      const listing = searchListing(r);
      const top = r.results[0];
      const summary = top ? `${r.results.length} result${r.results.length === 1 ? "" : "s"} for "${r.query}"; first: ${oneLine(cleanText(top.title), 60)} (${top.url})` : `no results for "${r.query}"`;
      // Nothing to redo on a cache replay: a search does not change the page.
      return { ok: true, summary: oneLine(summary, 200), detail: listing, pageText: listing, replay: [] };
    },
  });
}
