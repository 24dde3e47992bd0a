/**
 * HTTP 429 handling for the search and fetch clients (docs/wire-formats.md "Errors": "the caller backs off and
 * retries"): wait as long as the server's Retry-After says (seconds or an HTTP date), else 1 s, 2 s, 4 s …;
 * a bounded number of attempts, then ServiceRateLimitError. A server asking for a longer wait than the cap
 * gets the error at once (waiting less than asked would only earn another 429).
 */
import { ServiceRateLimitError } from "../errors.js";
import { sleep } from "../util/abort.js";

export interface BackoffOptions {
  /** Requests in all, the first included. Default 4. */
  maxAttempts?: number;
  /** The first wait when the server gives no Retry-After; doubled each time. Default 1000 ms. */
  baseDelayMs?: number;
  /** The longest wait. Default 30 000 ms. */
  maxDelayMs?: number;
}

const DEFAULT_BACKOFF: Required<BackoffOptions> = { maxAttempts: 4, baseDelayMs: 1000, maxDelayMs: 30_000 };

/** Retry-After as milliseconds from `now`: delta-seconds (fractions accepted) or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null | undefined, now = Date.now()): number | undefined {
  const v = header?.trim();
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Sends with `send` until the answer is not a 429; returns that answer (any status: the caller maps
 * errors). `what` names the request in the error (`search at https://…`).
 */
export async function withBackoff(what: string, send: () => Promise<Response>, options: BackoffOptions = {}, signal?: AbortSignal): Promise<Response> {
  const o = { ...DEFAULT_BACKOFF, ...options };
  const attempts = Math.max(1, Math.floor(o.maxAttempts));
  for (let attempt = 1; ; attempt++) {
    const res = await send();
    if (res.status !== 429) return res;
    await res.body?.cancel().catch(() => {});
    const asked = retryAfterMs(res.headers.get("retry-after"));
    const wait = asked ?? Math.min(o.baseDelayMs * 2 ** (attempt - 1), o.maxDelayMs);
    const hint = "wait a little before trying again, or send fewer requests per minute";
    if (asked !== undefined && asked > o.maxDelayMs) {
      throw new ServiceRateLimitError(`${what}: rate limited (HTTP 429); the server asks to wait ${Math.ceil(asked / 1000)} s`, { hint });
    }
    if (attempt >= attempts) {
      throw new ServiceRateLimitError(`${what}: still rate limited (HTTP 429) after ${attempts} attempt${attempts === 1 ? "" : "s"}${asked !== undefined ? `; the server asks to wait ${Math.ceil(asked / 1000)} s` : ""}`, { hint });
    }
    await sleep(wait, signal, "aborted while waiting to retry");
  }
}
