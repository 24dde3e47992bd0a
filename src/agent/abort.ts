/** Cancellation helpers for a run: work raced against the run's (or a tool's) AbortSignal. */

/** Thrown when the run's signal aborts (user abort, timeoutMs); the run ends with a clean result. */
export class Stopped extends Error {}

/** Resolves like `p`, or rejects with Stopped as soon as the signal aborts (`p` is left to finish on its own). */
export function untilAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    p.catch(() => {});
    return Promise.reject(new Stopped());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Stopped());
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => (signal.removeEventListener("abort", onAbort), resolve(v)),
      (e: unknown) => (signal.removeEventListener("abort", onAbort), reject(e)),
    );
  });
}
