/**
 * The MCP tools generated from the capability declarations (src/capabilities/): the tool's name, description,
 * annotations and input are the declaration's, the handler is its one handler over McpBrowser (its tabs' numbers,
 * its refs); this file only turns the outcome into a tool result (the page after it, as every page tool reports).
 */
import { type Capability, CAPABILITIES, outcomeText, shapeFor } from "../capabilities/index.js";
import { type Page, ServiceInvalidArgumentError } from "../index.js";
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
      const ctx = { svc, page: (n?: number) => b.page(n), resolve: (t: string, page?: Page) => b.resolve(t, page), tabNumber: (p: Page) => b.tabNumber(p), record: () => {} };
      const outcome = await c.run(ctx, input as never);
      // The tab list is the answer; one that changed is followed by the selected tab's page.
      if (outcome.kind === "tabs") return outcome.changed ? b.report(outcomeText(outcome)) : textResult(outcomeText(outcome));
      if (outcome.kind !== "report" || outcome.pageChanged) return b.report(outcomeText(outcome), typeof input.tab === "number" ? await b.page(input.tab) : undefined);
      if (!outcome.image) return textResult(outcome.text);
      return { content: [{ type: "image", data: outcome.image.data.toString("base64"), mimeType: outcome.image.mimeType }, { type: "text", text: outcome.text }] };
    }),
  );
}

/** Every declared capability that has an MCP door, under its capability set. */
export function registerCapabilities(reg: Registrar, b: McpBrowser): void {
  for (const c of CAPABILITIES) registerCapability(reg, b, c);
}
