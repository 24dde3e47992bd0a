/**
 * The tools a page registers through WebMCP, seen and called over CDP's WebMCP domain (Chrome ≥ 149 with the feature,
 * which launch.ts enables). The domain says nothing when a document goes away, so a frame's tools are dropped here at
 * its navigation or detach; `enable` reports only the main frame's, so same-process iframes' earlier ones are read once
 * (catchUp). Bounded: WEBMCP_LIMITS.
 */
import type { Protocol } from "devtools-protocol";
import type { CdpSession } from "./cdp/connection.js";
import { type Frame, type FrameTree, utilityContext } from "./frames.js";
import { within } from "../util/abort.js";
import { ServiceInvalidArgumentError, ServiceTimeoutError, ServiceUnsupportedError, WebMcpToolError, WebMcpToolNotFoundError } from "../errors.js";

/** What svc takes from a page: beyond these a tool is not listed (name, count) or its text is cut. */
export const WEBMCP_LIMITS = {
  /** Tool names: 1–64 characters of A–Z a–z 0–9 _ . - (others are not listed, so cannot be called). */
  nameChars: 64,
  descriptionChars: 2048,
  /** An input schema longer than this as JSON is not passed on (the tool is listed without one). */
  schemaBytes: 16 * 1024,
  /** A result longer than this as JSON is cut, with a note saying so. */
  resultBytes: 64 * 1024,
  /** Tools listed per page, in frame order (main frame first). */
  tools: 100,
  /** A thrown error's message as passed on. */
  errorChars: 1000,
  /** The arguments svc sends to a tool, as JSON. */
  argsBytes: 64 * 1024,
} as const;

const NAME_RE = /^[A-Za-z0-9_.-]{1,64}$/;
const DEFAULT_CALL_TIMEOUT = 30_000;
const CATCH_UP_MS = 5_000;

export interface WebMcpTool {
  name: string;
  /** The page's own words: untrusted. */
  description: string;
  inputSchema?: Record<string, unknown>;
  /** The frame's URL, when the tool is an iframe's. */
  frame?: string;
}

export interface WebMcpCallResult {
  name: string;
  /** What the tool returned (the page's value: untrusted); when `truncated`, its JSON cut at WEBMCP_LIMITS.resultBytes with a note. */
  output: unknown;
  truncated: boolean;
}

export interface WebMcpCallOptions {
  /** ms; the tool's run is canceled in the page at the bound (default 30 000). */
  timeout?: number;
  signal?: AbortSignal;
}

interface Registered {
  session: CdpSession;
  frameId: string;
  tool: Protocol.WebMCP.Tool;
}

interface PendingCall {
  frameId: string;
  resolve: (e: Protocol.WebMCP.ToolRespondedEvent) => void;
  reject: (e: Error) => void;
}

/** One page's WebMCP tools: `page.webmcp`. */
export class PageWebMcp {
  /** Keyed `frameId\0name`: Chrome keeps names unique per frame. */
  private readonly registered = new Map<string, Registered>();
  private readonly enabled = new Map<CdpSession, Promise<unknown>>();
  private readonly pending = new Map<string, PendingCall>();
  private readonly early = new Map<string, Protocol.WebMCP.ToolRespondedEvent>();
  private readonly listeners = new Set<() => void>();
  private caughtUp: Promise<void> | undefined;

  /** @internal created by Page */
  constructor(private readonly frames: FrameTree) {}

  /** @internal subscribes to a session's WebMCP events and enables the domain (Page.attachSession). */
  track(session: CdpSession): void {
    session.on("WebMCP.toolsAdded", (e) => {
      for (const tool of e.tools) this.registered.set(key(tool.frameId, tool.name), { session, frameId: tool.frameId, tool });
      this.changed();
    });
    session.on("WebMCP.toolsRemoved", (e) => {
      for (const t of e.tools) this.registered.delete(key(t.frameId, t.name));
      this.changed();
    });
    session.on("WebMCP.toolResponded", (e) => this.responded(e));
    // A new document or a detached frame takes its tools along; Chrome reports neither as a removal.
    session.on("Page.frameNavigated", (e) => this.dropFrame(e.frame.id, "navigated"));
    session.on("Page.frameDetached", (e) => (e.reason === "swap" ? undefined : this.dropFrame(e.frameId, "was detached")));
    session.on("svc.detached" as never, () => this.dropSession(session));
    const enabled = session.send("WebMCP.enable");
    enabled.catch(() => {}); // read by ensureSupported
    this.enabled.set(session, enabled);
  }

  /** Calls `listener` whenever the page's list of tools changes (a registration, a removal, a navigation). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The tools the page and its frames register now, bounded (WEBMCP_LIMITS), main frame first. */
  async tools(): Promise<WebMcpTool[]> {
    await this.ensureSupported();
    return this.usable()
      .slice(0, WEBMCP_LIMITS.tools)
      .map((r) => this.describe(r));
  }

