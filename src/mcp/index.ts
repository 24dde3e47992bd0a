/**
 * svc's MCP server over stdio (one client, ended with stdin) or streamable HTTP (a session per MCP session id,
 * ended when deleted, closed or idle), each with a Chrome of its own or, with `sharedBrowser`, a browser context
 * in the server's one Chrome (shared-browser.ts). A client of the library's entry points, like src/server/.
 */
import { randomUUID } from "node:crypto";
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { refusalsOf, screenedInput } from "./jsonrpc.js";
import { authProblem } from "./auth.js";
export { checkToken, generateToken } from "./auth.js";
import type { Cap } from "./tools.js";
export { CAPS, parseCaps } from "./tools.js";
import { createMcpServer, type McpOptions } from "./server.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { McpBrowser, SharedPlace } from "./browser.js";
import { SharedBrowser } from "./shared-browser.js";
export type { McpOptions } from "./server.js";
export { callOnce, toolList } from "./call.js";

/** Serve one client on stdin/stdout until stdin closes; the browser is closed before this resolves. */
export async function serveStdio(options: McpOptions): Promise<void> {
  const { server, browser } = createMcpServer(options);
  const transport: StdioServerTransport = new StdioServerTransport(screenedInput(process.stdin, (refusal) => void transport.send(refusal).catch(() => {})), process.stdout);
  const ended = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
    transport.onclose = resolve;
  });
  await server.connect(transport);
  await ended;
  await browser.close();
  await server.close().catch(() => {});
}

export interface HttpOptions extends McpOptions {
  port: number;
  /** Default 127.0.0.1 (loopback only). */
  host?: string;
  /** A session with no request for this long is closed (its browser too). Default 30 minutes. */
  idleMs?: number;
  /** Every request must carry `Authorization: Bearer <token>` (src/mcp/auth.ts); otherwise 401. */
  token: string;
  /** MCP sessions (each with its browser) at once; past it an initialize gets 429 TOO_MANY_SESSIONS. Default 8, as `svc serve`'s --max-sessions. */
  maxSessions?: number;
  /** One Chrome for every session, launched on the first that needs it and ended with the server; each session in a browser context of its own. */
  sharedBrowser?: boolean;
  /** With `sharedBrowser`: sessions work in the default context, together, unless their initialize says `x-svc-context: own`. */
  sharedContext?: boolean;
}

/** The header an initialize request chooses its context with on a shared browser: `own` or `shared`. */
export const CONTEXT_HEADER = "x-svc-context";

export interface McpHttpServer {
  url: string;
  /** Open MCP sessions (each with its browser). */
  sessions(): number;
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);
const MAX_BODY = 4 * 1024 * 1024;
export const DEFAULT_MAX_SESSIONS = 8;

interface Entry {
  transport: StreamableHTTPServerTransport;
  browser: McpBrowser;
  server: McpServer;
  timer: NodeJS.Timeout | undefined;
  /** POST requests in flight: a session running a tool is not idle. */
  busy: number;
}

/**
 * Streamable HTTP on /mcp. Every request needs the bearer token (401 otherwise, before anything else is
 * looked at); on a loopback host, requests naming another Host are refused (DNS rebinding).
 */
