/**
 * The tools that ask a model or the web: act (an instruction), extract (with an optional JSON Schema),
 * observe, agent, search and fetch. The page-changing ones answer with the page after them.
 */
import { type SearchBackend, ServiceSearchNotConfiguredError, fetchPage, validateSearch } from "../index.js";
import { fromJsonSchema } from "../util/json-schema.js";
import { type McpBrowser, textResult } from "./browser.js";
import { type Registrar, registerDeclared } from "./register.js";

export interface ModelToolsOptions {
  /** The web search behind the `search` tool; without one it answers SEARCH_NOT_CONFIGURED. */
  search?: SearchBackend | undefined;
}

export function registerModelTools(reg: Registrar, b: McpBrowser, options: ModelToolsOptions): void {
  registerDeclared(
    reg,
    "act",
    ({ instruction, variables }) =>
      b.run(async () => {
        const svc = await b.service();
        const r = await svc.act(instruction, variables ? { variables } : {});
        return b.report(`${r.success ? "" : "failed: "}${r.message}`);
      }),
  );

  registerDeclared(
    reg,
    "extract",
    ({ instruction, schema, selector }) =>
      b.run(async () => {
        const svc = await b.service();
        const scope = selector ? { selector } : {};
        const result = schema ? await svc.extract(instruction, fromJsonSchema(schema), scope) : await svc.extract(instruction, scope);
        return textResult(JSON.stringify(result));
      }),
  );

  registerDeclared(
    reg,
    "observe",
    ({ instruction }) =>
      b.run(async () => {
        const svc = await b.service();
        const actions = await svc.observe(instruction);
        return textResult(actions.length ? actions.map((a) => `${a.selector} ${a.method} ${a.description}${a.arguments.length ? ` ${JSON.stringify(a.arguments)}` : ""}`).join("\n") : "nothing found");
      }),
  );

  registerDeclared(
    reg,
    "agent",
    ({ instruction, maxSteps }) =>
      b.run(async () => {
        const svc = await b.service();
        const r = await svc.agent().execute({ instruction, ...(maxSteps !== undefined ? { maxSteps } : {}) });
        return b.report(`${r.success ? "done" : "not done"}: ${r.message}`);
      }),
  );

  registerDeclared(
    reg,
    "search",
    ({ query, numResults }) =>
      b.run(async () => {
        const request = validateSearch(query, numResults);
        if (!options.search) throw new ServiceSearchNotConfiguredError("no search backend is configured", { hint: "svc config set search.url URL (SearXNG), or SVC_SEARCH_URL" });
        const r = await options.search.search(request.query, request.numResults);
        return textResult(r.results.length ? r.results.map((x, i) => `${i + 1}. ${x.title}\n   ${x.url}`).join("\n") : `no results for "${r.query}"`);
      }),
  );

  registerDeclared(
    reg,
    "fetch",
    ({ url, format }) =>
      b.run(async () => {
        const r = await fetchPage(url, { format: format ?? "markdown" });
        return textResult(`${r.statusCode} ${r.url}\n\n${r.content}`);
      }),
  );
}
