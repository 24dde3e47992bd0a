/**
 * The deadline of one model request. Both SDKs bound an attempt by their `timeout` only until the response
 * headers arrive: an endpoint that sends headers and then stalls its body (a proxy, an overloaded server)
 * would hold the call forever. The fetch they are given reads the whole body before it returns, so the
 * SDK's timer covers the answer to its last byte, and a stalled body is a timed-out attempt the SDK
 * retries like any other. Requests here are never streamed, so nothing is lost by reading it at once.
 */
import type { FetchLike } from "./endpoint-policy.js";

/** Per attempt, unless the model config sets `timeoutMs`. */
export const DEFAULT_MODEL_TIMEOUT_MS = 60_000;

/** Statuses whose Response may carry no body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export function wholeBodyFetch(inner?: FetchLike): FetchLike {
  return async (input, init) => {
    const res = await (inner ?? globalThis.fetch)(input, init);
    const body = NULL_BODY.has(res.status) ? null : await res.arrayBuffer();
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** `60 s`, `1.5 s`, `100 ms`: a deadline as people say it. */
export function formatDeadline(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toFixed(1))} s` : `${ms} ms`;
}
