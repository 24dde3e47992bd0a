/**
 * One client's MCP server and browser: every tool registered under its capability set, arguments checked the
 * svc way. The stdio and HTTP transports (index.ts) and the one-shot call (call.ts) each make theirs here.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ServiceOptions } from "../index.js";
import { checkArgumentsTheSvcWay } from "./arguments.js";
import { McpBrowser, type SharedPlace } from "./browser.js";
import { type CapabilityOptions, registerCapabilities } from "./capabilities.js";
import { registerFormTools } from "./tools-forms.js";
import { registerWebMcpTools } from "./tools-webmcp.js";
import type { Cap } from "./tools.js";

export interface McpOptions extends CapabilityOptions {
  /** How each client's Service is made (a local browser launched on first use, by default). */
  service: ServiceOptions;
  version?: string;
  /** The capability sets whose tools are offered (tools.ts CAPS; default core alone). */
  caps?: ReadonlySet<Cap>;
  /** Pages may be opened at file: URLs (the operator's --allow-file-urls); otherwise http(s) only, as `fetch`. */
  allowFileUrls?: boolean;
}

/** One client's server and browser (its own, or its place in the shared one). */
export function createMcpServer(options: McpOptions, shared?: SharedPlace): { server: McpServer; browser: McpBrowser } {
  const server = new McpServer({ name: "svc", version: options.version ?? "0.0.0" });
  // The client's model (or a page's prompt injection, through it) chooses the URLs: every tool's navigation,
  // the agent's included, goes through the Service's one URL policy, whatever the caller's service options say.
  const browser = new McpBrowser({ ...options.service, urlPolicy: options.allowFileUrls === true ? "http+file" : "http" }, shared);
  const reg = { server, caps: options.caps ?? new Set<Cap>(["core"]) };
  registerCapabilities(reg, browser, options);
  registerFormTools(reg, browser);
  registerWebMcpTools(reg, browser);
  checkArgumentsTheSvcWay(server);
  return { server, browser };
}

