/**
 * A per-request signal that follows the caller's. The SDKs add an abort listener to the signal of every
 * request and never remove it, so an agent run passing its one signal to every step would pile up
 * listeners (Node warns past 10); each request gets a child signal instead, unlinked when it ends.
 */
export async function withRequestSignal<T>(parent: AbortSignal | undefined, fn: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
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
