/**
 * Session-API sessions: one library Service per session, attached over CDP to a platform session of this server or a
 * client's `cdpUrl`; the id is the platform session's, so a client can attach too. Ended on `end`, idleness, the
 * browser's end or shutdown, which also releases the platform session unless the client keeps it alive. An ending
 * session's in-flight streams end with an `error` naming why.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { Service } from "../../index.js";
import type { Owner } from "../tenant.js";
import type { SessionRegistry } from "../cluster/store.js";
import { isolated, type ServerConfig } from "../config.js";
import { serverModelPolicy, type ServerModelPolicy } from "../isolation/model-policy.js";
import { type PlatformSession, type PlatformSessions, SessionCreateParamsSchema } from "../platform/chrome-sessions.js";
import { clientCdpEndpoint } from "../cdp/url.js";
import { refuseTenantLaunchOptions, type StartBody, tenantLaunchOptions, withModelKey } from "./bodies.js";
import { wireLogLine } from "../events.js";
import { NotFoundError, parseWith, UnavailableError } from "../failures.js";
import { ApiSession, type EndCause } from "./session.js";


export interface ApiSessionsDeps {
  config: ServerConfig;
  platform: PlatformSessions;
  publicUrl(): string;
  log(line: string): void;
  /** Cluster mode: every session is recorded in the shared store while it runs. */
  registry?: SessionRegistry | undefined;
}

export interface StartResult {
  sessionId: string;
  available: true;
  cdpUrl: string;
  /** Launch options accepted but not applied, one line each. */
  warnings?: string[];
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
    const session = new ApiSession({
      id,
      owner,
      modelName: body.modelName,
      platformId: platformSession?.id,
      releaseOnEnd: platformSession !== undefined && !keep,
      keepAlive: platformSession?.keepAlive ?? false,
      idleMs: this.config.idleTimeoutS * 1000,
      onIdle: (s) => {
        this.log(`api session ${s.id} idle for ${this.config.idleTimeoutS}s: ending it`);
        void this.end(s, "the session was idle too long", s.releaseOnEnd && !s.keepAlive);
      },
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
        ...(isolated(this.config) ? { urlPolicy: "web" as const } : {}),
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
