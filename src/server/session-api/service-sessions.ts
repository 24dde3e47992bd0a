/**
 * Session-API sessions (docs/wire-formats.md "Session API"): one library Service per session, attached over
 * CDP to the session's browser: a platform session of this server (the default, and `browser.type:
 * "local"` with launch options) or a client-given `cdpUrl`. The session id is the platform session's id,
 * so a client can open its own CDP connection to the same browser.
 *
 * A session ends on `end`, after `idleTimeoutS` without a request, when its browser ends, or on shutdown.
 * Ending closes the Service (it only detaches from the browser). `end` also releases the platform session,
 * except one the client brought (`browserbaseSessionID`) with keepAlive; idle expiry releases it unless it
 * has keepAlive (a client may resume it later; the platform session's own timeout still applies).
 * In-flight requests of an ending session are interrupted: their streams end with an `error` event naming
 * why.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { type LogLine, type Metrics, type Page, Service, ServiceInvalidArgumentError } from "../../index.js";
import type { Owner } from "../http/auth.js";
import type { SessionRegistry } from "../cluster/store.js";
import { isolated, type ServerConfig } from "../config.js";
import { errorResponse, parseWith } from "../http/errors.js";
import { serverModelPolicy, type ServerModelPolicy } from "../isolation/model-policy.js";
import { type PlatformSession, type PlatformSessions, SessionCreateParamsSchema } from "../platform/chrome-sessions.js";
import { clientCdpEndpoint } from "../cdp/url.js";
import { refuseTenantLaunchOptions, type StartBody, tenantLaunchOptions, withModelKey } from "./bodies.js";
import { ReplayLog, type ReplayMethod, usageBetween } from "./replay.js";
import { wireLogLine } from "../http/sse.js";
import { GoneError, NotFoundError, UnavailableError } from "../failures.js";

export interface ApiSessionsDeps {
  config: ServerConfig;
  platform: PlatformSessions;
  publicUrl(): string;
  log(line: string): void;
  /** Cluster mode: every session is recorded in the shared store while it runs. */
  registry?: SessionRegistry | undefined;
}

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

export interface StartResult {
  sessionId: string;
  available: true;
  cdpUrl: string;
  /** Launch options accepted but not applied, one line each. */
  warnings?: string[];
}

/** Why a session ended, as its in-flight requests hear it: it went ("gone"), or the server is shutting down. */
type EndCause = "gone" | "shutdown";

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

  constructor(
    readonly id: string,
    readonly owner: Owner,
    readonly modelName: string,
    /** The platform session behind it, if any. */
    readonly platformId: string | undefined,
    /** Release the platform session when the client ends this session. */
    readonly releaseOnEnd: boolean,
    /** The platform session was asked to outlive its clients: idle expiry leaves it to its own timeout. */
    readonly keepAlive: boolean,
    private readonly idleMs: number,
    private readonly onIdle: (s: ApiSession) => void,
  ) {}

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
        const result = outcome ? outcome.result : { error: errorResponse(failure).message };
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

/**
 * A key's own cache directory (act and agent caches): one tenant's entries are never served to another,
 * which would tell B what A did and let B's poisoned entry steer A.
 */
export function ownerCacheDir(cacheDir: string, owner: Owner): string {
  return join(cacheDir, owner);
}

export class ApiSessions {
  private readonly config: ServerConfig;
  private readonly platform: PlatformSessions;
  private readonly log: (line: string) => void;
  private readonly registry: SessionRegistry | undefined;
  private readonly sessions = new Map<string, ApiSession>();
  /** How the tenants' model configs are served (see isolation/model-policy.ts). */
  readonly models: ServerModelPolicy;
  private closing = false;

  constructor(deps: ApiSessionsDeps) {
    this.config = deps.config;
    this.platform = deps.platform;
    this.log = deps.log;
    this.registry = deps.registry;
    this.models = serverModelPolicy(deps.config);
  }

  /** The session; 404 when unknown, ended or another key's. */
  get(owner: Owner, id: string): ApiSession {
    const s = this.sessions.get(id);
    if (!s || s.owner !== owner || s.ended) throw new NotFoundError(`session ${id} not found`);
    return s;
  }

