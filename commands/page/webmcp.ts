/**
 * `svc webmcp list` and `svc webmcp call NAME [JSON]`: the tools the selected tab registers through WebMCP,
 * listed and run by the library (src/browser/webmcp.ts, which bounds what the page gives).
 */
import { jsonObjectArg } from "../core/json-arg.js";
import type { GlobalOptions } from "../core/output.js";
import { withSession } from "../core/runtime.js";

/** The arguments as typed: one JSON object, at most this long (the library bounds them again as JSON). */
const MAX_ARGS_CHARS = 64 * 1024;

export async function webmcpList(g: GlobalOptions): Promise<void> {
  await withSession(g, async ({ svc, out, session }) => {
    const tools = await svc.page.webmcp.tools();
    out.result({ session: session?.id, tools }, () =>
      tools.length ? tools.map((t) => `${t.name}${t.frame ? ` (frame ${t.frame})` : ""}: ${t.description.split("\n")[0]}`) : ["no WebMCP tools on this page"],
    );
  });
}

export async function webmcpCall(g: GlobalOptions, name: string, json: string | undefined, { timeout }: { timeout?: number }): Promise<void> {
  const args = jsonObjectArg(json, { maxChars: MAX_ARGS_CHARS, example: `svc webmcp call add '{"a":2,"b":3}'` });
  await withSession(g, async ({ svc, out, session }) => {
    const result = await svc.page.webmcp.callTool(name, args, timeout === undefined ? {} : { timeout });
    const text = typeof result.output === "string" ? result.output : JSON.stringify(result.output, null, 2) ?? "undefined";
    out.result({ session: session?.id, ...result }, () => text);
  });
}
