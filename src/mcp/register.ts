/**
 * Registers a tool under its declaration (tools.ts): title, description, annotations and input schema all come
 * from there; the caller gives only the handler.
 */
import type { McpServer, ToolCallback } from "@modelcontextprotocol/sdk/server/mcp.js";
import { type Cap, TOOLS, type ToolName } from "./tools.js";

/** Where tools are registered: the server, and the capability sets turned on (`svc mcp --caps`). */
export interface Registrar {
  server: McpServer;
  caps: ReadonlySet<Cap>;
}

/** Registers the tool unless its capability set is off. */
export function registerDeclared<N extends ToolName>(reg: Registrar, name: N, handler: ToolCallback<(typeof TOOLS)[N]["inputSchema"]>): void {
  const d = TOOLS[name];
  if (!reg.caps.has(d.cap)) return;
  reg.server.registerTool(name, { title: d.annotations.title, description: d.description, inputSchema: d.inputSchema, annotations: d.annotations }, handler);
}
