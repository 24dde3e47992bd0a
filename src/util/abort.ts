/**
 * The one cancellation helper: every operation runs under one Cancellation (Playwright's Progress, reduced), a signal
 * aborted by the caller or the deadline, handed from the face down to the CDP call. Waits, races and loops reject
 * with its reason: ServiceTimeoutError past the deadline, ServiceAbortedError when stopped. `withChildSignal` gives a
 * leaky client (model SDKs) its own signal per request.
 */
import { ServiceAbortedError, ServiceError, ServiceTimeoutError } from "../errors.js";

/** The error an aborted signal stands for: its reason when that is a ServiceError, else ServiceAbortedError. */
export function abortError(signal: AbortSignal, what = "the operation was stopped"): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof ServiceError) return reason;
  const why = reason instanceof Error && reason.name !== "AbortError" ? reason.message : typeof reason === "string" ? reason : "";
  return new ServiceAbortedError(why ? `${what}: ${why}` : what);
}

export function throwIfAborted(signal: AbortSignal | undefined, what?: string): void {
  if (signal?.aborted) throw abortError(signal, what);
}

/** Settles like `work`, or rejects with the abort's error as soon as the signal aborts (`work` is left to end on its own). */
export function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined, what?: string): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(abortError(signal, what));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal, what));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (v) => (signal.removeEventListener("abort", onAbort), resolve(v)),
      (e: unknown) => (signal.removeEventListener("abort", onAbort), reject(e)),
    );
  });
}

/** Resolves after `ms`; rejects with the abort's error when the signal aborts first. */
export function sleep(ms: number, signal?: AbortSignal, what?: string): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortError(signal, what));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal!, what));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The same error class as `e` with `detail` added to its message (what the stopped work had done). */
export function withDetail(e: Error, detail: string): Error {
  if (!(e instanceof ServiceError)) return new ServiceAbortedError(`${e.message} (${detail})`, { cause: e });
  const Kind = e.constructor as new (message: string, options?: { cause?: unknown }) => ServiceError;
  const copy = new Kind(`${e.message} (${detail})`, { cause: e });
  return copy;
}

/** The caller's signal, for option shapes of calls that can be stopped (they extend it instead of re-declaring it). */
export interface Abortable {
  /** Aborting it stops the call: it rejects with ABORTED (or the signal's reason, when that is a ServiceError). */
  signal?: AbortSignal | undefined;
}

/** The caller's signal and a timeout: the options fragment of every call with both. */
export interface CallOptions extends Abortable {
  /** Milliseconds the call may take; past them it rejects with TIMEOUT. */
  timeoutMs?: number | undefined;
}

export interface CancellationOptions extends Abortable {
  /** Milliseconds from now; the signal then aborts with ServiceTimeoutError. */
  timeout?: number | undefined;
  /** Names the work in the timeout's message ("act did not finish within 300 ms"). */
  what?: string;
  /** The timeout's error, when the call words it itself (it then replaces the message built from `what`). */
  timeoutError?: () => ServiceError;
}

/** One call's cancellation: one signal (the caller's abort or the deadline) and the deadline, handed down. */
export class Cancellation {
  readonly signal: AbortSignal;
  /** Epoch ms, when there is a timeout. */
  readonly deadline: number | undefined;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly parent: AbortSignal | undefined;
  private expired = false;
  // The reason is always a ServiceError, one object: every waiter rejects with the same error.
  private readonly onParentAbort = () => this.controller.abort(abortError(this.parent!));

  constructor(options: CancellationOptions = {}) {
    this.signal = this.controller.signal;
    this.parent = options.signal;
    const { timeout } = options;
    if (timeout !== undefined) {
      this.deadline = Date.now() + timeout;
      const timeoutError = options.timeoutError ?? (() => new ServiceTimeoutError(`${options.what ?? "the operation"} did not finish within ${timeout} ms`));
      this.timer = setTimeout(() => {
        this.expired = true;
        this.controller.abort(timeoutError());
      }, timeout);
    }
    if (this.parent?.aborted) this.onParentAbort();
    else this.parent?.addEventListener("abort", this.onParentAbort, { once: true });
  }

  get aborted(): boolean {
    return this.signal.aborted;
  }

  /** True when the deadline passed (rather than the caller stopping the call). */
  get timedOut(): boolean {
    return this.expired;
  }

  abort(reason?: unknown): void {
    this.controller.abort(reason instanceof ServiceError ? reason : new ServiceAbortedError(reason instanceof Error ? reason.message : "the operation was stopped"));
  }

  /** Ends the timer and unlinks the caller's signal (call when the work settled). */
  dispose(): void {
    clearTimeout(this.timer);
    this.parent?.removeEventListener("abort", this.onParentAbort);
  }

  /**
   * Runs `work` under this cancellation. On abort it still waits (at most `graceMs`) for the work to stop —
   * it sees the same signal, so it stops between two steps — then rejects with the abort's error (with what
   * the work reported having done, when it did). Nothing runs on after the caller was told it stopped.
   */
  async run<T>(work: (signal: AbortSignal, deadline: number | undefined) => Promise<T>, graceMs = 2000): Promise<T> {
    const running = Promise.resolve().then(() => work(this.signal, this.deadline));
    try {
      return await abortable(running, this.signal);
    } catch (e) {
      if (!this.signal.aborted) throw e;
      const ended = await Promise.race([running.then(() => undefined, (x: unknown) => x), sleep(graceMs).then(() => undefined)]);
      // The work's own error, when it says what was done before it stopped (e.g. how many keys were typed).
      if (ended instanceof ServiceError && ended.cause === abortError(this.signal)) throw ended;
      throw abortError(this.signal);
    } finally {
      this.dispose();
    }
  }
}

/**
 * Settles like `work`, or rejects with `timeoutError()` once `ms` passed, or with the abort's error when
 * `signal` aborts first (`work` is left to end on its own); the timer is cleared either way.
 */
export function within<T>(work: Promise<T>, ms: number, timeoutError: () => ServiceError, signal?: AbortSignal): Promise<T> {
  const call = new Cancellation({ signal, timeout: ms, timeoutError });
  return abortable(work, call.signal).finally(() => call.dispose());
}

/**
 * Runs `fn` with a signal of its own that follows `parent`, unlinked from it when `fn` settles. For clients
 * (the model SDKs) that add an abort listener to every request's signal and never remove it: a run passing
 * its one signal to every request would pile up listeners (Node warns past 10).
 */
export async function withChildSignal<T>(parent: AbortSignal | undefined, fn: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
  if (!parent) return fn(undefined);
  const child = new AbortController();
  const onAbort = () => child.abort(parent.reason);
  if (parent.aborted) child.abort(parent.reason);
  else parent.addEventListener("abort", onAbort, { once: true });
  try {
    return await fn(child.signal);
  } finally {
    parent.removeEventListener("abort", onAbort);
  }
}
