/**
 * The MCP tools generated from the capability declarations (src/capabilities/): the tool's name, description,
 * annotations and input are the declaration's, the handler is its one handler; this file only turns the
 * outcome into a tool result (the page after it, as every page tool reports).
 */
import { type Capability, CAPABILITIES, type CapabilityContext, outcomeText, shapeFor } from "../capabilities/index.js";
import { type Service, ServiceInvalidArgumentError } from "../index.js";
import { type McpBrowser, type ToolResult, textResult } from "./browser.js";
import type { Registrar } from "./register.js";

export function registerCapability(reg: Registrar, b: McpBrowser, c: Capability): void {
  const door = c.mcp;
  if (!door || !reg.caps.has(door.cap)) return;
  reg.server.registerTool(c.name, { title: door.annotations.title, description: c.description, inputSchema: shapeFor(c, "mcp"), annotations: door.annotations }, (input: Record<string, unknown>) =>
    b.run(async (): Promise<ToolResult> => {
      const problem = c.check?.(input as never);
      if (problem) throw new ServiceInvalidArgumentError(problem);
      const svc = await b.service();
      const tab = typeof input.tab === "number" ? await b.page(input.tab) : undefined;
      const outcome = await c.run(mcpContext(b, svc), input as never);
      if (outcome.kind !== "report" || outcome.pageChanged) return b.report(outcomeText(outcome), tab);
      if (!outcome.image) return textResult(outcome.text);
      return { content: [{ type: "image", data: outcome.image.data.toString("base64"), mimeType: outcome.image.mimeType }, { type: "text", text: outcome.text }] };
    }),
  );
}

/** The handler's view of the client's browser: its tab numbers, its refs, its recorders. */
function mcpContext(b: McpBrowser, svc: Service): CapabilityContext {
  const tabOf = (target: string) => {
    const page = svc.context.pages().find((p) => p.targetId === target);
    return page ? b.tabNumber(page) : undefined;
  };
  return {
    svc,
    door: "mcp",
    columns: (rows) => rows.map((r) => r.join(" ").trimEnd()),
    page: (n) => b.page(n),
    resolve: (t, page) => b.resolve(t, page),
    pageLog: async (kind) => {
      const log = b.pageLog;
      return { entries: log.entries(kind), tabOf, clear: () => log.clear(kind) };
    },
    network: async () => {
      const log = b.network;
      return {
        entries: [...log.entries()],
        entry: (id) => {
          const e = log.find(id);
          if (!e) throw new ServiceInvalidArgumentError(`id: no request ${id} (network_requests lists them; the newest 1,000 are kept)`);
          return e;
        },
        body: (id) => log.body(id),
        tabOf,
        clear: () => log.clear(),
      };
    },
  };
}

/** Every declared capability that has an MCP door, under its capability set. */
export function registerCapabilities(reg: Registrar, b: McpBrowser): void {
  for (const c of CAPABILITIES) registerCapability(reg, b, c);
}
