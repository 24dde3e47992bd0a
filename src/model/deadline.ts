/**
 * The deadline of one model request. The SDKs' `timeout` only covers an attempt until the headers arrive, so an
 * endpoint that stalls its body would hold the call forever. The fetch they get reads the whole body before
 * returning, so the SDK's timer covers the last byte and a stalled body is a timed-out attempt it retries. Requests
 * are never streamed, so nothing is lost.
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