  /** `POST /v1/sessions/start`: a browser (new, attached or given) and a Service on it. `signal`: the client's request (a queued start it leaves is dropped). */
  async start(owner: Owner, body: StartBody, modelKey: string | undefined, signal?: AbortSignal): Promise<StartResult> {
    if (this.closing) throw new UnavailableError("the server is shutting down", { retryAfterS: 5 });
    const browser = body.browser;
    let platformSession: PlatformSession | undefined;
    let created = false;
    let cdpUrl: string;
    let publicCdpUrl: string;
    refuseTenantLaunchOptions(browser?.launchOptions, isolated(this.config));
    const launchOptions = tenantLaunchOptions(browser?.launchOptions, isolated(this.config));
    const warnings = [...(launchOptions?.warnings ?? [])];
    if (browser?.type === "local" && browser.cdpUrl) {
      cdpUrl = await clientCdpEndpoint(browser.cdpUrl, this.config);
      publicCdpUrl = browser.cdpUrl;
    } else {
      if (body.browserbaseSessionID && browser?.type !== "local") {
        platformSession = this.platform.get(owner, body.browserbaseSessionID);
        if (platformSession.status !== "RUNNING") throw new NotFoundError(`browserbaseSessionID: session ${platformSession.id} is ${platformSession.status}`);
      } else {
        const params = parseWith(SessionCreateParamsSchema, body.browserbaseSessionCreateParams ?? {}, "browserbaseSessionCreateParams");
        const chosen = browser?.type === "local" ? launchOptions : undefined;
        platformSession = await this.platform.create(owner, params, chosen?.launch, chosen?.emulation, signal);
        created = true;
      }
      try {
        cdpUrl = this.platform.endpoint(owner, platformSession.id);
        publicCdpUrl = this.platform.connectUrl(platformSession);
      } catch (e) {
        // e.g. its Chrome exited right after launch: a browser this start created never outlives it.
        if (created) this.releaseQuietly(owner, platformSession.id);
        throw e;
      }
    }
    const id = platformSession?.id ?? randomUUID();
    const keep = !created && platformSession !== undefined && platformSession.keepAlive;
    const session = new ApiSession(id, owner, body.modelName, platformSession?.id, platformSession !== undefined && !keep, platformSession?.keepAlive ?? false, this.config.idleTimeoutS * 1000, (s) => {
      this.log(`api session ${s.id} idle for ${this.config.idleTimeoutS}s: ending it`);
      void this.end(s, "the session was idle too long", s.releaseOnEnd && !s.keepAlive);
    });
    session.systemPrompt = body.systemPrompt;
    try {
      session.service = new Service({
        env: "LOCAL",
        model: withModelKey(body.modelName, modelKey) as string,
        localBrowserLaunchOptions: { cdpUrl },
        ...(body.domSettleTimeoutMs !== undefined ? { domSettleTimeout: body.domSettleTimeoutMs } : {}),
        ...(body.selfHeal !== undefined ? { selfHeal: body.selfHeal } : {}),
        ...(body.systemPrompt ? { systemPrompt: body.systemPrompt } : {}),
        verbose: body.verbose ?? 1,
        // Isolated tenants navigate only to web URLs (no file:, chrome:, view-source: …).
        ...(isolated(this.config) ? { webUrlsOnly: true } : {}),
        cacheDir: ownerCacheDir(this.config.cacheDir, owner),
        // Model configs are the tenant's: an endpoint it chooses gets only its own key (isolation/model-policy.ts).
        modelEndpointPolicy: this.models.policy,
        // The agent's search tool (useSearch) searches where POST /v1/search does.
        ...(this.config.searchUrl ? { searchUrl: this.config.searchUrl } : {}),
        logger: (line) => session.emitLog(line),
      });
      await session.service.init();
    } catch (e) {
      await session.service?.close().catch(() => {});
      if (created && platformSession) this.releaseQuietly(owner, platformSession.id);
      throw e;
    }
    if (this.closing) {
      await session.service.close().catch(() => {});
      if (created && platformSession) this.releaseQuietly(owner, platformSession.id);
      throw new UnavailableError("the server is shutting down", { retryAfterS: 5 });
    }
    // A second start on the same platform session replaces the first (its Service only detaches).
    const previous = this.sessions.get(id);
    if (previous) void this.end(previous, "replaced by a new start on the same browser session", false);
    this.sessions.set(id, session);
    session.touch();
    if (platformSession) {
      // The Service holds the browser like a CDP client: its session outlives a script's connection.
      const leave = this.platform.clients.join(platformSession.id);
      const unsubscribe = this.platform.onEnded(platformSession.id, () => void this.end(session, "the browser session ended", false));
      session.unsubscribe = () => {
        unsubscribe();
        leave();
      };
    }
    if (this.registry) {
      const expiresAt = platformSession?.expiresAt ?? Date.now() + this.config.sessionTimeoutS * 1000;
      try {
        await this.registry.claim("api", id, owner, expiresAt);
      } catch (e) {
        await this.end(session, "the session store refused it", created);
        throw e;
      }
    }
    this.log(`api session ${id} started (${created ? "new browser" : platformSession ? "attached" : "cdpUrl"}, model ${body.modelName})`);
    if (launchOptions && !(created && browser?.type === "local")) warnings.push("browser.launchOptions are ignored: they apply only to a browser this start launches (browser.type \"local\" without cdpUrl or browserbaseSessionID)");
    return { sessionId: id, available: true, cdpUrl: publicCdpUrl, ...(warnings.length ? { warnings } : {}) };
  }

  /** `POST /v1/sessions/{id}/end` (and idle expiry): see the module comment for what is released. */
  async end(session: ApiSession, reason: string, release = session.releaseOnEnd, why: EndCause = "gone"): Promise<void> {
    if (session.ended) return;
    session.markEnded(reason, why);
    if (this.sessions.get(session.id) === session) {
      this.sessions.delete(session.id);
      // Before any await: a start replacing this session claims the same id right after.
      void this.registry?.ended("api", session.id, "COMPLETED", reason);
    }
    // Attached Services only detach; the platform session decides whether the browser lives on.
    await session.service.close().catch(() => {});
    if (release && session.platformId) this.releaseQuietly(session.owner, session.platformId);
    this.log(`api session ${session.id} ended: ${reason}`);
  }

  /**
   * Shutdown: requests in flight get up to `graceMs` to finish; then whatever still runs is interrupted
   * (streams end with an `error` event carrying `reason`) and every Service is closed. Browsers are the
   * platform's to end (PlatformSessions.closeAll runs next).
   */
  async closeAll(reason: string, graceMs: number): Promise<void> {
    this.closing = true;
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline && [...this.sessions.values()].some((s) => s.busy)) await new Promise((r) => setTimeout(r, 50));
    await Promise.all([...this.sessions.values()].map((s) => this.end(s, reason, false, "shutdown")));
    await this.models.close().catch(() => {});
  }

  /** Cluster mode: this replica lost its lease on the session: it ends here. */
  lost(id: string): void {
    const s = this.sessions.get(id);
    if (s) void this.end(s, "this replica lost its lease on the session", s.releaseOnEnd);
  }

  private releaseQuietly(owner: Owner, id: string): void {
    try {
      this.platform.release(owner, id);
    } catch {
      // already ended or gone: nothing left to release
    }
  }
}
