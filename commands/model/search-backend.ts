/**
 * The CLI's web search backend, for the `search` capability (src/capabilities/web.ts): `search.url` (a SearXNG
 * instance; env SVC_SEARCH_URL), else with env BROWSERBASE the platform's search (its key and URL as the other cloud
 * commands resolve them); with none, SEARCH_NOT_CONFIGURED saying how to configure one (exit 9).
 */
import type { SearchBackend } from "../../src/index.js";
import { ServiceSearchNotConfiguredError } from "../../src/base.js";
import { type CloudGlobals, cloudTarget, resolveEnv } from "../core/cloud.js";
import type { Output } from "../core/output.js";
import { openSettings } from "../core/settings.js";

const HOW_TO_CONFIGURE =
  "svc config set search.url https://searx.example.org (a SearXNG instance with its JSON API enabled), or export SVC_SEARCH_URL, or use the platform: --env BROWSERBASE with BROWSERBASE_API_KEY";

export async function searchBackend(g: CloudGlobals, out: Output): Promise<SearchBackend> {
  const backend = await backendFor(g);
  out.log(1, `searching with ${backend.name}`);
  return backend;
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
