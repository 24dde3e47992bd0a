/**
 * `svc mcp call TOOL 'JSON'`: one MCP tool run once from the shell, through the same server an MCP client talks
 * to (src/mcp/call.ts), so every capability is reachable from both doors. It runs on the live local session's
 * browser when there is one (attached, left running), else on a browser of its own that ends with the call.
 * `svc mcp call tools` lists the tools the chosen `--caps` offer.
 */
import { ServiceInvalidArgumentError, isCloud } from "../../src/base.js";
import { jsonObjectArg } from "../core/json-arg.js";
import type { McpFlags } from "./mcp.js";
import { mcpOptions } from "./mcp.js";
import { createOutput, type GlobalOptions } from "../core/output.js";
import { stateRoot } from "../core/runtime.js";
import { liveOrGone } from "../core/session-lookup.js";

/** The JSON argument's bound: a tool's arguments are small (a fill_form of 100 fields fits). */
const MAX_JSON_CHARS = 1_000_000;

/** A tool's error (`CODE: message`), carrying the code so main.ts gives its exit code. */
class ToolCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ToolCallError";
  }
}

export async function mcpCall(g: GlobalOptions, flags: McpFlags, call: string, tool: string | undefined, json: string | undefined, version: string): Promise<void> {
  if (call !== "call") throw new ServiceInvalidArgumentError(`mcp: unexpected argument "${call}"`, { hint: "svc mcp (a server), or svc mcp call TOOL 'JSON'" });
  if (!tool?.trim()) throw new ServiceInvalidArgumentError("mcp call: the tool's name is missing", { hint: "svc mcp call tools lists them" });
  if (flags.http || flags.port !== undefined || flags.host !== undefined) throw new ServiceInvalidArgumentError("mcp call: --http, --port and --host are for the server");
  const args = jsonObjectArg(json, { maxChars: MAX_JSON_CHARS, example: `svc mcp call navigate '{"url": "https://example.com"}'` });
  const { lib, options } = await mcpOptions(g, flags, version);
  const out = createOutput(g);
  if (tool === "tools") {
    const tools = await lib.toolList(options);
    out.result({ tools }, () => tools.map((t) => `${t.name.padEnd(18)} ${t.description}`));
    return;
  }
  const { live } = await liveOrGone(stateRoot());
  const attach = live && !isCloud(live) ? { ...options.service.localBrowserLaunchOptions, cdpUrl: live.wsEndpoint } : undefined;
  const result = await lib.callOnce({ ...options, service: { ...options.service, ...(attach ? { localBrowserLaunchOptions: attach } : {}) } }, tool, args);
  const texts = result.content.flatMap((c) => (c.type === "text" ? [c.text] : []));
  if (result.isError) {
    const m = /^([A-Z_]+): ([\s\S]*)$/.exec(texts.join("\n"));
    throw new ToolCallError(m?.[1] ?? "TOOL_ERROR", m?.[2] ?? texts.join("\n"));
  }
  out.result({ ...(live && attach ? { session: live.id } : {}), content: result.content }, () => [
    ...texts,
    ...result.content.flatMap((c) => (c.type === "image" ? [`(${c.mimeType} image, ${Math.round((c.data.length * 3) / 4)} bytes: --json carries it as base64)`] : [])),
  ]);
}
