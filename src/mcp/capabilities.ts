/**
 * The MCP tools generated from the capability declarations (src/capabilities/): the tool's name, description,
 * annotations and input are the declaration's, the handler is its one handler over McpBrowser (its tabs' numbers,
 * its refs); this file only turns the outcome into a tool result (the page after it, as every page tool reports).
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentWatch, type Capability, CAPABILITIES, type CapabilityContext, type EmulationDoor, type Outcome, outcomeText, type Report, type RoutesDoor, shapeFor, type TraceDoor } from "../capabilities/index.js";
import { type RunEvent, type SearchBackend, type Service, ServiceInvalidArgumentError, ServiceSearchNotConfiguredError } from "../index.js";
import { type McpBrowser, type ToolResult, textResult } from "./browser.js";
import type { Registrar } from "./register.js";

/** A report's text is cut past this many characters (the client's context is the budget). */
const MAX_REPORT_CHARS = 50_000;

/** The tool's property names as they are: the MCP door's spelling. */
const spell = (property: string) => property;

function reportText(o: Report): string {
  return o.text.length > MAX_REPORT_CHARS ? `${o.text.slice(0, MAX_REPORT_CHARS)}… (${o.text.length} characters, cut)` : o.text;
}

export interface CapabilityOptions {
  /** The web search behind the `search` tool; without one it answers SEARCH_NOT_CONFIGURED. */
  search?: SearchBackend | undefined;
}

export function registerCapability(reg: Registrar, b: McpBrowser, c: Capability, options: CapabilityOptions = {}): void {
  const door = c.mcp;
  if (!door || !reg.caps.has(door.cap)) return;
  reg.server.registerTool(c.name, { title: door.annotations.title, description: c.description, inputSchema: shapeFor(c, "mcp"), annotations: door.annotations }, (input: Record<string, unknown>, extra: ToolExtra) =>
    b.run(async (): Promise<ToolResult> => {
      const problem = c.check?.(input as never, spell);
      if (problem) throw new ServiceInvalidArgumentError(problem);
      Object.assign(input, await c.read?.(input as never, spell, "mcp"));
      const alone = await c.withoutBrowser?.(input as never);
      if (alone) return rendered(alone);
      // A capability that needs no browser (search, fetch) never starts one.
      const svc = c.needs === "none" ? undefined : await b.service();
      const outcome = await c.run(mcpContext(b, svc, extra, options), input as never);
      // The tab list is the answer; one that changed is followed by the selected tab's page.
      if (outcome.kind === "tabs") return outcome.changed ? b.report(outcomeText(outcome)) : textResult(outcomeText(outcome));
      // A tab the call named is looked up after it: the call may have closed it.
      const tab = typeof input.tab === "number" ? await b.page(input.tab) : undefined;
      if (outcome.kind !== "report") return b.report(outcomeText(outcome), tab);
      if (outcome.pageChanged) return b.report(reportText(outcome), tab);
      return rendered(outcome);
    }),
  );
}

/** A report as a tool result: its text, after its image when it has one, before its resource. */
function rendered(outcome: Outcome): ToolResult {
  if (outcome.kind !== "report") return textResult(outcomeText(outcome));
  const text = outcome.heading ? `${outcome.heading}\n\n${reportText(outcome)}` : reportText(outcome);
  const r = outcome.resource;
  if (r) return { content: [{ type: "text", text }, { type: "resource", resource: { uri: r.uri, mimeType: r.mimeType, blob: r.bytes.toString("base64") } }] };
  if (!outcome.image) return textResult(text);
  return { content: [{ type: "image", data: outcome.image.data.toString("base64"), mimeType: outcome.image.mimeType }, { type: "text", text }] };
}

/** The browser's emulation (McpBrowser keeps it from its first use): the capability's view of it. */
async function emulationOf(b: McpBrowser): Promise<EmulationDoor> {
  const e = await b.emulation();
  return { scope: "this browser", current: () => e.current, set: (next) => e.set(next), tab: () => b.page() };
}

/** The browser's routes (McpBrowser's PageFetch, on every tab from its first use). */
async function routesOf(b: McpBrowser): Promise<RoutesDoor> {
  const fetch = await b.routes();
  return {
    scope: "this browser",
    current: () => fetch.current,
    set: async (next) => {
      const { pages, failed, error } = await fetch.setRoutes(next);
      return { pages, failed, ...(error !== undefined ? { error } : {}) };
    },
  };
}

/** Where trace_stop saves traces: one folder per server process, kept (a trace is what the user asked for). */
let traceDir: string | undefined;