  /** Runs the page's tool `name` with `args`; the page's answer is untrusted. */
  async callTool(name: string, args: unknown = {}, options: WebMcpCallOptions = {}): Promise<WebMcpCallResult> {
    const input = checkArgs(name, args);
    await this.ensureSupported();
    const target = this.usable()
      .slice(0, WEBMCP_LIMITS.tools)
      .find((r) => r.tool.name === name);
    if (!target) throw new WebMcpToolNotFoundError(`webmcp tool "${name}" is not registered on the page`, { hint: "list the page's tools (svc webmcp list)" });
    const answer = await this.invoke(target, input, options);
    if (answer.status === "Completed") return { name, ...boundOutput(answer.output) };
    if (answer.status === "Canceled") throw new WebMcpToolError(`webmcp tool "${name}" was canceled by the page`);
    throw new WebMcpToolError(`webmcp tool "${name}" failed: ${thrownText(answer)}`);
  }

  private async invoke(target: Registered, input: Record<string, unknown>, options: WebMcpCallOptions): Promise<Protocol.WebMCP.ToolRespondedEvent> {
    const timeout = options.timeout ?? DEFAULT_CALL_TIMEOUT;
    const { invocationId } = await target.session.send("WebMCP.invokeTool", { frameId: target.frameId, toolName: target.tool.name, input });
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const cancel = () => void target.session.send("WebMCP.cancelInvocation", { invocationId }).catch(() => {});
    try {
      return await new Promise<Protocol.WebMCP.ToolRespondedEvent>((resolve, reject) => {
        const early = this.early.get(invocationId);
        if (early) return resolve(early);
        this.pending.set(invocationId, { frameId: target.frameId, resolve, reject });
        timer = setTimeout(() => {
          cancel();
          reject(new ServiceTimeoutError(`webmcp tool "${target.tool.name}" did not answer within ${timeout} ms; its run was canceled`));
        }, timeout);
        onAbort = () => {
          cancel();
          reject(options.signal?.reason instanceof Error ? options.signal.reason : new Error("aborted"));
        };
        if (options.signal?.aborted) onAbort();
        else options.signal?.addEventListener("abort", onAbort, { once: true });
      });
    } finally {
      clearTimeout(timer);
      if (onAbort) options.signal?.removeEventListener("abort", onAbort);
      this.pending.delete(invocationId);
      this.early.delete(invocationId);
    }
  }

  private responded(e: Protocol.WebMCP.ToolRespondedEvent): void {
    const call = this.pending.get(e.invocationId);
    if (call) return call.resolve(e);
    // Chrome answers invokeTool before the tool's events; kept a moment in case one ever comes first.
    if (this.early.size < 32) this.early.set(e.invocationId, e);
  }

  /** Tools with a name svc passes on, in frame order (main frame first), then by name (Chrome's own order varies). */
  private usable(): Registered[] {
    const order = new Map(this.frames.ordered().map((f, i) => [f.id, i]));
    const rank = (r: Registered) => order.get(r.frameId) ?? order.size;
    return [...this.registered.values()]
      .filter((r) => NAME_RE.test(r.tool.name))
      .sort((a, b) => rank(a) - rank(b) || (a.tool.name < b.tool.name ? -1 : a.tool.name > b.tool.name ? 1 : 0));
  }

  private describe(r: Registered): WebMcpTool {
    const out: WebMcpTool = { name: r.tool.name, description: cleanText(r.tool.description ?? "", WEBMCP_LIMITS.descriptionChars) };
    const schema = r.tool.inputSchema;
    if (schema && typeof schema === "object" && !Array.isArray(schema) && JSON.stringify(schema).length <= WEBMCP_LIMITS.schemaBytes) out.inputSchema = schema as Record<string, unknown>;
    const frame = this.frames.get(r.frameId);
    if (frame?.parentId !== undefined) out.frame = frame.url.slice(0, 2048);
    return out;
  }

  /** The frame's tools go, and those of frames the tree no longer has (a new document's old iframes: FrameTree, which hears first). */
  private dropFrame(frameId: string, why: string): void {
    const gone = (id: string) => id === frameId || !this.frames.get(id);
    let dropped = false;
    for (const [k, r] of this.registered) {
      if (!gone(r.frameId)) continue;
      this.registered.delete(k);
      dropped = true;
    }
    for (const [id, call] of this.pending) {
      if (!gone(call.frameId)) continue;
      this.pending.delete(id);
      call.reject(new WebMcpToolError(`webmcp tool's frame ${why} before the tool answered`));
    }
    if (dropped) this.changed();
  }

  private dropSession(session: CdpSession): void {
    this.enabled.delete(session);
    const frames = new Set([...this.registered.values()].filter((r) => r.session === session).map((r) => r.frameId));
    for (const f of frames) this.dropFrame(f, "was closed");
  }

