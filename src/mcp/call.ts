/**
 * One tool call from the shell (`svc mcp call TOOL 'JSON'`): the same server a client talks to, over an
 * in-memory transport, so the call goes through the same tool list, argument checks and handlers; the browser
 * is closed before the result is returned.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { ToolResult } from "./browser.js";
import type { McpOptions } from "./server.js";
import { createMcpServer } from "./server.js";

/** Runs `fn` with a client of a fresh server (its browser started only if a tool needs one), then closes both. */
async function withClient<T>(options: McpOptions, fn: (client: Client) => Promise<T>): Promise<T> {
  const { server, browser } = createMcpServer(options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "svc mcp call", version: options.version ?? "0.0.0" });
  try {
    await server.connect(serverSide);
    await client.connect(clientSide);
    return await fn(client);
  } finally {
    await client.close().catch(() => {});
    await browser.close();
    await server.close().catch(() => {});
  }
}

export function callOnce(options: McpOptions, tool: string, args: Record<string, unknown>): Promise<ToolResult> {
  return withClient(options, async (client) => (await client.callTool({ name: tool, arguments: args })) as ToolResult);
}

/** The tools the options' capability sets offer, as a client lists them. */
export function toolList(options: McpOptions): Promise<{ name: string; description: string }[]> {
  return withClient(options, async (client) => (await client.listTools()).tools.map((t) => ({ name: t.name, description: t.description ?? "" })));
}
