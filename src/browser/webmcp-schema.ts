/**
 * A page's WebMCP input schema (JSON Schema, the page's words) as zod, for the doors that check arguments with
 * zod before the page sees them (svc mcp's tools, the agent's step reply). One zod cannot read as an object
 * schema takes any object: the page checks its own input.
 */
import { z } from "zod";
import type { WebMcpTool } from "./webmcp.js";

export function webmcpInputSchema(tool: WebMcpTool): z.ZodType<Record<string, unknown>> {
  const loose = z.object({}).loose();
  if (!tool.inputSchema) return loose;
  try {
    const schema = z.fromJSONSchema(tool.inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
    return schema instanceof z.ZodObject ? (schema as z.ZodType<Record<string, unknown>>) : loose;
  } catch {
    return loose;
  }
}
