/**
 * Platform sessions (docs/wire-formats.md "Platform API"): one Chrome per session, owned by the key that created it,
 * ended on release, timeout, Chrome's exit or shutdown. Clients reach it only through the CDP proxy with a
 * per-session token; Chrome has no TCP port (the server uses its 0600 unix socket).
 */
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import type { z } from "zod";
import { launchBrowser, type LaunchedBrowser, type LocalBrowserLaunchOptions, type Viewport } from "../../index.js";
import { type BrowserEmulation, emulates } from "../../internal.js";
import type { Admission, Release } from "./admission.js";
import type { Owner } from "../tenant.js";
import type { SessionRegistry } from "../cluster/store.js";
import { isolated, type ServerConfig } from "../config.js";
import { BrowserPool } from "./browser-pool.js";
import type { EgressProxy } from "../isolation/egress-proxy.js";
import { sessionLaunchOptions } from "./launch-options.js";
import { DEFAULT_REGION, sessionToWire } from "./wire.js";
import { type SessionCreateParams, SessionCreateParamsSchema } from "./create-params.js";
import { SessionClients } from "./clients.js";
import { FeatureRuns, type SessionFeature } from "./feature.js";
import { holdSessionEmulation } from "./emulation.js";
import { processAlive as alive } from "../../util/process.js";
import { devtoolsPath } from "../../util/devtools-socket.js";
import { clip } from "../../util/zod.js";
import { ClientGoneError, ConflictError, GoneError, NotFoundError, parseWith, UnauthorizedError, UnavailableError } from "../failures.js";

export const SESSION_STATUSES = ["PENDING", "RUNNING", "COMPLETED", "ERROR", "TIMED_OUT"] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export { MAX_USER_METADATA_CHARS, type SessionCreateParams, SessionCreateParamsSchema } from "./create-params.js";

export interface PlatformSession {
  readonly id: string;
  readonly owner: Owner;
  readonly projectId: string;
  readonly region: string;
  readonly keepAlive: boolean;
  readonly userMetadata: Record<string, unknown>;
  /** The saved context it started with (`browserSettings.context.id`), if any. */
  readonly contextId: string | undefined;
  readonly viewport: Viewport;
  /** Epoch ms. */
  readonly createdAt: number;
  readonly startedAt: number;
  readonly updatedAt: number;
  readonly expiresAt: number;
  readonly endedAt: number | undefined;
  readonly status: SessionStatus;
}

type MutableSession = { -readonly [K in keyof PlatformSession]: PlatformSession[K] };
type EndedListener = (session: PlatformSession) => void;

interface Entry {
  session: MutableSession;
  token: string;
  /** Dropped when the session ends: an ended session keeps only what listing needs. */
  browser: LaunchedBrowser | undefined;
  /** The path of Chrome's browser endpoint (`/devtools/browser/…`), for connectUrl. */
  browserPath: string;
  timer: NodeJS.Timeout;
  listeners: Set<EndedListener>;
  /** Gives the session's admission slot back (when it ends). */
  release: Release;
  /** What the session features (contexts, extensions, logs …) do in this session's life. */
  features: FeatureRuns;
}

/** What the CDP proxy may connect a request to. */
export type ConnectTarget = { ok: true; socketPath: string; session: PlatformSession } | { ok: false; error: NotFoundError | UnauthorizedError | GoneError };

const DEFAULT_VIEWPORT: Viewport = { width: 1280, height: 720 };
/** Ended sessions stay listable this long (and at most this many per key), like the platform's session history. */
export const ENDED_RETENTION_MS = 60 * 60 * 1000;
const ENDED_MAX = 500;
const WATCH_INTERVAL_MS = 1000;

export interface PlatformSessionsDeps {
  config: ServerConfig;
  publicUrl(): string;
  log(line: string): void;
  /** Isolated servers: the proxy every session Chrome must use (see isolation/egress-proxy.ts). */
  egress?: EgressProxy | undefined;
  /** Where every session takes its slot before its Chrome starts (platform/admission.ts). */
  admission: Admission;
  /** Cluster mode: every session is recorded in the shared store while it runs. */
  registry?: SessionRegistry | undefined;
  /** Contexts, extensions, session logs …: asked before each session's Chrome starts (platform/feature.ts). */
  features?: readonly SessionFeature[] | undefined;
}

export class PlatformSessions {
  private readonly config: ServerConfig;
  private readonly publicUrl: () => string;
  private readonly log: (line: string) => void;
  private readonly entries = new Map<string, Entry>();
  private readonly admission: Admission;
  /** Chrome shutdowns in progress, awaited by closeAll(). */
  private readonly stopping = new Set<Promise<void>>();
  private closed = false;
  private watcher: NodeJS.Timeout | undefined;
  private readonly pool: BrowserPool | undefined;
  private readonly egress: EgressProxy | undefined;
  private readonly registry: SessionRegistry | undefined;
  private readonly features: readonly SessionFeature[];
  /** CDP clients and attached Services per session: a session without keepAlive ends once they are all gone. */
  readonly clients: SessionClients;

