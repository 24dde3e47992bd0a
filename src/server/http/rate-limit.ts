/**
 * Per-key request limits: a rate (search, fetch, the Model Gateway) and requests in flight (the Gateway, whose
 * answers stream as long as the model writes). A sliding window, so a burst cannot get twice the limit across a
 * window boundary as a fixed window allows. Memory is bounded: at most `limit` timestamps per key, and keys are the
 * server's configured ones.
 */
import type { MiddlewareHandler } from "hono";
import type { Owner } from "../tenant.js";
import { HttpError } from "./errors.js";

export type RateDecision = { ok: true } | { ok: false; retryAfterS: number };

export class RateLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    readonly limit: number,
    readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`rate limit must be a whole number ≥ 1, got ${limit}`);
  }

  /** Counts one request for `key` if a slot is free; otherwise says how many seconds until one frees. */
  take(key: string): RateDecision {
    const t = this.now();
    const times = (this.hits.get(key) ?? []).filter((at) => at > t - this.windowMs);
    if (times.length >= this.limit) {
      this.hits.set(key, times);
      // The oldest request in the window leaves it first; that frees the next slot.
      const oldest = times[0] ?? t;
      return { ok: false, retryAfterS: Math.max(1, Math.ceil((oldest + this.windowMs - t) / 1000)) };
    }
    times.push(t);
    this.hits.set(key, times);
    return { ok: true };
  }
}

/**
 * Hono middleware: one limiter per route family (search and fetch count separately), keyed by the
 * request's owner (its API key's fingerprint, set by apiKeyAuth). Past the limit: 429 in the error
 * envelope with Retry-After.
 */
export function rateLimit(limiter: RateLimiter, what: string, setting?: string): MiddlewareHandler<{ Variables: { owner: Owner } }> {
  return async (c, next) => {
    const decision = limiter.take(c.get("owner"));
    if (!decision.ok) {
      const per = limiter.windowMs === 60_000 ? "minute" : `${limiter.windowMs / 1000} s`;
      throw new HttpError(
        429,
        `rate limit: ${limiter.limit} ${what} requests per ${per} per API key${setting ? ` (${setting})` : ""}; retry in ${decision.retryAfterS} s`,
        { "retry-after": String(decision.retryAfterS) },
      );
    }
    await next();
  };
}

/**
 * Requests in flight per key: `take` counts one (or refuses past `limit`), the release it returns gives it
 * back (calling it again does nothing). Memory: one counter per key holding requests.
 */
export class InFlightLimiter {
  private readonly held = new Map<string, number>();

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`in-flight limit must be a whole number ≥ 1, got ${limit}`);
  }

  take(key: string): (() => void) | undefined {
    const n = this.held.get(key) ?? 0;
    if (n >= this.limit) return undefined;
    this.held.set(key, n + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = (this.held.get(key) ?? 1) - 1;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
    };
  }

  inFlight(key: string): number {
    return this.held.get(key) ?? 0;
  }
}

/** How long a client refused by an InFlightLimiter is told to wait: one model call's typical length. */
const IN_FLIGHT_RETRY_AFTER_S = 2;

/** The 429 of a full InFlightLimiter, naming the limit and the setting that raises it. */
export function tooManyInFlight(limiter: InFlightLimiter, what: string, setting: string): HttpError {
  return new HttpError(429, `concurrency limit: ${limiter.limit} ${what} requests in flight per API key (${setting}); retry in ${IN_FLIGHT_RETRY_AFTER_S} s`, { "retry-after": String(IN_FLIGHT_RETRY_AFTER_S) }, "CONCURRENCY_LIMIT");
}
