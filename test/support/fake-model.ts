/**
 * A fake model server on loopback speaking the real wire formats (OpenAI Responses, Chat Completions incl. Azure,
 * Anthropic Messages incl. Vertex; JSON and SSE), so tests run the real SDKs; any path prefix is accepted. It answers
 * from a script (`fake.script(...)`, in order) or automatically from the prompt (./fake-model/auto.ts), and records
 * every request.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { autoAnswer } from "./fake-model/auto.js";
import { detectFormat, inputTokens, normalizeRequest, type NormalizedRequest, type WireFormat } from "./fake-model/request.js";
import { parsePrompt } from "./fake-model/snapshot.js";
import { computerResponse, errorBody, jsonResponse, requestIdHeader, streamResponse, type FakeUsage } from "./fake-model/wire.js";

export type { WireFormat } from "./fake-model/request.js";
export type { FakeUsage } from "./fake-model/wire.js";
export { autoAnswer, answerAct, answerObserve, answerExtract, parseIntent } from "./fake-model/auto.js";
export { parsePrompt, parseSnapshot } from "./fake-model/snapshot.js";

export interface FakeRequest {
  /** 0-based, in arrival order (retries included). */
  index: number;
  method: string;
  /** Path without the query, e.g. `/v1/responses` or `/openai/deployments/gpt/chat/completions`. */
  path: string;
  query: Record<string, string>;
  format: WireFormat;
  /** Lower-cased header names (`authorization`, `api-key`, `x-api-key`, custom headers…). */
  headers: IncomingHttpHeaders;
  /** The parsed JSON body as sent. */
  body: Record<string, any>;
  model: string | undefined;
  stream: boolean;
  /** The schema / tool name: `act`, `observe`, `extract`, … (guessed from the schema's shape when the request names none). */
  operation: string;
  schema: Record<string, unknown> | undefined;
  /** How JSON was asked for: a response format ("text") or a forced tool ("tool"). */
  jsonVia: "text" | "tool";
  /** From the `Instruction:` line ("" for `(none)`; undefined when the prompt has none). */
  instruction: string | undefined;
  /** Names from the `Variables:` line, without %. */
  variables: string[];
  /** Lines between Instruction/Variables and Page (two-step / self-heal notes). */
  note: string | undefined;
  /** The `Page:` URL. */
  url: string | undefined;
  /** The snapshot outline after the `Page:` line. */
  snapshot: string;
  systemText: string;
  /** Every user message's text, joined by blank lines (retry feedback included). */
  userText: string;
  messages: Array<{ role: string; text: string }>;
  /** What the server answered (set once answered). `text` is the reply text for a 200. */
  response?: { status: number; text?: string; usage?: FakeUsage };
}

type Obj = Record<string, unknown>;
type ReplyUsage = Partial<FakeUsage>;

export type FakeReplyValue =
  /** Return `value` as the structured JSON (use when the object itself has a `kind` field). */
  | { kind: "object"; value: unknown; usage?: ReplyUsage }
  /** Return raw text as the reply (for Anthropic + forced tool: a tool_use if it is a JSON object, else a text block). */
  | { kind: "json"; text: string; usage?: ReplyUsage }
  /** A reply that is not valid JSON. */
  | { kind: "malformed"; text?: string; usage?: ReplyUsage }
  /** An HTTP error in the provider's error format. `body` replaces the default error body. */
  | { kind: "status"; status: number; headers?: Record<string, string>; body?: unknown }
  /** Answer automatically (useful from a function). */
  | { kind: "auto"; usage?: ReplyUsage }
  /** Wait, then answer with `then` (default: auto). Lets a test hit timeouts or abort mid-call. */
  | { kind: "delay"; ms: number; then?: FakeReply }
  /** Drop the connection without answering (a network error; SDKs retry these). */
  | { kind: "disconnect" }
  /**
   * Never answer: the connection stays open until the client gives up (an endpoint that accepted the
   * request and hangs). `afterHeaders`: send the 200 headers first, then stall the body.
   */
  | { kind: "hang"; afterHeaders?: boolean }
  /**
   * A computer-use reply (JSON only) in the request's wire format: `actions` are OpenAI `computer_call`
   * actions ({type: "click", x, y, …}) or Anthropic computer tool inputs ({action: "left_click", coordinate, …});
   * `text` adds a message / text block. With no actions it is a final message.
   */
  | { kind: "computer"; actions: Obj[]; text?: string; usage?: ReplyUsage };

