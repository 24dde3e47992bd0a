/** What the `svc mcp` tests share: the SDK client over stdio or HTTP, a tool call and its text. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ChildProcess } from "node:child_process";
import { BIN, ROOT, waitFor } from "./helpers.js";

export type Content = { type: string; text?: string; data?: string; mimeType?: string };
export type CallResult = { content: Content[]; isError?: boolean };

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallResult> {
  return (await client.callTool({ name, arguments: args })) as CallResult;
}

export function text(r: CallResult): string {
  return r.content.map((c) => c.text ?? "").join("\n");
}

/** An SDK client of `svc mcp` with these flags, over stdio. */
export async function openStdio(env: NodeJS.ProcessEnv, extra: string[]): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", ...extra], env: env as Record<string, string>, cwd: ROOT, stderr: "pipe" });
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** The URL and generated token `svc mcp --http` printed on its one stderr line. */
export function served(stderr: string): { url: string; token: string } {
  const m = /MCP server at (\S+) \(bearer token: (\S+)\)/.exec(stderr);
  if (!m) throw new Error(`no URL and token in: ${stderr}`);
  return { url: m[1]!, token: m[2]! };
}

/** The URL and token of a spawned `svc mcp --http`, once its start line is printed. */
export async function servedBy(child: ChildProcess): Promise<{ url: string; token: string }> {
  let err = "";
  child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  await waitFor(() => /MCP server at \S+ \(bearer token: \S+\)\n/.test(err));
  return served(err);
}

/** The SDK's own HTTP transport, sending the token the way a host does (requestInit headers). */
export function withToken(url: string, token: string): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
}