/** The browser's trace (McpBrowser holds it); screenshots are the current tab's, and a stop writes a new file in the server's folder. */
async function traceOf(b: McpBrowser): Promise<TraceDoor> {
  const trace = await b.trace();
  return {
    scope: "this browser",
    start: async (categories, screenshots, maxSizeMb) => trace.start(categories, screenshots ? { target: (await b.page()).targetId } : undefined, maxSizeMb),
    stop: (path) => {
      // A folder removed since (the client cleaned up) is made anew, never re-made at its old, guessable path.
      if (traceDir === undefined || !existsSync(traceDir)) traceDir = mkdtempSync(join(tmpdir(), "svc-mcp-traces-"));
      return trace.stop(path ?? join(traceDir, `trace-${new Date().toISOString().replace(/[:.]/g, "-")}.json`));
    },
  };
}

/** What the SDK gives a tool's handler besides its input: the call's cancellation, its progress token, a way to notify. */
interface ToolExtra {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number } | undefined;
  sendNotification(n: { method: "notifications/progress"; params: { progressToken: string | number; progress: number; total?: number; message?: string } }): Promise<void>;
}

/** The longest progress message sent: a step's tool and its one-line summary. */
const PROGRESS_MESSAGE_CHARS = 300;

/**
 * An agent run as MCP progress notifications, when the client asked for them (a progress token): one per finished
 * step, `progress` the step and `total` the step budget. Events are masked by the library before they get here.
 */
function agentProgress(extra: ToolExtra): AgentWatch {
  const token = extra._meta?.progressToken;
  let total: number | undefined;
  const onEvent = (e: RunEvent): void => {
    if (token === undefined) return;
    if (e.type === "run_start") total = e.maxSteps;
    if (e.type !== "tool_result") return;
    const message = `step ${e.step}: ${e.tool}${e.ok ? "" : " failed"}: ${e.summary}`.replace(/\s+/g, " ").slice(0, PROGRESS_MESSAGE_CHARS);
    const params = { progressToken: token, progress: e.step, ...(total !== undefined ? { total } : {}), message };
    // A client gone or slow to read loses a notification, never the run.
    extra.sendNotification({ method: "notifications/progress", params }).catch(() => {});
  };
  return { onEvent, options: {}, finish: async () => ({}) };
}

/** The handler's view of the client's browser: its tab numbers, its refs, its recorders. */
function mcpContext(b: McpBrowser, browser: Service | undefined, extra: ToolExtra, options: CapabilityOptions): CapabilityContext {
  const signal = extra.signal;
  const service = (): Service => {
    if (!browser) throw new Error('this tool runs with no browser (needs: "none")');
    return browser;
  };
  const tabOf = (target: string) => {
    const page = service().context.pages().find((p) => p.targetId === target);
    return page ? b.tabNumber(page) : undefined;
  };
  return {
    get svc() {
      return service();
    },
    door: "mcp",
    columns: (rows) => rows.map((r) => r.join(" ").trimEnd()),
    page: (n) => b.page(n),
    resolve: (t, page) => b.resolve(t, page),
    tabNumber: (page) => b.tabNumber(page),
    signal,
    spell,
    snapshot: (page, view) => b.snapshot(page, view),
    // The page keeps its last picture's fingerprint for as long as the client's browser lives.
    capture: (page, options) => page.capture(options),
    // An MCP client's calls are its history; the server keeps none of its own.
    note: () => {},
    emulation: () => emulationOf(b),
    routes: () => routesOf(b),
    trace: () => traceOf(b),
    searchBackend: async () => {
      if (!options.search) throw new ServiceSearchNotConfiguredError("no search backend is configured", { hint: "svc config set search.url URL (SearXNG), or SVC_SEARCH_URL" });
      return options.search;
    },
    browse: async (fn) => fn(await b.page(), () => {}),
    headed: () => (b.headed() ? "this browser" : undefined),
    // The client's Service answers every dialog as it opens: none is ever left open, so the answer waits for the next.
    answerDialog: async (answer) => {
      service().context.dialogs.answerNext(answer);
      return { scope: "this browser", pending: true };
    },
    // The server's Service asks the model `svc mcp` started with.
    model: () => undefined,
    // The client sees the run's answer, and each step as progress when it asked for progress.
    agentWatch: async () => agentProgress(extra),
    pageLog: async (kind) => {
      const log = b.pageLog;
      return { entries: log.entries(kind), tabOf, clear: () => log.clear(kind) };
    },
    network: async () => {
      const log = b.network;
      return {
        entries: [...log.entries()],
        entry: (id) => {
          const e = log.find(id);
          if (!e) throw new ServiceInvalidArgumentError(`id: no request ${id} (network_requests lists them; the newest 1,000 are kept)`);
          return e;
        },
        body: (id) => log.body(id),
        tabOf,
        clear: () => log.clear(),
      };
    },
  };
}

/** Every declared capability that has an MCP door, under its capability set. */
export function registerCapabilities(reg: Registrar, b: McpBrowser, options: CapabilityOptions = {}): void {
  for (const c of CAPABILITIES) registerCapability(reg, b, c, options);
}
