/**
 * The session API (docs/wire-formats.md "Session API"): start a session, run act/extract/observe/navigate/agentExecute on
 * it with streamed logs (SSE, parsed with eventsource-parser), end it, read its replay. Operations always
 * stream: logs arrive while the work runs, and a dropped connection aborts the run server-side.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { errorFromCode, ServiceAbortedError, ServiceApiError } from "../errors.js";
import type { ApiClient } from "./http.js";
import type { Abortable } from "../util/abort.js";

export interface RemoteLogLine {
  category?: string;
  message: string;
  level?: number;
  auxiliary?: Record<string, unknown>;
}

export interface StartRequest {
  modelName: string;
  domSettleTimeoutMs?: number;
  verbose?: 0 | 1 | 2;
  systemPrompt?: string;
  selfHeal?: boolean;
  browserbaseSessionID?: string;
  browserbaseSessionCreateParams?: Record<string, unknown>;
  browser?: { type: "local" | "browserbase"; cdpUrl?: string; launchOptions?: Record<string, unknown> };
}

export interface StartResponse {
  sessionId: string;
  available: boolean;
  cdpUrl?: string;
}

export interface ReplayAction {
  method: string;
  parameters?: unknown;
  result?: unknown;
  timestamp?: number | string;
  endTime?: number | string;
  tokenUsage?: { inputTokens?: number; outputTokens?: number; reasoningTokens?: number; cachedInputTokens?: number; timeMs?: number };
}

export interface Replay {
  pages: { url: string; timestamp?: number | string; duration?: number; actions: ReplayAction[] }[];
}

export interface CallOptions extends Abortable {
  /** The model provider key for this call (`x-model-api-key`). */
  modelApiKey?: string | undefined;
  /** false: `browserbase-cache-bypass: true`. */
  cache?: boolean;
  onLog?: (line: RemoteLogLine) => void;
}

export interface OperationResult<T> {
  result: T;
  actionId: string | undefined;
  cacheStatus: "HIT" | "MISS" | undefined;
  /** Whatever else the finished event's data held (agentExecute's cacheEntry). */
  data: Record<string, unknown>;
}

export type Operation = "act" | "extract" | "observe" | "navigate" | "agentExecute";

type Envelope<T> = { success: boolean; data: T; message?: string };

export class SessionApi {
  constructor(private readonly api: ApiClient) {}

  async start(body: StartRequest, options: { modelApiKey?: string | undefined } = {}): Promise<StartResponse> {
    const env = await this.api.json<Envelope<StartResponse>>("/sessions/start", { body, headers: keyHeader(options.modelApiKey) });
    if (!env?.data || typeof env.data.sessionId !== "string") throw new ServiceApiError(200, "session start: the answer has no sessionId");
    return env.data;
  }

  async end(sessionId: string): Promise<void> {
    await this.api.json(`/sessions/${encodeURIComponent(sessionId)}/end`, { method: "POST", body: {} });
  }

  async replay(sessionId: string): Promise<Replay> {
    const env = await this.api.json<Envelope<Replay>>(`/sessions/${encodeURIComponent(sessionId)}/replay`);
    return { pages: Array.isArray(env?.data?.pages) ? env.data.pages : [] };
  }

  /** Runs one operation, streaming: logs go to `onLog` as they come; resolves with the `finished` result. */
  async run<T>(sessionId: string, op: Operation, body: Record<string, unknown>, options: CallOptions = {}): Promise<OperationResult<T>> {
    const res = await this.api.request(`/sessions/${encodeURIComponent(sessionId)}/${op}`, {
      body,
      streaming: true,
      headers: { "x-stream-response": "true", "x-bb-session-id": sessionId, ...keyHeader(options.modelApiKey), ...(options.cache === false ? { "browserbase-cache-bypass": "true" } : {}) },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const header = res.headers.get("browserbase-cache-status");
    const headerStatus = header === "HIT" || header === "MISS" ? header : undefined;
    if (!res.headers.get("content-type")?.includes("text/event-stream")) {
      // A server that answered with plain JSON despite the stream header.
      const env = (await res.json()) as Envelope<{ result: T; actionId?: string }>;
      return { result: env.data.result, actionId: env.data.actionId, cacheStatus: headerStatus, data: env.data as Record<string, unknown> };
    }
    return readStream<T>(res, op, headerStatus, options);
  }
}

function keyHeader(key: string | undefined): Record<string, string> {
  return key ? { "x-model-api-key": key } : {};
}

async function readStream<T>(res: Response, op: Operation, headerStatus: "HIT" | "MISS" | undefined, options: CallOptions): Promise<OperationResult<T>> {
  let outcome: { ok: true; value: OperationResult<T> } | { ok: false; error: Error } | undefined;
  const parser = createParser({
    onEvent(ev: EventSourceMessage) {
      if (outcome) return;
      let msg: { type?: string; data?: Record<string, unknown> };
      try {
        msg = JSON.parse(ev.data) as typeof msg;
      } catch {
        outcome = { ok: false, error: new ServiceApiError(200, `${op}: the server sent an event that is not JSON`) };
        return;
      }
      const data = msg.data ?? {};
      if (msg.type === "log") {
        const line = data.message as RemoteLogLine | undefined;
        if (line && typeof line === "object" && typeof line.message === "string") options.onLog?.(line);
        return;
      }
      if (data.status === "finished") {
        const cacheHit = typeof data.cacheHit === "boolean" ? (data.cacheHit ? "HIT" : "MISS") : undefined;
        outcome = { ok: true, value: { result: data.result as T, actionId: typeof data.actionId === "string" ? data.actionId : undefined, cacheStatus: headerStatus ?? cacheHit, data } };
      } else if (data.status === "error") {
        outcome = { ok: false, error: errorFromCode(typeof data.code === "string" ? data.code : undefined, typeof data.error === "string" ? data.error : `${op} failed`) };
      }
    },
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  try {
    while (!outcome) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(value);
    }
  } catch (e) {
    if (options.signal?.aborted) throw new ServiceAbortedError(`${op} was aborted`);
    throw new ServiceApiError(0, `${op}: the stream broke: ${(e as Error).message}`);
  } finally {
    void reader.cancel().catch(() => {});
  }
  if (!outcome) throw new ServiceApiError(200, `${op}: the stream ended without a finished or error event`);
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}
