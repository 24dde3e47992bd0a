/**
 * Admission control of one replica: a browser session takes a slot before its Chrome starts and returns it at the
 * end; at most `maxSessions`, then `maxQueued` waiting in order (`queueTimeoutMs` each), held back too while CPU or
 * memory is high (load.ts), else 429. Not p-limit or p-queue: a slot lives as long as a session, and they lack a
 * bounded queue with per-waiter timeout.
 */
import type { LoadReading } from "./load.js";
import { ClientGoneError, OverloadedError, ServerFailure, UnavailableError } from "../failures.js";

export interface AdmissionLimits {
  maxSessions: number;
  maxQueued: number;
  queueTimeoutMs: number;
  /** Percent of all cores busy above which no new session starts. */
  maxCpu?: number | undefined;
  /** Bytes of this process tree above which no new session starts. */
  maxMemoryBytes?: number | undefined;
}

/** Why a start would not get a slot at once: the replica drains, every slot is taken, or a load limit is passed. */
export type PressureReason = "draining" | "full" | "cpu" | "memory";

/** GET /v1/pressure. */
export interface Pressure {
  running: number;
  queued: number;
  maxSessions: number;
  maxQueued: number;
  /** Percent of all cores busy (machine-wide); null until measured. */
  cpu: number | null;
  /** Bytes held by this process tree (the server and its Chromes); null when unknown. */
  memory: number | null;
  maxCpu: number | null;
  maxMemory: number | null;
  /** Whether a start now would be accepted (at once, or into the queue). */
  available: boolean;
  /** Why a start now would not get a slot at once; null when it would. */
  reason: PressureReason | null;
  draining: boolean;
}

/** Given back when the session ends; calling it again does nothing. */
export type Release = () => void;

interface Waiter {
  admit(release: Release): void;
  refuse(e: ServerFailure): void;
}

const RETRY_AFTER_S = 5;

export function drainingError(): UnavailableError {
  return new UnavailableError("the server is draining (shutting down): it starts no new sessions; retry on another replica", { retryAfterS: RETRY_AFTER_S, code: "DRAINING" });
}

export class Admission {
  private running = 0;
  private readonly waiters: Waiter[] = [];
  private drainingSince: number | undefined;

  constructor(
    readonly limits: AdmissionLimits,
    private readonly load: () => LoadReading,
  ) {}

  get draining(): boolean {
    return this.drainingSince !== undefined;
  }

  /**
   * A slot for one browser session; resolves with its release once admitted. Rejects with 429 (queue full,
   * or waited queueTimeoutMs), 503 (draining), or the signal's reason when the client left while waiting.
   */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (this.draining) return Promise.reject(drainingError());
    this.pump();
    if (!this.waiters.length && !this.blocked()) return Promise.resolve(this.take());
    const { maxQueued, queueTimeoutMs } = this.limits;
    if (this.waiters.length >= maxQueued) return Promise.reject(tooMany(this.refusal(this.blocked() ?? "full"), "QUEUE_FULL"));
    if (signal?.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error("the client left"));
    return new Promise<Release>((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
      };
      const waiter: Waiter = {
        admit: (release) => (settle(), resolve(release)),
        refuse: (e) => (settle(), reject(e)),
      };
      const timer = setTimeout(() => waiter.refuse(tooMany(`no browser session slot freed within the queue timeout (${queueTimeoutMs / 1000} s); retry later`, "QUEUE_TIMEOUT")), queueTimeoutMs);
      timer.unref();
      const onAbort = () => {
        waiter.refuse(new ClientGoneError("the client left while waiting for a browser session slot"));
        // A slot this waiter's leaving makes reachable goes to the next one.
        this.pump();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Admits waiters, first come first served, while slots are free and the load allows. Called on every release and load sample. */
  pump(): void {
    while (this.waiters.length && !this.blocked()) this.waiters[0]!.admit(this.take());
  }

  /** Draining: new and waiting starts get 503 DRAINING from now on; held slots stay until their sessions end. */
  drain(): void {
    this.drainingSince ??= Date.now();
    for (const w of [...this.waiters]) w.refuse(drainingError());
  }

  pressure(): Pressure {
    const { cpu, memory } = this.load();
    const blocked = this.blocked();
    const reason: PressureReason | null = this.draining ? "draining" : (blocked ?? null);
    return {
      running: this.running,
      queued: this.waiters.length,
      maxSessions: this.limits.maxSessions,
      maxQueued: this.limits.maxQueued,
      cpu,
      memory,
      maxCpu: this.limits.maxCpu ?? null,
      maxMemory: this.limits.maxMemoryBytes ?? null,
      available: !this.draining && (!blocked || this.waiters.length < this.limits.maxQueued),
      reason,
      draining: this.draining,
    };
  }

  /** Why a start is refused at once (every slot and queue place taken), in words. */
  private refusal(why: Exclude<PressureReason, "draining">): string {
    const { maxSessions, maxQueued, maxCpu, maxMemoryBytes } = this.limits;
    const queue = maxQueued ? `, and ${maxQueued} more are waiting` : "";
    const { cpu, memory } = this.load();
    const mib = (n: number | null | undefined) => `${Math.round((n ?? 0) / 1024 / 1024)} MiB`;
    if (why === "cpu") return `no new browser session while the machine's CPU is above the server's limit (${cpu}% > ${maxCpu}%)${queue}; retry later`;
    if (why === "memory") return `no new browser session while the server's memory is above its limit (${mib(memory)} > ${mib(maxMemoryBytes)})${queue}; retry later`;
    return `too many browser sessions: this server runs at most ${maxSessions} at once${queue}; release one or retry later`;
  }

  /** What keeps a start from a slot right now, if anything. */
  private blocked(): Exclude<PressureReason, "draining"> | undefined {
    if (this.running >= this.limits.maxSessions) return "full";
    const { cpu, memory } = this.load();
    if (this.limits.maxCpu !== undefined && cpu !== null && cpu > this.limits.maxCpu) return "cpu";
    if (this.limits.maxMemoryBytes !== undefined && memory !== null && memory > this.limits.maxMemoryBytes) return "memory";
    return undefined;
  }

  private take(): Release {
    this.running++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      this.pump();
    };
  }
}

function tooMany(message: string, code: string): OverloadedError {
  return new OverloadedError(message, { retryAfterS: RETRY_AFTER_S, code: code });
}
