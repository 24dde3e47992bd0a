/**
 * The tools that ask a model or the web: act (an instruction), extract (with an optional JSON Schema),
 * observe, agent, search and fetch. The page-changing ones answer with the page after them.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { type SearchBackend, ServiceSearchNotConfiguredError, fetchPage, validateSearch } from "../index.js";
import { fromJsonSchema } from "../util/json-schema.js";
import { type McpBrowser, textResult } from "./browser.js";

export interface ModelToolsOptions {
  /** The web search behind the `search` tool; without one it answers SEARCH_NOT_CONFIGURED. */
  search?: SearchBackend | undefined;
}

export function registerModelTools(server: McpServer, b: McpBrowser, options: ModelToolsOptions): void {
  server.registerTool(
    "act",
    { description: "Do one thing on the page, said in words", inputSchema: { instruction: z.string().min(1), variables: z.record(z.string(), z.string()).optional() } },
    ({ instruction, variables }) =>
      b.run(async () => {
        const svc = await b.service();
        const r = await svc.act(instruction, variables ? { variables } : {});
        return b.report(`${r.success ? "" : "failed: "}${r.message}`);
      }),
  );

  server.registerTool(
    "extract",
    {
      description: "Read data from the page: an instruction, optionally a JSON Schema for the result",
      inputSchema: { instruction: z.string().min(1), schema: z.record(z.string(), z.unknown()).optional(), selector: z.string().min(1).optional() },
    },
    ({ instruction, schema, selector }) =>
      b.run(async () => {
        const svc = await b.service();
        const scope = selector ? { selector } : {};
        const result = schema ? await svc.extract(instruction, fromJsonSchema(schema), scope) : await svc.extract(instruction, scope);
        return textResult(JSON.stringify(result));
      }),
  );

  server.registerTool(
    "observe",
    { description: "List actions possible on the page (for an instruction)", inputSchema: { instruction: z.string().optional() } },
    ({ instruction }) =>
      b.run(async () => {
        const svc = await b.service();
        const actions = await svc.observe(instruction);
        return textResult(actions.length ? actions.map((a) => `${a.selector} ${a.method} ${a.description}${a.arguments.length ? ` ${JSON.stringify(a.arguments)}` : ""}`).join("\n") : "nothing found");
      }),
  );

  server.registerTool(
    "agent",
    { description: "Run a multi-step task in the browser", inputSchema: { instruction: z.string().min(1), maxSteps: z.number().int().min(1).max(1000).optional() } },
    ({ instruction, maxSteps }) =>
      b.run(async () => {
        const svc = await b.service();
        const r = await svc.agent().execute({ instruction, ...(maxSteps !== undefined ? { maxSteps } : {}) });
        return b.report(`${r.success ? "done" : "not done"}: ${r.message}`);
      }),
  );

  server.registerTool(
    "search",
    { description: "Search the web", inputSchema: { query: z.string().min(1), numResults: z.number().int().min(1).max(25).optional() } },
    ({ query, numResults }) =>
      b.run(async () => {
        const request = validateSearch(query, numResults);
        if (!options.search) throw new ServiceSearchNotConfiguredError("no search backend is configured", { hint: "svc config set search.url URL (SearXNG), or SVC_SEARCH_URL" });
        const r = await options.search.search(request.query, request.numResults);
        return textResult(r.results.length ? r.results.map((x, i) => `${i + 1}. ${x.title}\n   ${x.url}`).join("\n") : `no results for "${r.query}"`);
      }),
  );

  server.registerTool(
    "fetch",
    { description: "Fetch a URL as markdown (no browser)", inputSchema: { url: z.string().min(1), format: z.enum(["markdown", "text", "html"]).optional() } },
    ({ url, format }) =>
      b.run(async () => {
        const r = await fetchPage(url, { format: format ?? "markdown" });
        return textResult(`${r.statusCode} ${r.url}\n\n${r.content}`);
      }),
  );
}
