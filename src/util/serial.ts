/**
 * One operation at a time: a FIFO lock. A page holds one, so an act sent during a navigation waits and then works on
 * the new document instead of a half-replaced one. Re-entrant through async context: work already holding the lock
 * (an agent's goto, a navigation inside an act) runs straight through.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { abortable } from "./abort.js";

const held = new AsyncLocalStorage<ReadonlySet<SerialLock>>();

export class SerialLock {
  private tail: Promise<void> = Promise.resolve();

  /**
   * Runs `work` after everything queued before it; a signal that aborts while it waits takes it out of the
   * line. Work whose signal aborted gives up its turn when it settles or ABANDON_MS after the abort, whichever
   * comes first: work stuck in a call the page never answers does not hold every later operation with it.
   */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const mine = held.getStore();
    if (mine?.has(this)) return work();
    const before = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((r) => (release = r));
    try {
      await abortable(before, signal);
    } catch (e) {
      // Whoever waits behind an aborted waiter still waits for the ones before it.
      void before.then(release, release);
      throw e;
    }
    let running: Promise<T>;
    try {
      running = Promise.resolve(held.run(new Set([...(mine ?? []), this]), work));
    } catch (e) {
      // Work that throws before it returns a promise (a bad option found at once) gives the turn back too.
      running = Promise.reject(e);
    }
    void settledOrAbandoned(running, signal).then(release);
    return running;
  }
}

/** How long work whose signal aborted keeps its turn while it winds down. */
export const ABANDON_MS = 2000;

function settledOrAbandoned(running: Promise<unknown>, signal: AbortSignal | undefined): Promise<unknown> {
  const settled = running.then(
    () => {},
    () => {},
  );
  if (!signal) return settled;
  const abandoned = new Promise<void>((resolve) => {
    const later = () => setTimeout(resolve, ABANDON_MS).unref();
    if (signal.aborted) later();
    else signal.addEventListener("abort", later, { once: true });
    void settled.then(() => signal.removeEventListener("abort", later));
  });
  return Promise.race([settled, abandoned]);
}
