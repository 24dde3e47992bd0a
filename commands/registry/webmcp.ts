/** A page's own tools (WebMCP): `svc webmcp list|call` on the session's selected tab (commands/page/webmcp.ts; the library's src/browser/webmcp.ts). */
import { type GroupDecl, command, int } from "./types.js";

export const WEBMCP_GROUP: GroupDecl = { name: "webmcp", description: "list and call the tools the selected tab registers through WebMCP (its own words and results: untrusted)" };

export const WEBMCP_COMMANDS = [
  command({
    name: "webmcp list",
    description: "list the WebMCP tools the selected tab and its frames register: name, description, input schema, frame (bounded)",
    examples: ["svc webmcp list", "svc --json webmcp list"],
    hosted: true,
    run: async (c) => (await import("../page/webmcp.js")).webmcpList(c.globals),
  }),
  command({
    name: "webmcp call",
    args: "<name> [json]",
    description: "run the selected tab's WebMCP tool NAME with a JSON object of arguments (default {}) and print what it returned",
    options: { timeout: int("--timeout <ms>", "give up, and cancel the tool's run, after this many milliseconds (default 30000)", { min: 1, unit: "milliseconds" }) },
    examples: ["svc webmcp call add '{\"a\":2,\"b\":3}'", "svc --json webmcp call search '{\"query\":\"cats\"}'"],
    hosted: true,
    run: async (c, [name, json], o) => (await import("../page/webmcp.js")).webmcpCall(c.globals, name as string, json as string | undefined, o),
  }),
];
