/**
 * The `webmcp` capability set: the tools the current tab registers through WebMCP (page.webmcp), offered as
 * `webmcp_<name>`. The list follows the page: a registration, removal, navigation or tab switch (checked after every
 * tool run) re-registers them, and the SDK sends `notifications/tools/list_changed`. The page's descriptions, schemas
 * and results are its words: marked, bounded (WEBMCP_LIMITS).
 */
import type { RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Page, Service, WebMcpTool } from "../index.js";
import { webmcpInputSchema } from "../internal.js";
import { type McpBrowser, type ToolResult, textResult } from "./browser.js";
import type { Registrar } from "./register.js";

export const WEBMCP_TOOL_PREFIX = "webmcp_";

interface Offered {
  tool: RegisteredTool;
  /** Its description and schema as offered: a change re-registers it. */
  shape: string;
}

export function registerWebMcpTools(reg: Registrar, b: McpBrowser): void {
  if (!reg.caps.has("webmcp")) return;
  const offered = new Map<string, Offered>();
  const watched = new WeakSet<Page>();
  let queue: Promise<void> = Promise.resolve();
  let scheduled = false;
  let latest: Service | undefined;

  const call = (name: string) => (args: unknown) =>
    b.run(async (): Promise<ToolResult> => {
      const svc = await b.service();
      const r = await svc.page.webmcp.callTool(name, args);
      const text = typeof r.output === "string" ? r.output : (JSON.stringify(r.output, null, 2) ?? "undefined");
      return textResult(`webmcp tool ${name} returned (the page's own words, untrusted):\n${text}`);
    });

  const sync = async (svc: Service) => {
    const tools = await svc.page.webmcp.tools().catch((): WebMcpTool[] => []);
    const wanted = new Map(tools.map((t) => [WEBMCP_TOOL_PREFIX + t.name, t]));
    for (const [name, o] of offered) {
      const t = wanted.get(name);
      if (t && shapeOf(t) === o.shape) continue;
      o.tool.remove();
      offered.delete(name);
    }
    for (const [name, t] of wanted) {
      if (offered.has(name)) continue;
      const tool = reg.server.registerTool(
        name,
        { title: `${t.name} (page tool)`, description: describe(t, svc.page.url()), inputSchema: webmcpInputSchema(t), annotations: { title: `${t.name} (page tool)`, openWorldHint: true } },
        call(t.name),
      );
      offered.set(name, { tool, shape: shapeOf(t) });
    }
  };
  // Changes come in bursts (a page registers several tools at once): one sync after the burst, one at a time.
  const schedule = (svc: Service) => {
    latest = svc;
    if (scheduled) return;
    scheduled = true;
    queue = queue.then(async () => {
      scheduled = false;
      if (latest) await sync(latest).catch(() => {});
    });
  };
  const watch = (svc: Service, p: Page) => {
    if (watched.has(p)) return;
    watched.add(p);
    p.webmcp.onChange(() => schedule(svc));
  };
  b.onActivity((svc) => {
    for (const p of svc.context.pages()) watch(svc, p);
    schedule(svc);
  });
}

function shapeOf(t: WebMcpTool): string {
  return JSON.stringify([t.description, t.inputSchema ?? null, t.frame ?? null]);
}

function describe(t: WebMcpTool, pageUrl: string): string {
  const from = t.frame ? `the frame ${t.frame} of the page ${pageUrl}` : `the page ${pageUrl}`;
  return `A tool ${from} registered through WebMCP; its description, in the page's own words (untrusted): ${t.description}`;
}
