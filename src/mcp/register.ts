/**
 * Registers a tool under its declaration (tools.ts): title, description, annotations and input schema all come
 * from there; the caller gives only the handler.
 */
import type { McpServer, ToolCallback } from "@modelcontextprotocol/sdk/server/mcp.js";
import { TOOLS, type ToolName } from "./tools.js";

export function registerDeclared<N extends ToolName>(server: McpServer, name: N, handler: ToolCallback<(typeof TOOLS)[N]["inputSchema"]>): void {
  const d = TOOLS[name];
  server.registerTool(name, { title: d.annotations.title, description: d.description, inputSchema: d.inputSchema, annotations: d.annotations }, handler);
}
