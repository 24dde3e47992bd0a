/**
 * `svc search "query" [-n 5]`: a ranked list from the configured backend — `search.url` (a SearXNG
 * instance; env SVC_SEARCH_URL), else with env BROWSERBASE the platform's search (its key and URL as the
 * other cloud commands resolve them). Input is checked before any request; with no backend it says how
 * to configure one (exit 9). `--json`: `{schemaVersion, ok, query, requestId, results}`.
 */
import type { SearchBackend, SearchResponse } from "../../src/index.js";
import { ServiceSearchNotConfiguredError } from "../../src/base.js";
import { registerCleanup } from "../core/cleanup.js";
import { type CloudGlobals, cloudTarget, resolveEnv } from "../core/cloud.js";
import { createOutput } from "../core/output.js";
import { openSettings } from "../core/settings.js";
import type { SEARCH_OPTIONS } from "../registry/model.js";
import type { FlagsOf } from "../registry/types.js";

export type SearchFlags = FlagsOf<typeof SEARCH_OPTIONS>;

const HOW_TO_CONFIGURE =
  "svc config set search.url https://searx.example.org (a SearXNG instance with its JSON API enabled), or export SVC_SEARCH_URL, or use the platform: --env BROWSERBASE with BROWSERBASE_API_KEY";

/** `-n 5` → 5; anything else is handed on as given, so the rule's message shows it. */
function count(raw: string): unknown {
  return /^\s*\d+\s*$/.test(raw) ? Number(raw) : raw;
}

async function backendFor(g: CloudGlobals): Promise<SearchBackend> {
  const settings = await openSettings();
  const url = settings.effective("search.url").value;
  const { searchBackendFor } = await import("../../src/index.js");
  if (typeof url === "string" && url) return searchBackendFor({ searchUrl: url })!;
  if ((await resolveEnv(g, settings)) === "BROWSERBASE") {
    const t = await cloudTarget(settings);
    return searchBackendFor({ platform: { apiKey: t.apiKey, baseUrl: t.platformUrl } })!;
  }
  throw new ServiceSearchNotConfiguredError("no search backend is configured", { hint: HOW_TO_CONFIGURE });
}

/** `1. Title` then `   URL · 2024-03-01`, for each result; control characters never reach the terminal. */
function rankedList(r: SearchResponse, clean: (s: string) => string): string[] {
  if (!r.results.length) return [`no results for "${clean(r.query)}"`];
  const width = String(r.results.length).length;
  return r.results.flatMap((x, i) => {
    const n = `${String(i + 1).padStart(width)}. `;
    return [`${n}${clean(x.title)}`, `${" ".repeat(n.length)}${clean(x.url)}${x.publishedDate ? ` · ${x.publishedDate.slice(0, 10)}` : ""}`];
  });
}

export async function searchCommand(g: CloudGlobals, query: string, flags: SearchFlags): Promise<void> {
  const [{ validateSearch }, { cleanText }] = await Promise.all([import("../../src/index.js"), import("../../src/internal.js")]);
  const request = validateSearch(query, count(flags.numResults));
  const backend = await backendFor(g);
  const out = createOutput(g);
  out.log(1, `searching with ${backend.name}`);
  const controller = new AbortController();
  const unregister = registerCleanup(() => controller.abort());
  try {
    const r = await backend.search(request.query, request.numResults, controller.signal);
    out.result({ query: r.query, requestId: r.requestId, results: r.results }, () => rankedList(r, cleanText));
  } finally {
    unregister();
  }
}
