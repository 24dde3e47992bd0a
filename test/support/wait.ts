/**
 * Polling for an async effect instead of sleeping: the tests' one waitFor (light: no library import, so the
 * CLI tests, which spawn svc, can use it too).
 */
import { EVENT_WAIT_MS } from "./timing.js";

export type Truthy<T> = Exclude<T, false | 0 | "" | null | undefined>;

/**
 * Polls `fn` until it returns a truthy value (returned) or `timeout` ms pass (throws with the last value/error).
 * The default is a bound on a hang (EVENT_WAIT_MS), not a measure of how soon.
 */
export async function waitFor<T>(fn: () => T | Promise<T>, timeout = EVENT_WAIT_MS, interval = 25): Promise<Truthy<T>> {
  const deadline = Date.now() + timeout;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as Truthy<T>;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`waitFor: condition not met within ${timeout} ms (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}

/** Polls until `read()` equals `expected`; returns the final value so the caller can `expect` on it. */
export async function waitForValue<T>(read: () => T | Promise<T>, expected: T, timeout = EVENT_WAIT_MS): Promise<T> {
  let value: T | undefined;
  try {
    await waitFor(async () => (value = await read()) === expected, timeout);
  } catch {
    // fall through: the caller's expect() shows the difference
  }
  return value as T;
}
