/**
 * One session-API session (service-sessions.ts keeps them): its Service, the operations in flight on it
 * (interrupted when it ends: their streams end with an `error` event naming why), its replay and its idle
 * clock.
 */
import { type LogLine, type Metrics, type Page, Service, ServiceInvalidArgumentError } from "../../index.js";
import type { Owner } from "../tenant.js";
import { wireLogLine } from "../events.js";
import { clientMessage, GoneError, NotFoundError, UnavailableError } from "../failures.js";
import { ReplayLog, type ReplayMethod, usageBetween } from "./replay.js";

export interface OperationOutcome {
  result: unknown;
  /** The server cache's verdict, when the operation used it. */
  cacheStatus?: "HIT" | "MISS" | undefined;
  /** More fields of the response's `data` (agentExecute's `cacheEntry`). */
  extra?: Record<string, unknown>;
}

/** One request's work on a session, plus what the replay records of it. */
export interface Operation {
  method: ReplayMethod;
  /** Recorded in the replay: variable names only, never values. */
  parameters: unknown;
  /** Their values join the session's secrets (the Service's), masked out of everything the replay records. */
  variables?: Record<string, string | number | boolean | { value: string | number | boolean; description?: string }> | undefined;
  /** The page it runs on (its URL groups the replay). */
  page: Page;
  run(ctx: { service: Service; signal: AbortSignal; log(line: LogLine): void }): Promise<OperationOutcome>;
}

export interface ApiSessionOptions {
  id: string;
  owner: Owner;
  modelName: string;
  /** The platform session behind it, if any. */
  platformId: string | undefined;
  /** Release the platform session when the client ends this session. */
  releaseOnEnd: boolean;
  /** The platform session was asked to outlive its clients: idle expiry leaves it to its own timeout. */
  keepAlive: boolean;
  /** Without a request for this long (and nothing in flight), `onIdle` runs. */
  idleMs: number;
  onIdle(s: ApiSession): void;
}

/** Why a session ended, as its in-flight requests hear it: it went ("gone"), or the server is shutting down. */
export type EndCause = "gone" | "shutdown";

interface InFlight {
  controller: AbortController;
  interrupt(reason: string, why: EndCause): void;
}

export class ApiSession {
  readonly replay = new ReplayLog();
  /** Log listeners of the streams in flight (the Service's logger feeds them). */
  private readonly sinks = new Set<(line: LogLine) => void>();
  private readonly inflight = new Set<InFlight>();
  private idleTimer: NodeJS.Timeout | undefined;
  private endedReason: string | undefined;
  /** Set once the Service exists (it is built after the session, whose logger it calls). */
  service!: Service;
  /** sessions/start's systemPrompt (the official client's agent cache key includes it). */
  systemPrompt: string | undefined;
  unsubscribe: () => void = () => {};

  readonly id: string;
  readonly owner: Owner;
  readonly modelName: string;
  readonly platformId: string | undefined;
  readonly releaseOnEnd: boolean;
  readonly keepAlive: boolean;
  private readonly idleMs: number;
  private readonly onIdle: (s: ApiSession) => void;

  constructor(options: ApiSessionOptions) {
    this.id = options.id;
    this.owner = options.owner;
    this.modelName = options.modelName;
    this.platformId = options.platformId;
    this.releaseOnEnd = options.releaseOnEnd;
    this.keepAlive = options.keepAlive;
    this.idleMs = options.idleMs;
    this.onIdle = options.onIdle;
  }

  get ended(): boolean {
    return this.endedReason !== undefined;
  }

  get busy(): boolean {
    return this.inflight.size > 0;
  }

  emitLog(line: LogLine): void {
    const wire = wireLogLine(line);
    for (const sink of [...this.sinks]) sink(wire);
  }

  /** The page a request addresses: `frameId` is a page's main frame (its target) id; else the active page. */
  page(frameId: string | null | undefined): Page {
    if (!frameId) return this.service.page;
    const page = this.service.context.pages().find((p) => p.targetId === frameId);
    if (!page) throw new ServiceInvalidArgumentError(`frameId: no page of this session has the main frame "${frameId}"`);
    return page;
  }

  /**
   * Runs one operation: recorded in the replay with its token usage; interrupted (rejected with the reason,
   * its signal aborted) when the session ends first. `signal` is the request's (a client that leaves).
   */
  async perform(op: Operation, signal: AbortSignal, log?: (line: LogLine) => void): Promise<OperationOutcome> {
    if (this.endedReason !== undefined) throw new NotFoundError(`session ${this.id} has ended (${this.endedReason})`);
    const controller = new AbortController();
    let interrupt!: InFlight["interrupt"];
    const interrupted = new Promise<never>((_, reject) => {
      interrupt = (reason, why) => {
        controller.abort(new Error(reason));
        reject(why === "shutdown" ? new UnavailableError(reason, { retryAfterS: 5 }) : new GoneError(reason));
      };
    });
    interrupted.catch(() => {});
    const entry: InFlight = { controller, interrupt };
    const onAbort = () => controller.abort(new Error("the client disconnected"));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    if (log) this.sinks.add(log);
    this.inflight.add(entry);
    this.touch();
    this.service.secrets.remember(op.variables);
    const url = safeUrl(op.page);
    const timestamp = Date.now();
    const before = await this.metrics();
    const work = op.run({ service: this.service, signal: controller.signal, log: (line) => log?.(wireLogLine(line)) });
    work.catch(() => {});
    try {
      let outcome: OperationOutcome | undefined;
      let failure: unknown;
      try {
        outcome = await Promise.race([work, interrupted]);
      } catch (e) {
        failure = e;
      }
      if (!this.ended) {
        // A failure as its client saw it (an internal error's message stays masked here too).
        const result = outcome ? outcome.result : { error: clientMessage(failure) };
        const secrets = this.service.secrets;
        this.replay.add(secrets.text(url), { method: op.method, parameters: secrets.deep(op.parameters), result: secrets.deep(result), timestamp, endTime: Date.now(), tokenUsage: usageBetween(before, await this.metrics()) });
      }
      if (!outcome) throw failure;
      return outcome;
    } finally {
      signal.removeEventListener("abort", onAbort);
      if (log) this.sinks.delete(log);
      this.inflight.delete(entry);
      this.touch();
    }
  }

  /**
   * Marks the session ended and interrupts what is in flight with `why`: "gone" when the session went (its
   * client ended it, it idled out, its browser ended, a new start replaced it), "shutdown" when the server is
   * shutting down. The caller closes the Service.
   */
  markEnded(reason: string, why: EndCause = "gone"): void {
    if (this.endedReason !== undefined) return;
    this.endedReason = reason;
    clearTimeout(this.idleTimer);
    this.unsubscribe();
    for (const f of [...this.inflight]) f.interrupt(reason, why);
  }

  /** Restarts the idle clock; it only runs while nothing is in flight. */
  touch(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (this.ended || this.inflight.size > 0) return;
    this.idleTimer = setTimeout(() => this.onIdle(this), this.idleMs);
    this.idleTimer.unref();
  }

  private async metrics(): Promise<Metrics> {
    try {
      return await this.service.metrics;
    } catch {
      // a closed Service has no metrics; its last call cost nothing we can still see
      return ZERO_METRICS;
    }
  }
}

const ZERO_METRICS = { totalPromptTokens: 0, totalCompletionTokens: 0, totalReasoningTokens: 0, totalCachedInputTokens: 0, totalInferenceTimeMs: 0 } as Metrics;

function safeUrl(page: Page): string {
  try {
    return page.url();
  } catch {
    return "about:blank";
  }
}
