/**
 * One operation at a time: a FIFO lock. A page holds one, so an act sent while a navigation runs waits
 * for it and then works on the new document, instead of reading a half-replaced one (`invalid CSS
 * selector`, `Cannot find context with specified id`). Re-entrant through async context: work already
 * holding the lock (an agent's goto tool inside its run, a navigation inside an act) runs straight through.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { abortable } from "./abort.js";

const held = new AsyncLocalStorage<ReadonlySet<SerialLock>>();

export class SerialLock {
  private tail: Promise<void> = Promise.resolve();

  /** Runs `work` after everything queued before it; a signal that aborts while it waits takes it out of the line. */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const mine = held.getStore();
    if (mine?.has(this)) return work();
    const before = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((r) => (release = r));
    try {
      await abortable(before, signal);
      return await held.run(new Set([...(mine ?? []), this]), work);
    } finally {
      // Whoever waits behind an aborted waiter still waits for the ones before it.
      void before.then(release);
    }
  }
}
