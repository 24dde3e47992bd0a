/**
 * Tool arguments checked the svc way. The SDK answers arguments that misfit a tool's schema with "MCP error -32602" and
 * a dump of zod's issues; every other svc error reads `CODE: field: what was expected`. So svc takes over tools/call:
 * arguments are parsed against the tool's listed schema, and a misfit (or an unknown tool, naming those there are) is an
 * `INVALID_ARGUMENT` a model can correct.
 */
import type { McpServer, RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { describeIssue } from "../util/zod.js";

type Handler = (args: unknown, extra: unknown) => unknown;

/** Replaces the SDK's tools/call handler; call after every tool is registered. */
export function checkArgumentsTheSvcWay(server: McpServer): void {
  const tools = (server as unknown as { _registeredTools: Record<string, RegisteredTool> })._registeredTools;
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = Object.hasOwn(tools, request.params.name) ? tools[request.params.name] : undefined;
    if (!tool?.enabled) return invalid(`name: no tool ${JSON.stringify(request.params.name.slice(0, 100))} (tools: ${Object.keys(tools).filter((n) => tools[n]!.enabled).join(", ")})`);
    // The SDK keeps a zod-mini object: parsed with zod's top-level function, not a method.
    const schema = (tool.inputSchema ?? z.object({})) as z.ZodType;
    const parsed = await z.safeParseAsync(schema, request.params.arguments ?? {}, { reportInput: true });
    if (!parsed.success) return invalid(describeIssue(parsed.error));
    return (await (tool.handler as Handler)(parsed.data, extra)) as { content: [] };
  });
}

function invalid(what: string) {
  return { isError: true, content: [{ type: "text" as const, text: `INVALID_ARGUMENT: ${what}` }] };
}