export type FakeReplyFn = (req: FakeRequest, auto: () => unknown) => FakeReply | undefined | Promise<FakeReply | undefined>;
/** A plain object is returned as the structured JSON; see FakeReplyValue for the rest. */
export type FakeReply = FakeReplyValue | FakeReplyFn | Obj;

export interface FakeModelOptions {
  /** Fixed delay before every answer (default 0). Can be changed later through `fake.latencyMs`. */
  latencyMs?: number;
  /**
   * Add `retry-after-ms: 1` to error replies (default true) so SDK retries don't sleep their default
   * 0.5–8 s backoff. A reply's own headers are sent as well (and win when they set the same header).
   */
  fastRetry?: boolean;
}

export type BaseURLKind = "openai" | "responses" | "chat" | "anthropic" | "azure";

export interface FakeModel {
  readonly port: number;
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  readonly requests: FakeRequest[];
  /** Replies still queued. */
  readonly queued: number;
  latencyMs: number;
  /**
   * The base URL a client is given: openai/responses/chat → `ORIGIN[prefix]/v1`; anthropic → `ORIGIN[prefix]`
   * (the Anthropic SDK adds `/v1/messages`); azure → `ORIGIN[prefix]` as the resource endpoint (AzureOpenAI adds `/openai`).
   */
  baseURL(kind?: BaseURLKind, prefix?: string): string;
  /** Queue replies, consumed one per request in order; an empty queue answers automatically. */
  script(...replies: FakeReply[]): void;
  /**
   * How the server answers when the queue is empty (default: automatically): a server's behaviour for a
   * whole test, e.g. a local server's quirks (./fake-model/local-servers.ts). Cleared by reset().
   */
  mode: FakeReply | undefined;
  /** Requests for one operation (`act`, `observe`, `extract`…). */
  requestsFor(operation: string): FakeRequest[];
  /** Forget recorded requests and queued replies. */
  reset(): void;
  close(): Promise<void>;
}

const CONTROL_KINDS = new Set(["object", "json", "malformed", "status", "auto", "delay", "disconnect", "hang", "computer"]);
const DEFAULT_MALFORMED = 'Sure! Here is the element you asked for: {ref: e1, method: "click"';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of req) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.writableEnded) return;
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(text);
}

