/**
 * Who holds each platform session: its CDP clients and attached session-API Services. When the last leaves,
 * `onAbandoned` runs after `graceMs` unless someone returned, so a script that never releases a session without
 * keepAlive does not leave Chrome running until its timeout. Counting starts with the first client.
 */
export class SessionClients {
  private readonly counts = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly graceMs: number,
    private readonly onAbandoned: (id: string) => void,
  ) {}

  /** One more client of session `id`; the function returned says it left (once; later calls do nothing). */
  join(id: string): () => void {
    this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
    this.cancel(id);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const n = Math.max(0, (this.counts.get(id) ?? 1) - 1);
      if (!this.counts.has(id)) return; // forgotten: the session ended meanwhile
      this.counts.set(id, n);
      if (n > 0) return;
      const timer = setTimeout(() => {
        this.timers.delete(id);
        if (this.counts.get(id) === 0) this.onAbandoned(id);
      }, this.graceMs);
      timer.unref();
      this.timers.set(id, timer);
    };
  }

  /** How many hold session `id` now. */
  count(id: string): number {
    return this.counts.get(id) ?? 0;
  }

  /** The session ended: nothing more to count or wait for. */
  forget(id: string): void {
    this.cancel(id);
    this.counts.delete(id);
  }

  private cancel(id: string): void {
    const timer = this.timers.get(id);
    if (timer) clearTimeout(timer);
    this.timers.delete(id);
  }
}