  /** A frame's read that fails or does not settle in CATCH_UP_MS (it awaits the page's getTools) is tried again at the next call. */
  private async catchUp(): Promise<void> {
    const inner = this.frames.ordered().filter((f) => f.parentId !== undefined && this.frames.get(f.parentId)?.session === f.session);
    let complete = true;
    const read = async (frame: Frame) => {
      const contextId = await utilityContext(frame);
      const { result } = await frame.session.send("Runtime.evaluate", { expression: OWN_TOOLS, contextId, awaitPromise: true, returnByValue: true });
      if (!Array.isArray(result.value)) return;
      for (const tool of result.value as Array<Omit<Protocol.WebMCP.Tool, "frameId">>) {
        const k = key(frame.id, tool.name);
        if (!this.registered.has(k)) this.registered.set(k, { session: frame.session, frameId: frame.id, tool: { ...tool, frameId: frame.id } });
      }
    };
    const late = () => new ServiceTimeoutError(`webmcp: a frame's tools were not read within ${CATCH_UP_MS} ms`);
    await Promise.all(inner.map((frame) => within(read(frame), CATCH_UP_MS, late).catch(() => void (complete = false))));
    if (!complete) this.caughtUp = undefined;
  }

  private changed(): void {
    for (const l of [...this.listeners]) l();
  }

  /** UNSUPPORTED when Chrome has no WebMCP domain, or its pages no `document.modelContext` (the feature is off). */
  private async ensureSupported(): Promise<void> {
    const main = this.frames.main;
    try {
      await this.enabled.get(main.session);
    } catch (e) {
      if (!/wasn't found|not found/i.test((e as Error).message)) throw e;
      throw await unsupported(main.session, "has no WebMCP", "WebMCP needs Chrome or Chromium 149 or later");
    }
    await (this.caughtUp ??= this.catchUp());
    if (this.registered.size > 0) return;
    // svc's own world: the page cannot fake or hide the API there.
    const contextId = await utilityContext(main);
    const { result } = await main.session.send("Runtime.evaluate", { expression: '"modelContext" in document', contextId, returnByValue: true });
    if (result.value !== true) throw await unsupported(main.session, "runs with WebMCP off", "start it with --enable-features=WebMCP (svc adds it to the Chromes it launches), on a secure (https or localhost) page");
  }
}

/**
 * What a same-process iframe registered before the domain was enabled (Chrome's enable reports only the target's
 * main frame): read once, from svc's world in each such frame, bounded there. Later changes come as events.
 */
const OWN_TOOLS = `(async () => {
  const tools = (await document.modelContext?.getTools?.()) ?? [];
  return tools.filter((t) => !("window" in t) || t.window === window).slice(0, ${WEBMCP_LIMITS.tools}).map((t) => {
    const schema = typeof t.inputSchema === "string" ? t.inputSchema : JSON.stringify(t.inputSchema ?? null);
    return { name: String(t.name).slice(0, 100), description: String(t.description ?? "").slice(0, ${WEBMCP_LIMITS.descriptionChars}),
      inputSchema: schema.length <= ${WEBMCP_LIMITS.schemaBytes} ? JSON.parse(schema) ?? undefined : undefined };
  });
})()`;

async function unsupported(session: CdpSession, what: string, hint: string): Promise<ServiceUnsupportedError> {
  const product = await session.send("Browser.getVersion").then((v) => v.product, () => "");
  const major = /\/(\d+)\./.exec(product)?.[1];
  return new ServiceUnsupportedError(`WebMCP is not supported by this browser (Chrome ${major ?? "version unknown"}): it ${what}`, { hint });
}

function key(frameId: string, name: string): string {
  return `${frameId}\0${name}`;
}

function checkArgs(name: unknown, args: unknown): Record<string, unknown> {
  if (typeof name !== "string" || !NAME_RE.test(name)) throw new ServiceInvalidArgumentError(`name: a webmcp tool name is 1–${WEBMCP_LIMITS.nameChars} characters of A-Z a-z 0-9 _ . -`);
  if (typeof args !== "object" || args === null || Array.isArray(args)) throw new ServiceInvalidArgumentError("args: must be a JSON object");
  if (JSON.stringify(args).length > WEBMCP_LIMITS.argsBytes) throw new ServiceInvalidArgumentError(`args: longer than ${WEBMCP_LIMITS.argsBytes} bytes as JSON`);
  return args as Record<string, unknown>;
}

function boundOutput(output: unknown): { output: unknown; truncated: boolean } {
  const json = JSON.stringify(output ?? null);
  if (json.length <= WEBMCP_LIMITS.resultBytes) return { output, truncated: false };
  return { output: `${json.slice(0, WEBMCP_LIMITS.resultBytes)}… [svc cut the tool's result: ${json.length} bytes as JSON, ${WEBMCP_LIMITS.resultBytes} kept]`, truncated: true };
}

function thrownText(e: Protocol.WebMCP.ToolRespondedEvent): string {
  // The exception's description is "Error: message\n    at …": its first line is what the page threw.
  const text = e.exception?.description?.split("\n")[0] ?? e.exception?.value ?? e.errorText;
  return cleanText(typeof text === "string" && text ? text : "no message", WEBMCP_LIMITS.errorChars);
}

/** Control characters out, cut at `max` with an ellipsis. */
function cleanText(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, " ");
  return clean.length <= max ? clean : `${clean.slice(0, max - 1)}…`;
}
