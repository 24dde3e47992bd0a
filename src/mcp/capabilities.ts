/**
 * The MCP tools generated from the capability declarations (src/capabilities/): the tool's name, description,
 * annotations and input are the declaration's, the handler is its one handler; this file only turns the
 * outcome into a tool result (the page after it, as every page tool reports).
 */
import { type Capability, type CapabilityContext, CAPABILITIES, outcomeText, type Report, shapeFor } from "../capabilities/index.js";
import { type SearchBackend, ServiceInvalidArgumentError, ServiceSearchNotConfiguredError } from "../index.js";
import { type McpBrowser, type ToolResult, textResult } from "./browser.js";
import type { Registrar } from "./register.js";

export interface CapabilityOptions {
  /** The web search behind the `search` tool; without one it answers SEARCH_NOT_CONFIGURED. */
  search?: SearchBackend | undefined;
}

export function registerCapability(reg: Registrar, b: McpBrowser, c: Capability, options: CapabilityOptions = {}): void {
  const door = c.mcp;
  if (!door || !reg.caps.has(door.cap)) return;
  reg.server.registerTool(c.name, { title: door.annotations.title, description: c.description, inputSchema: shapeFor(c, "mcp"), annotations: door.annotations }, (input: Record<string, unknown>) =>
    b.run(async (): Promise<ToolResult> => {
      const problem = c.check?.(input as never);
      if (problem) throw new ServiceInvalidArgumentError(problem);
      // A capability that needs no browser (search, fetch) never starts one.
      const browser = c.needs !== "none";
      const svc = browser ? await b.service() : undefined;
      const tab = browser && typeof input.tab === "number" ? await b.page(input.tab) : undefined;
      const outcome = await c.run(contextOf(b, svc, options), input as never);
      if (outcome.kind !== "report" || outcome.pageChanged) return b.report(outcomeText(outcome), tab);
      return reportResult(outcome);
    }),
  );
}

function contextOf(b: McpBrowser, svc: Awaited<ReturnType<McpBrowser["service"]>> | undefined, options: CapabilityOptions): CapabilityContext {
  return {
    get svc() {
      if (!svc) throw new Error("this tool runs with no browser (needs: \"none\")");
      return svc;
    },
    page: (n) => b.page(n),
    resolve: (t, page) => b.resolve(t, page),
    searchBackend: async () => {
      if (!options.search) throw new ServiceSearchNotConfiguredError("no search backend is configured", { hint: "svc config set search.url URL (SearXNG), or SVC_SEARCH_URL" });
      return options.search;
    },
    browse: async (fn) => fn(await b.page(), () => {}),
  };
}

/** A report's text (under its heading), with its image first when it has one. */
function reportResult(r: Report): ToolResult {
  const text = r.heading ? `${r.heading}\n\n${r.text}` : r.text;
  if (!r.image) return textResult(text);
  return { content: [{ type: "image", data: r.image.data.toString("base64"), mimeType: r.image.mimeType }, { type: "text", text }] };
}

/** Every declared capability that has an MCP door, under its capability set. */
export function registerCapabilities(reg: Registrar, b: McpBrowser, options: CapabilityOptions = {}): void {
  for (const c of CAPABILITIES) registerCapability(reg, b, c, options);
}
