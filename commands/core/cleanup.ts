/**
 * What must happen before the CLI exits early (Ctrl-C, SIGTERM, a fatal error): close a one-shot browser, disconnect,
 * drop a half-made session. Commands register a cleanup while they hold such a resource; main.ts runs what remains on
 * a signal, the session host when a command's client goes away (`commandSignal()` stops the command's own work).
 */
type Cleanup = () => unknown;

const cleanups = new Set<Cleanup>();
let command = new AbortController();

/** Aborted once the running command is interrupted (its cleanups run): long work stops at its next look. */
export function commandSignal(): AbortSignal {
  return command.signal;
}

/** A new command begins (the session host runs one after another in one process). */
export function beginCommand(): void {
  command = new AbortController();
}

export function registerCleanup(fn: Cleanup): () => void {
  cleanups.add(fn);
  return () => {
    cleanups.delete(fn);
  };
}

/** Run every registered cleanup (latest first), each at most once, bounded by `timeoutMs` overall. */
export async function runCleanups(timeoutMs = 5000): Promise<void> {
  command.abort();
  const pending = [...cleanups].reverse();
  cleanups.clear();
  const all = (async () => {
    for (const fn of pending) {
      try {
        await fn();
      } catch {
        // best effort: the next cleanup still runs
      }
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([all, new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)))]);
  if (timer) clearTimeout(timer);
}