export async function serveHttp(options: HttpOptions): Promise<McpHttpServer> {
  const host = options.host ?? "127.0.0.1";
  const idleMs = options.idleMs ?? 30 * 60_000;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const sessions = new Map<string, Entry>();
  /** Initializes under way: each holds a slot until its session is in `sessions` (or failed). */
  let opening = 0;
  const shared = options.sharedBrowser ? new SharedBrowser(options.service.localBrowserLaunchOptions ?? {}) : undefined;

  const end = async (id: string) => {
    const e = sessions.get(id);
    if (!e) return;
    sessions.delete(id);
    if (e.timer) clearTimeout(e.timer);
    await e.browser.close();
    await e.server.close().catch(() => {});
  };
  const touch = (id: string) => {
    const e = sessions.get(id);
    if (!e) return;
    if (e.timer) clearTimeout(e.timer);
    e.timer = e.busy > 0 ? undefined : setTimeout(() => void end(id), idleMs);
    e.timer?.unref();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const unauthorized = authProblem(req, options.token);
    if (unauthorized) {
      res.setHeader("www-authenticate", 'Bearer realm="svc mcp"');
      return reply(res, 401, "UNAUTHORIZED", unauthorized);
    }
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname !== "/mcp") return reply(res, 404, "NOT_FOUND", "the MCP endpoint is /mcp");
    if (LOOPBACK.has(host) && !LOOPBACK.has(hostnameOf(req.headers.host))) return reply(res, 403, "FORBIDDEN", "Host header is not a loopback name");
    const id = header(req, "mcp-session-id");
    const body = req.method === "POST" ? await readJson(req) : undefined;
    if (body instanceof Error) return reply(res, 400, "INVALID_ARGUMENT", body.message);
    const refused = refusalsOf(body);
    if (refused) return void res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify(refused));
    let entry = id ? sessions.get(id) : undefined;
    if (id && !entry) return reply(res, 404, "SESSION_NOT_FOUND", `no MCP session ${id}`);
    if (!entry) {
      if (req.method !== "POST" || !isInitializeRequest(body)) return reply(res, 400, "INVALID_ARGUMENT", "mcp-session-id: missing (only an initialize request may start a session)");
      const place = placeOf(req, shared, options.sharedContext === true);
      if (place instanceof Error) return reply(res, 400, "INVALID_ARGUMENT", place.message, (body as { id?: string | number }).id ?? null);
      if (sessions.size + opening >= maxSessions) {
        return reply(res, 429, "TOO_MANY_SESSIONS", `this server runs at most ${maxSessions} MCP sessions at once (--max-sessions); end one (DELETE /mcp) or retry later`, (body as { id?: string | number }).id ?? null);
      }
      opening++;
      let holding = true;
      const unhold = () => {
        if (holding) opening--;
        holding = false;
      };
      res.once("close", unhold);
      const { server, browser } = createMcpServer(options, place);
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => {
          unhold();
          sessions.set(sid, { transport, browser, server, timer: undefined, busy: 0 });
          touch(sid);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) void end(transport.sessionId);
        else void browser.close();
      };
      await server.connect(transport);
      entry = { transport, browser, server, timer: undefined, busy: 0 };
    }
    const sid = entry.transport.sessionId;
    const counted = req.method === "POST" && sid ? sessions.get(sid) : undefined;
    if (counted) {
      // Until the response is over (an SSE response outlives handleRequest): the tool is still running.
      counted.busy++;
      res.once("close", () => {
        counted.busy--;
        touch(sid!);
      });
    }
    if (sid) touch(sid);
    await entry.transport.handleRequest(req, res, body);
    // A DELETE ends the session at the transport (onclose); make sure its browser goes too.
    if (req.method === "DELETE" && id) await end(id);
  };

  const http: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) reply(res, 500, "INTERNAL", e instanceof Error ? e.message : String(e));
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port, host, () => resolve());
  });
  const address = http.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/mcp`,
    sessions: () => sessions.size,
    async close() {
      await Promise.all([...sessions.keys()].map(end));
      await shared?.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** A new client's place on the shared browser: its own context, or the default one (`x-svc-context`, else the server's choice). */
function placeOf(req: IncomingMessage, browser: SharedBrowser | undefined, sharedContext: boolean): SharedPlace | undefined | Error {
  const asked = header(req, CONTEXT_HEADER)?.trim().toLowerCase();
  if (!browser) return asked === undefined ? undefined : new Error(`${CONTEXT_HEADER}: goes with --shared-browser (each session has a Chrome of its own here)`);
  if (asked !== undefined && asked !== "own" && asked !== "shared") return new Error(`${CONTEXT_HEADER}: expected "own" or "shared", got ${JSON.stringify(asked.slice(0, 40))}`);
  return { browser, sharedContext: asked === undefined ? sharedContext : asked === "shared" };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function hostnameOf(host: string | undefined): string {
  if (!host) return "";
  if (host.startsWith("[")) return host.slice(0, host.indexOf("]") + 1);
  return host.replace(/:\d+$/, "");
}

function reply(res: ServerResponse, status: number, code: string, message: string, id: string | number | null = null): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: `${code}: ${message}` }, id }));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_BODY) return new Error(`body: larger than ${MAX_BODY} bytes`);
    chunks.push(c);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return new Error("body: not JSON");
  }
}