  constructor(deps: PlatformSessionsDeps) {
    this.config = deps.config;
    this.publicUrl = deps.publicUrl;
    this.log = deps.log;
    this.egress = deps.egress;
    this.admission = deps.admission;
    this.registry = deps.registry;
    this.features = deps.features ?? [];
    this.clients = new SessionClients(this.config.disconnectGraceMs, (id) => {
      if (this.entries.get(id)?.session.keepAlive === false) this.end(id, "COMPLETED", "its last CDP client disconnected");
    });
    if (this.config.warmBrowsers > 0) this.pool = new BrowserPool(this.config.warmBrowsers, sessionLaunchOptions(this.config, this.egress, this.config.launch, this.defaultViewport(this.config.launch), {}), this.log);
  }

  private defaultViewport(base: LocalBrowserLaunchOptions): Viewport {
    return base.viewport ?? DEFAULT_VIEWPORT;
  }


  /**
   * Starts a Chrome for `owner`. `launch` (a session-API start's `launchOptions`) is merged over the
   * server's launch options; the session's viewport wins over both. It first takes an admission slot,
   * waiting in the queue if need be; `signal` (the client's request) aborting takes it out of the queue.
   */
  async create(owner: Owner, params: SessionCreateParams = {}, launch?: LocalBrowserLaunchOptions, emulation?: BrowserEmulation, signal?: AbortSignal): Promise<PlatformSession> {
    if (this.closed) throw new UnavailableError("the server is shutting down", { retryAfterS: 5 });
    // Callers may pass a body they validated already (with their own field prefix); parsing again is cheap.
    const p = parseWith(SessionCreateParamsSchema, params);
    const release = await this.admission.acquire(signal);
    try {
      // A client that left while its start waited gets no Chrome (the slot goes to the next one).
      if (signal?.aborted) throw new ClientGoneError("the client left while waiting for a browser session slot");
      return await this.launch(owner, p, release, launch, emulation);
    } catch (e) {
      release();
      throw e;
    }
  }

  private async launch(owner: Owner, p: z.output<typeof SessionCreateParamsSchema>, release: Release, launch?: LocalBrowserLaunchOptions, emulation?: BrowserEmulation): Promise<PlatformSession> {
    if (this.closed) throw new UnavailableError("the server is shutting down", { retryAfterS: 5 });
    const base = { ...this.config.launch, ...(launch ?? {}) };
    const fallback = this.defaultViewport(base);
    const viewport: Viewport = {
      width: p.browserSettings?.viewport?.width ?? fallback.width,
      height: p.browserSettings?.viewport?.height ?? fallback.height,
    };
    const options = sessionLaunchOptions(this.config, this.egress, base, viewport, { ignoreCertificateErrors: p.browserSettings?.ignoreCertificateErrors });
    // Touch support is decided as each document is created, sooner than CDP can reach a new page: the flag
    // makes it certain; touch emulation (held over CDP) adds the touch points.
    if (emulation?.hasTouch) options.args = [...(options.args ?? []), "--touch-events=enabled"];
    const id = randomUUID();
    const features = await FeatureRuns.prepare(this.features, { id, owner, params: p, isolated: isolated(this.config), emulation }, this.log);
    options.args = [...(options.args ?? []), ...features.args];
    if (features.userDataDir) options.userDataDir = features.userDataDir;
    let browser: LaunchedBrowser;
    try {
      browser = (await this.pool?.take(options)) ?? (await launchBrowser(options, { kind: "self" }));
    } catch (e) {
      await features.ended(undefined);
      throw e;
    }
    // From here on a Chrome runs: whatever fails before the session is registered must close it, or it
    // would hold memory with no id a client could release (create() gives the slot back).
    try {
      if (this.closed) throw new UnavailableError("the server is shutting down", { retryAfterS: 5 });
      const held = emulates(emulation) ? await holdSessionEmulation(browser, emulation) : undefined;
      const session = this.register(id, owner, p, viewport, browser, release, features);
      if (held) this.onEnded(session.id, () => void held.close());
      try {
        await features.started(session, browser);
      } catch (e) {
        this.end(session.id, "ERROR", `a session feature failed to start: ${e instanceof Error ? e.message : String(e)}`);
        throw e;
      }
      if (this.registry) {
        try {
          await this.registry.claim("platform", session.id, owner, session.expiresAt);
        } catch (e) {
          this.end(session.id, "ERROR", "the session store refused it");
          throw e;
        }
      }
      return session;
    } catch (e) {
      if (!this.entries.has(id)) {
        await browser.close().catch(() => {});
        await features.ended(undefined);
      }
      throw e;
    }
  }

