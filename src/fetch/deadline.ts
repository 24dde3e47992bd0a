/** One AbortController for a fetch: aborted by its deadline or by the caller's signal; `timedOut` says which. */
export interface Deadline {
  readonly controller: AbortController;
  readonly timedOut: boolean;
  /** Clears the timer and unlinks the caller's signal. */
  dispose(): void;
}

export function startDeadline(timeoutMs: number, signal: AbortSignal | undefined): Deadline {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = () => controller.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) controller.abort();
  return {
    controller,
    get timedOut() {
      return timedOut;
    },
    dispose() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    },
  };
}
