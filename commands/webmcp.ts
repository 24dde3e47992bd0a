/**
 * `svc webmcp list` and `svc webmcp call NAME [JSON]`: the tools the selected tab registers through WebMCP,
 * listed and run by the library (src/browser/webmcp.ts, which bounds what the page gives).
 */
import { ServiceInvalidArgumentError } from "../src/base.js";
import { parseTimeout } from "./model.js";
import type { GlobalOptions } from "./output.js";
import { withSession } from "./runtime.js";

/** The arguments as typed: one JSON object, at most this long (the library bounds them again as JSON). */
const MAX_ARGS_CHARS = 64 * 1024;

export function parseToolArgs(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined) return {};
  if (raw.length > MAX_ARGS_CHARS) throw new ServiceInvalidArgumentError(`json: longer than ${MAX_ARGS_CHARS} characters`);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ServiceInvalidArgumentError("json: not valid JSON", { hint: `svc webmcp call add '{"a":2,"b":3}'` });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ServiceInvalidArgumentError("json: must be a JSON object");
  return value as Record<string, unknown>;
}

export async function webmcpList(g: GlobalOptions): Promise<void> {
  await withSession(g, async ({ svc, out, session }) => {
    const tools = await svc.page.webmcp.tools();
    out.result({ session: session?.id, tools }, () =>
      tools.length ? tools.map((t) => `${t.name}${t.frame ? ` (frame ${t.frame})` : ""}: ${t.description.split("\n")[0]}`) : ["no WebMCP tools on this page"],
    );
  });
}

export async function webmcpCall(g: GlobalOptions, name: string, json: string | undefined, flags: { timeout?: string }): Promise<void> {
  const args = parseToolArgs(json);
  const timeout = parseTimeout(flags.timeout);
  await withSession(g, async ({ svc, out, session }) => {
    const result = await svc.page.webmcp.callTool(name, args, timeout === undefined ? {} : { timeout });
    const text = typeof result.output === "string" ? result.output : JSON.stringify(result.output, null, 2) ?? "undefined";
    out.result({ session: session?.id, ...result }, () => text);
  });
}