  private register(id: string, owner: Owner, p: z.output<typeof SessionCreateParamsSchema>, viewport: Viewport, browser: LaunchedBrowser, release: Release, features: FeatureRuns): PlatformSession {
    const now = Date.now();
    const session: MutableSession = {
      id,
      owner,
      projectId: p.projectId ?? owner,
      region: p.region ?? DEFAULT_REGION,
      keepAlive: p.keepAlive ?? false,
      userMetadata: p.userMetadata ?? {},
      contextId: p.browserSettings?.context?.id,
      viewport,
      createdAt: now,
      startedAt: now,
      updatedAt: now,
      expiresAt: now + (p.timeout ?? this.config.sessionTimeoutS) * 1000,
      endedAt: undefined,
      status: "RUNNING",
    };
    const browserPath = devtoolsPath(browser.wsEndpoint) ?? "/";
    const timer = setTimeout(() => this.end(session.id, "TIMED_OUT", "expired"), session.expiresAt - now);
    timer.unref();
    // 192 random bits: the only credential the CDP proxy asks for.
    this.entries.set(session.id, { session, token: randomBytes(24).toString("base64url"), browser, browserPath, timer, listeners: new Set(), release, features });
    this.watch();
    this.prune();
    this.log(`session ${session.id} started (chrome pid ${browser.pid}, expires in ${Math.round((session.expiresAt - now) / 1000)}s)`);
    return session;
  }

  /** The session, whatever its status; 404 when unknown or another key's. */
  get(owner: Owner, id: string): PlatformSession {
    const e = this.entries.get(id);
    if (!e || e.session.owner !== owner) throw new NotFoundError(`session ${clip(id)} not found`);
    return e.session;
  }

  list(owner: Owner, status?: SessionStatus): PlatformSession[] {
    this.prune();
    return [...this.entries.values()].map((e) => e.session).filter((s) => s.owner === owner && (!status || s.status === status));
  }

  /** REQUEST_RELEASE: the session is COMPLETED at once, its Chrome ends in the background. Idempotent. */
  release(owner: Owner, id: string): PlatformSession {
    const s = this.get(owner, id);
    this.end(id, "COMPLETED", "released");
    return s;
  }

  /** Cluster mode: another replica owns this session now (or the store lost it): it ends here. */
  lost(id: string): void {
    this.end(id, "ERROR", "this replica lost its lease on the session");
  }

  /** Chrome's own browser endpoint (ws+unix://…/devtools.sock:/devtools/browser/…), for in-process attachment. */
  endpoint(owner: Owner, id: string): string {
    return this.running(owner, id).wsEndpoint;
  }

  /** The unix socket of a running session's DevTools endpoint (for the debug route's /json/list). */
  chromeSocket(owner: Owner, id: string): string {
    return this.running(owner, id).socketPath;
  }

  private running(owner: Owner, id: string): LaunchedBrowser {
    const s = this.get(owner, id);
    const browser = this.entries.get(s.id)?.browser;
    if (s.status !== "RUNNING" || !browser) throw new ConflictError(`session ${s.id} is not running (${s.status})`);
    return browser;
  }

  /** The proxied base of a session's Chrome: `<publicUrl>/v1/connect/{id}/{token}` (http or https). */
  connectBase(session: PlatformSession): string {
    const e = this.entries.get(session.id);
    if (!e) throw new NotFoundError(`session ${session.id} not found`);
    return `${this.publicUrl().replace(/\/+$/, "")}/v1/connect/${session.id}/${e.token}`;
  }

  /** The CDP WebSocket URL clients connect to (through this server's proxy). */
  connectUrl(session: PlatformSession): string {
    const e = this.entries.get(session.id);
    if (!e) throw new NotFoundError(`session ${session.id} not found`);
    return `${this.connectBase(session).replace(/^http/, "ws")}${e.browserPath}`;
  }

  /** A token for `purpose` derived from the session's own (HMAC): a capability that is not connectUrl's raw CDP. */
  derivedToken(session: PlatformSession, purpose: string): string {
    const e = this.entries.get(session.id);
    if (!e) throw new NotFoundError(`session ${session.id} not found`);
    return derive(e.token, purpose);
  }

  /** The session `token` opens (its own, or the one derived for `purpose`), running or ended; constant-time. */
  sessionByToken(id: string, token: string, purpose?: string): PlatformSession | NotFoundError | UnauthorizedError {
    const e = this.entries.get(id);
    if (!e) return new NotFoundError("session not found");
    const a = Buffer.from(token);
    const b = Buffer.from(purpose === undefined ? e.token : derive(e.token, purpose));
    return a.length === b.length && timingSafeEqual(a, b) ? e.session : new UnauthorizedError("invalid session token");
  }

