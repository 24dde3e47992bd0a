/**
 * Helpers for the `svc serve` session-API tests: raw HTTP calls with the auth header, SSE parsing, and the
 * check that no Chrome a test started is left running (test/support/process.ts).
 */
import type { RunningServer } from "../../src/server/index.js";
export { expectNoChrome } from "./process.js";

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface CallOptions {
  /** The x-bb-api-key to send; null sends none. */
  key?: string | null;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Another server than the client's default. */
  srv?: RunningServer;
}

export interface SseEvent {
  /** The `event:` line (absent in data-only framing). */
  event: string | undefined;
  data: { id: string; type: "system" | "log"; data: any };
}

/** Blank-line separated SSE blocks: `event:` and `data:` lines (data lines joined). */
export function parseSse(text: string): SseEvent[] {
  return text
    .split("\n\n")
    .filter((b) => b.trim())
    .map((block) => {
      let event: string | undefined;
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data.push(line.slice(6));
      }
      return { event, data: JSON.parse(data.join("\n")) };
    });
}

/** An HTTP client for `/v1` of a server (the default one is read lazily: it starts in beforeAll). */
export function apiClient(defaults: { server: () => RunningServer; key: string }) {
  async function call(method: string, path: string, body?: unknown, o: CallOptions = {}): Promise<Response> {
    const headers: Record<string, string> = {
      ...(o.key === null ? {} : { "x-bb-api-key": o.key ?? defaults.key }),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...o.headers,
    };
    return fetch(`${(o.srv ?? defaults.server()).url}/v1${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}), ...(o.signal ? { signal: o.signal } : {}) });
  }

  async function json(method: string, path: string, body?: unknown, o: CallOptions = {}): Promise<{ status: number; body: any; headers: Headers }> {
    const res = await call(method, path, body, o);
    return { status: res.status, body: await res.json(), headers: res.headers };
  }

  /** A POST with `x-stream-response: true`, read to the end. */
  async function stream(path: string, body: unknown, o: CallOptions = {}): Promise<{ status: number; type: string | null; events: SseEvent[]; text: string }> {
    const res = await call("POST", path, body, { ...o, headers: { "x-stream-response": "true", ...o.headers } });
    const text = await res.text();
    return { status: res.status, type: res.headers.get("content-type"), events: parseSse(text), text };
  }

  return { call, json, stream };
}
