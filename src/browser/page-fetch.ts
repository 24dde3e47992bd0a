/**
 * The one owner of the Fetch domain on each page it is given: two users of Fetch on one session break each other
 * (Fetch.enable replaces the patterns; a paused request is answered exactly once). It serves routes (only requests
 * their patterns may match pause; no routes, Fetch off) and proxy credentials (a challenge is answered once: wrong
 * ones fail, never loop).
 */
import { type SessionRoute, fetchUrlPattern, routeMatcher } from "../store/routes.js";
import type { CdpSession } from "./cdp/connection.js";

export interface ProxyCredentials {
  username: string;
  password: string;
}

/** What a setRoutes did: how many pages have the new routes, and the first failure (a page closing meanwhile is none). */
export interface FetchApplied {
  routes: number;
  pages: number;
  failed: number;
  error?: string;
}

/** Fetch.enable's parameters as svc uses them. */
interface FetchParams {
  handleAuthRequests?: boolean;
  patterns: { urlPattern: string; requestStage: "Request" }[];
}

/** What svc reads of a Fetch.requestPaused event. */
interface PausedRequest {
  requestId: string;
  request: { url: string };
  responseStatusCode?: number;
  responseErrorReason?: string;
}

interface CompiledRoute {
  route: SessionRoute;
  matches: (url: string) => boolean;
}

export class PageFetch {
  private readonly pages = new Map<string, CdpSession>();
  /** The Fetch.enable parameters each page has now (absent: Fetch is disabled there). */
  private readonly enabled = new WeakMap<CdpSession, string>();
  /** Newest first: a later route wins over an older one that matches too. */
  private routes: CompiledRoute[] = [];

  /** `routes`: oldest first, as stored (checked by store/routes.ts). */
  constructor(
    private readonly config: { proxyCredentials?: ProxyCredentials | undefined },
    routes: readonly SessionRoute[] = [],
  ) {
    this.routes = compile(routes);
  }

  /** The routes now, oldest first. */
  get current(): SessionRoute[] {
    return this.routes.map((r) => r.route).reverse();
  }

  /** A page attached: its paused requests answered from now on, Fetch enabled if anything needs it. */
  async track(session: CdpSession): Promise<void> {
    const id = session.sessionId ?? "";
    this.pages.set(id, session);
    session.on("svc.detached" as never, () => this.forget(id));
    session.on("Fetch.requestPaused", (e) => void this.answer(session, e).catch(() => {}));
    const creds = this.config.proxyCredentials;
    if (creds) {
      const answered = new Set<string>();
      session.on("Fetch.authRequired", (e) => {
        // Asked again for the same request: the credentials were refused; the page gets the proxy's 407.
        const again = answered.has(e.requestId);
        answered.add(e.requestId);
        if (answered.size > 1000) answered.clear();
        const response = e.authChallenge.source !== "Proxy" ? "Default" : again ? "CancelAuth" : "ProvideCredentials";
        void session.send("Fetch.continueWithAuth", { requestId: e.requestId, authChallengeResponse: { response, ...(response === "ProvideCredentials" ? creds : {}) } }).catch(() => {});
      });
    }
    await this.apply(session);
  }

  forget(sessionId: string): void {
    this.pages.delete(sessionId);
  }

  /** Brings every page to these routes (oldest first). */
  async setRoutes(routes: readonly SessionRoute[]): Promise<FetchApplied> {
    this.routes = compile(routes);
    const results = await Promise.allSettled([...this.pages.values()].map((s) => this.apply(s)));
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    const first = failures[0]?.reason as Error | undefined;
    return { routes: this.routes.length, pages: results.length - failures.length, failed: failures.length, ...(first ? { error: first.message } : {}) };
  }

  /** Fetch.enable's parameters now; undefined when nothing needs Fetch. */
  private params(): FetchParams | undefined {
    if (this.config.proxyCredentials) return { handleAuthRequests: true, patterns: [{ urlPattern: "*", requestStage: "Request" }] };
    if (!this.routes.length) return undefined;
    const patterns = [...new Set(this.routes.map((r) => fetchUrlPattern(r.route.pattern)))];
    return { patterns: patterns.map((urlPattern) => ({ urlPattern, requestStage: "Request" as const })) };
  }

  private async apply(session: CdpSession): Promise<void> {
    const params = this.params();
    const key = params ? JSON.stringify(params) : undefined;
    const before = this.enabled.get(session);
    if (key === before) return;
    if (params) {
      this.enabled.set(session, key!);
      await session.send("Fetch.enable", params);
    } else {
      this.enabled.delete(session);
      await session.send("Fetch.disable");
    }
  }

  /** Every paused request is answered exactly once: by its route, or continued untouched. */
  private async answer(session: CdpSession, e: PausedRequest): Promise<void> {
    const route = e.responseStatusCode === undefined && e.responseErrorReason === undefined ? this.routes.find((r) => r.matches(e.request.url))?.route : undefined;
    if (!route) return void (await session.send("Fetch.continueRequest", { requestId: e.requestId }));
    if (route.abort) return void (await session.send("Fetch.failRequest", { requestId: e.requestId, errorReason: "BlockedByClient" }));
    const body = route.body ?? "";
    const given = Object.entries(route.headers ?? {}).filter(([name]) => !(route.contentType && name.toLowerCase() === "content-type"));
    const typed = given.some(([name]) => name.toLowerCase() === "content-type");
    const headers = typed ? given : [...given, ["content-type", route.contentType ?? defaultContentType(body)]];
    await session.send("Fetch.fulfillRequest", {
      requestId: e.requestId,
      responseCode: route.status ?? 200,
      responseHeaders: headers.map(([name, value]) => ({ name, value })),
      body,
    });
  }
}

/** Newest first: a later route wins over an older one that matches too. */
function compile(routes: readonly SessionRoute[]): CompiledRoute[] {
  return [...routes].reverse().map((route) => ({ route, matches: routeMatcher(route.pattern) }));
}

/** A body that is JSON is served as JSON; anything else as text. */
function defaultContentType(base64: string): string {
  const text = Buffer.from(base64, "base64").toString("utf8");
  try {
    JSON.parse(text);
    return "application/json";
  } catch {
    return "text/plain; charset=utf-8";
  }
}