  /** Checks a proxied request's id + token (`purpose`: the token derived for it instead); the session must run. */
  connectTarget(id: string, token: string, purpose?: string): ConnectTarget {
    const s = this.sessionByToken(id, token, purpose);
    if (s instanceof Error) return { ok: false, error: s };
    const e = this.entries.get(id);
    if (s.status !== "RUNNING" || !e?.browser) return { ok: false, error: new GoneError(`session is ${s.status}`) };
    return { ok: true, socketPath: e.browser.socketPath, session: s };
  }

  /**
   * `listener` runs once when the session ends (released, expired, Chrome exited, shutdown); at once
   * (asynchronously) when it already has. Returns an unsubscribe function.
   */
  onEnded(id: string, listener: EndedListener): () => void {
    const e = this.entries.get(id);
    if (!e || e.session.status !== "RUNNING") {
      const s = e?.session;
      queueMicrotask(() => s && listener(s));
      return () => {};
    }
    e.listeners.add(listener);
    return () => e.listeners.delete(listener);
  }

  /** Ends every session and waits for every Chrome to be gone. Idempotent. */
  async closeAll(): Promise<void> {
    this.closed = true;
    for (const [id, e] of this.entries) if (e.session.status === "RUNNING") this.end(id, "COMPLETED", "server closing");
    await this.pool?.close();
    while (this.stopping.size) await Promise.allSettled([...this.stopping]);
    if (this.watcher) clearInterval(this.watcher);
    this.watcher = undefined;
  }

  /** Browserbase's session object (plus connectUrl while running): platform/wire.ts. */
  toWire(session: PlatformSession): Record<string, unknown> {
    return sessionToWire(session, session.status === "RUNNING" ? this.connectUrl(session) : undefined);
  }

  private end(id: string, status: SessionStatus, why: string): void {
    const e = this.entries.get(id);
    if (!e || e.session.status !== "RUNNING") return;
    const now = Date.now();
    e.session.status = status;
    e.session.endedAt = now;
    e.session.updatedAt = now;
    clearTimeout(e.timer);
    this.clients.forget(id);
    this.log(`session ${id} ended: ${why}`);
    void this.registry?.ended("platform", id, status, why);
    // Features finish with Chrome still running (a context saves its profile), then Chrome goes.
    const browser = e.browser;
    const stop = (async () => {
      await e.features.ending(e.session, browser);
      await browser?.close().catch(() => {});
      await e.features.ended(e.session);
    })().catch(() => {});
    e.browser = undefined;
    e.release();
    this.stopping.add(stop);
    void stop.finally(() => this.stopping.delete(stop));
    const listeners = [...e.listeners];
    e.listeners.clear();
    for (const l of listeners) {
      try {
        l(e.session);
      } catch {
        // a listener's failure must not keep the others from running
      }
    }
  }

  /** Notices a Chrome that exited by itself (Browser.close from a client, a crash, an OOM kill). */
  private watch(): void {
    if (this.watcher) return;
    this.watcher = setInterval(() => {
      let running = 0;
      for (const [id, e] of this.entries) {
        if (e.session.status !== "RUNNING") continue;
        if (e.browser && alive(e.browser.pid)) running++;
        else this.end(id, "COMPLETED", "chrome exited");
      }
      if (!running && this.watcher) {
        clearInterval(this.watcher);
        this.watcher = undefined;
      }
    }, WATCH_INTERVAL_MS);
    this.watcher.unref();
  }

  /** Ended sessions past the retention, or past ENDED_MAX of their key (oldest first), are forgotten. */
  private prune(): void {
    const cutoff = Date.now() - ENDED_RETENTION_MS;
    const byOwner = new Map<Owner, Entry[]>();
    for (const e of this.entries.values()) {
      if (e.session.status === "RUNNING") continue;
      if ((e.session.endedAt ?? 0) < cutoff) this.entries.delete(e.session.id);
      else {
        const list = byOwner.get(e.session.owner);
        if (list) list.push(e);
        else byOwner.set(e.session.owner, [e]);
      }
    }
    for (const ended of byOwner.values()) {
      if (ended.length <= ENDED_MAX) continue;
      ended.sort((a, b) => (a.session.endedAt ?? 0) - (b.session.endedAt ?? 0));
      for (const e of ended.slice(0, ended.length - ENDED_MAX)) this.entries.delete(e.session.id);
    }
  }
}

function derive(token: string, purpose: string): string {
  return createHmac("sha256", token).update(purpose).digest("base64url");
}