export async function startFakeModel(options: FakeModelOptions = {}): Promise<FakeModel> {
  const requests: FakeRequest[] = [];
  const queue: FakeReply[] = [];
  const fastRetry = options.fastRetry ?? true;

  async function answer(res: ServerResponse, rec: FakeRequest, norm: NormalizedRequest, reply: FakeReply | undefined): Promise<void> {
    const auto = (): unknown => autoAnswer({ operation: rec.operation, schema: rec.schema, promptText: norm.promptText });
    for (let hops = 0; typeof reply === "function" && hops < 10; hops++) reply = await (reply as FakeReplyFn)(rec, auto);
    const r = (reply ?? { kind: "auto" }) as Obj;
    const kind = typeof r.kind === "string" && CONTROL_KINDS.has(r.kind) ? (r.kind as FakeReplyValue["kind"]) : undefined;
    if (kind === "delay") {
      await sleep(Number(r.ms) || 0);
      return answer(res, rec, norm, r.then as FakeReply | undefined);
    }
    if (kind === "hang") {
      rec.response = { status: 0 };
      if (r.afterHeaders) {
        res.writeHead(200, { "content-type": "application/json", ...requestIdHeader(rec.format) });
        res.write("{");
      }
      await new Promise<void>((resolve) => res.once("close", () => resolve()));
      return;
    }
    if (kind === "disconnect") {
      rec.response = { status: 0 };
      res.socket?.destroy();
      return;
    }
    if (kind === "status") {
      const status = Number(r.status);
      const headers = { ...(fastRetry ? { "retry-after-ms": "1" } : {}), ...requestIdHeader(rec.format), ...((r.headers as Record<string, string>) ?? {}) };
      rec.response = { status };
      sendJson(res, status, r.body ?? errorBody(rec.format, status), headers);
      return;
    }
    if (kind === "computer") {
      const actions = (r.actions as Obj[]) ?? [];
      const text = typeof r.text === "string" ? r.text : "";
      const usage: FakeUsage = { input: inputTokens(norm), output: Math.ceil((JSON.stringify(actions).length + text.length) / 4), cached: 0, reasoning: 0, ...((r.usage as ReplyUsage) ?? {}) };
      rec.response = { status: 200, text: JSON.stringify({ actions, text }), usage };
      sendJson(res, 200, computerResponse(rec.format, norm, rec.body, actions, text, usage), requestIdHeader(rec.format));
      return;
    }
    let text: string;
    if (kind === "json") text = String(r.text);
    else if (kind === "malformed") text = typeof r.text === "string" ? r.text : DEFAULT_MALFORMED;
    else if (kind === "object") text = JSON.stringify(r.value);
    else if (kind === "auto") text = JSON.stringify(auto());
    else text = JSON.stringify(r);
    const usage: FakeUsage = { input: inputTokens(norm), output: Math.ceil(text.length / 4), cached: 0, reasoning: 0, ...(kind ? ((r.usage as ReplyUsage) ?? {}) : {}) };
    rec.response = { status: 200, text, usage };
    if (res.destroyed) return;
    if (!rec.stream) {
      sendJson(res, 200, jsonResponse(rec.format, norm, rec.body, { text, usage }), requestIdHeader(rec.format));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", ...requestIdHeader(rec.format) });
    for (const frame of streamResponse(rec.format, norm, rec.body, { text, usage })) res.write(frame);
    res.end();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const format = detectFormat(url.pathname);
    const raw = await readBody(req);
    // A client that gave up while its request was still arriving (an abort) must not take a scripted reply:
    // its handler would otherwise finish later and steal the reply scripted for the next request.
    if (req.socket.destroyed) return;
    if (!format || req.method !== "POST") {
      sendJson(res, 404, errorBody(format ?? "chat", 404, `fake model: no route for ${req.method} ${url.pathname}`));
      return;
    }
    let body: Record<string, any>;
    try {
      body = JSON.parse(raw) as Record<string, any>;
    } catch {
      sendJson(res, 400, errorBody(format, 400, "fake model: the request body is not JSON"));
      return;
    }
    const norm = normalizeRequest(format, body, url.pathname);
    const prompt = parsePrompt(norm.promptText);
    const rec: FakeRequest = {
      index: requests.length,
      method: req.method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      format,
      headers: req.headers,
      body,
      model: norm.model,
      stream: norm.stream,
      operation: norm.operation,
      schema: norm.schema,
      jsonVia: norm.jsonVia,
      instruction: prompt.instruction,
      variables: prompt.variables,
      note: prompt.note,
      url: prompt.url,
      snapshot: prompt.snapshot,
      systemText: norm.systemText,
      userText: norm.userText,
      messages: norm.messages,
    };
    requests.push(rec);
    const reply = queue.shift() ?? fake.mode;
    if (fake.latencyMs > 0) await sleep(fake.latencyMs);
    await answer(res, rec, norm, reply);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `fake model crashed: ${(e as Error)?.stack ?? String(e)}`, type: "server_error", param: null, code: null } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;

  const fake: FakeModel = {
    port,
    origin,
    requests,
    get queued() {
      return queue.length;
    },
    latencyMs: options.latencyMs ?? 0,
    mode: undefined,
    baseURL(kind: BaseURLKind = "openai", prefix = "") {
      const p = prefix && !prefix.startsWith("/") ? `/${prefix}` : prefix.replace(/\/+$/, "");
      return kind === "anthropic" || kind === "azure" ? `${origin}${p}` : `${origin}${p}/v1`;
    },
    script(...replies: FakeReply[]) {
      queue.push(...replies);
    },
    requestsFor(operation: string) {
      return requests.filter((r) => r.operation === operation);
    },
    reset() {
      requests.length = 0;
      queue.length = 0;
      fake.mode = undefined;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
