/**
 * What a tenant may send its Chrome through connectUrl on an isolated server (docs/isolation.md). Every message,
 * whatever its sessionId, is checked against the target it addresses as svc's own watch knows it
 * (features/target-watch.ts), not as the client subscribed; Chrome gets the JSON.stringify of what was checked, so no
 * two parsers disagree. A refusal is a CDP error.
 */

/** Schemes a tenant may navigate to or load. */
const NAVIGABLE_SCHEMES = new Set(["http:", "https:", "data:", "blob:", "javascript:"]);

import { BREAKPOINT_COMMANDS, breakpointRefusal, guardOf, LIVE_EDIT_REFUSED, scriptRewrites, tabRewrites } from "./code-guard.js";
import { downloadRewrites } from "./downloads.js";
import { SessionTargets } from "./filter-sessions.js";
import type { ClientVerdict } from "../relay.js";
import type { TargetPlaces } from "../features/target-watch.js";
import { ABOUT_PAGES, ownExtensionUrl, tenantTarget } from "../isolation/tenant-targets.js";

export { isWebTarget } from "../isolation/tenant-targets.js";
export type { ClientVerdict };

type Params = Record<string, unknown>;
type Check = (p: Params) => string | undefined;

const always =
  (reason: string): Check =>
  () =>
    reason;
const optionalUrl =
  (field: string): Check =>
  (p) =>
    p[field] === undefined ? undefined : urlRefusal(p[field], field);

const CHECKS = new Map<string, Check>([
  ["Page.navigate", (p) => urlRefusal(p.url, "url")],
  ["Target.createTarget", (p) => (p.url === undefined || p.url === "" ? undefined : urlRefusal(p.url, "url"))],
  ["Network.loadNetworkResource", (p) => urlRefusal(p.url, "url")],
  ["Fetch.continueRequest", optionalUrl("url")],
  ["Network.continueInterceptedRequest", optionalUrl("url")],
  ["PWA.install", optionalUrl("installUrlOrBundleUrl")],
  ["PWA.launch", optionalUrl("url")],
  ["PWA.launchFilesInApp", always("it opens files of the server's disk")],
  ["DOM.setFileInputFiles", always("it reads files of the server's disk into the page")],
  ["Page.handleFileChooser", always("it reads files of the server's disk into the page")],
  ["Input.dispatchDragEvent", (p) => (hasItems((p.data as Params | undefined)?.files) ? "dropping files reads the server's disk" : undefined)],
  ["Extensions.loadUnpacked", always("it loads an extension from the server's disk")],
  ["Browser.getBrowserCommandLine", always("it shows the server's paths")],
  ["SystemInfo.getInfo", always("its answer holds Chrome's command line, with the server's paths")],
  [
    "Target.createBrowserContext",
    (p) => {
      for (const field of ["proxyServer", "proxyBypassList", "originsWithUniversalNetworkAccess"]) {
        if (p[field] !== undefined) return `${field} would route the context's traffic around the server's network policy`;
      }
      return undefined;
    },
  ],
  ["Target.setRemoteLocations", always("it makes the browser connect to hosts of the client's choosing")],
  ["Tethering.bind", always("it opens a listening port on the server")],
  ["Tracing.start", (p) => (p.tracingBackend === "system" ? "the system backend talks to the server's own tracing service" : undefined)],
  ["Target.exposeDevToolsProtocol", always("it gives page JavaScript unfiltered DevTools access")],
  ["Target.sendMessageToTarget", always("only flattened sessions are relayed (Target.attachToTarget with flatten: true)")],
  ["Target.openDevTools", always("a DevTools window has privileged host bindings")],
  ...BREAKPOINT_COMMANDS.map((method) => [method, breakpointRefusal] as const),
  ["Debugger.setScriptSource", always(LIVE_EDIT_REFUSED)],
]);

/** What may be sent in a session attached to a target that is not a tenant's (it only lets a paused target run). */
const INTERNAL_SESSION_ALLOWED = new Set(["Runtime.runIfWaitingForDebugger"]);
/** How long a message to a target svc has not heard of yet waits for svc's watch to learn it. */
const UNKNOWN_TARGET_WAIT_MS = 2000;
/** Targets whose description Chrome's events gave this connection, at most. */
const MAX_REPORTED = 10_000;
const INTERNAL_TARGET = "this target is browser-internal (chrome:, devtools: …) or another extension's, which tenants do not drive";


export interface TenantCdpFilterOptions {
  /** The ids Chrome gave this session's uploaded extensions (asked at each use: known once it started). */
  ownExtensions?: (() => readonly string[]) | undefined;
  /** The session's own downloads folder, where every setDownloadBehavior is pointed; none: downloads denied. */
  downloadPath?: string | undefined;
  /** svc's own knowledge of where each target is (features/target-watch.ts): asked for every message to a target. */
  places?: TargetPlaces | undefined;
  /** A page-level socket (/devtools/page/<id>): the target its messages without a sessionId address. */
  pageTarget?: string | undefined;
}

interface Command {
  id: number;
  sessionId: string | undefined;
  method: string;
  params: Params;
  message: Record<string, unknown>;
  forward: string;
}

export class TenantCdpFilter {
  private readonly ownExtensions: () => readonly string[];
  private readonly places: TargetPlaces | undefined;
  private readonly pageTarget: string | undefined;
  private readonly sessions = new SessionTargets();
  /** Each target as Chrome's events to this client described it (a second opinion: svc's watch decides first). */
  private readonly reported = new Map<string, Params>();
  private readonly rewrites: Map<string, (p: Params) => Params>;
  /** For messages to a tab only (cdp/code-guard.ts). */
  private readonly tabRewrites: Map<string, (p: Params) => Params>;
  /** Ids of Extensions.getExtensions calls in flight, whose answers get their paths hidden. */
  private readonly listing = new Set<number>();

  constructor(options: TenantCdpFilterOptions = {}) {
    this.ownExtensions = options.ownExtensions ?? (() => []);
    this.places = options.places;
    this.pageTarget = options.pageTarget;
    if (this.pageTarget !== undefined) this.places?.addressed(this.pageTarget);
    const guard = guardOf(this.ownExtensions);
    this.rewrites = new Map([...downloadRewrites(options.downloadPath), ...scriptRewrites(guard)]);
    this.tabRewrites = tabRewrites(guard);
  }

  /**
   * A client message: the text to forward to Chrome, the error reply to send back instead, or (a message
   * to a target svc has not heard of yet) the verdict later; the relay keeps the client's order.
   */
  fromClient(data: Buffer, isBinary: boolean): ClientVerdict {
    if (isBinary) return refusedReply(0, undefined, -32700, "binary (CBOR) message refused by svc: send JSON text", "binary message");
    let message: unknown;
    try {
      message = JSON.parse(data.toString("utf8"));
    } catch {
      return refusedReply(0, undefined, -32700, "Message must be a valid JSON", "invalid JSON");
    }
    let forward: string;
    try {
      forward = JSON.stringify(message);
    } catch {
      return refusedReply(0, undefined, -32600, "message refused by svc: nested too deeply", "deep message");
    }
    if (typeof message !== "object" || message === null) return { forward };
    const m = message as { id?: unknown; method?: unknown; params?: unknown; sessionId?: unknown };
    if (typeof m.method !== "string") return { forward };
    const params = typeof m.params === "object" && m.params !== null && !Array.isArray(m.params) ? (m.params as Params) : {};
    return this.decide({ id: typeof m.id === "number" ? m.id : 0, sessionId: typeof m.sessionId === "string" ? m.sessionId : undefined, method: m.method, params, message: m as Record<string, unknown>, forward }, false);
  }

  private decide(c: Command, waited: boolean, caughtUp = false): ClientVerdict {
    const { id, sessionId, method, params } = c;
    const target = sessionId === undefined ? (this.pageTarget ?? null) : this.sessions.of(sessionId);
    let reason: string | undefined;
    if (target === undefined) {
      reason = "svc did not see this session attached (attach with Target.attachToTarget, flatten: true)";
    } else if (target !== null && !INTERNAL_SESSION_ALLOWED.has(method)) {
      if (this.places && !this.places.known(target) && !waited) return { later: this.places.whenKnown(target, UNKNOWN_TARGET_WAIT_MS).then(() => this.decide(c, true)) };
      // A tab's message waits until svc has read what Chrome said of the tab before it: a navigation to a
      // page tenants may not reach, started just before, is refused, however busy svc's own reading was.
      const reading = caughtUp ? undefined : this.places?.caughtUp(target);
      if (reading) return { later: reading.then(() => this.decide(c, true, true)) };
      reason = this.targetRefusal(target);
    }
    reason ??= this.commandRefusal(method, params);
    reason ??= this.sessions.command(id, sessionId, method, params);
    if (reason === undefined && target) this.places?.addressed(target);
    if (reason === undefined && method === "Target.attachToTarget" && typeof params.targetId === "string") this.places?.addressed(params.targetId);
    if (reason === undefined && method === "Extensions.getExtensions") this.listing.add(id);
    const forTab = this.tabRewrites.get(method);
    const rewrite = this.rewrites.get(method) ?? (forTab && target && this.isTab(target) ? forTab : undefined);
    if (reason === undefined && rewrite) return { forward: JSON.stringify({ ...c.message, params: rewrite(params) }) };
    if (reason === undefined) return { forward: c.forward };
    const name = method.length > 60 ? `${method.slice(0, 60)}…` : method;
    return refusedReply(id, sessionId, -32000, `${name} refused by svc: ${reason}`, name);
  }

  /** Whether a target is a tab: svc's watch says, else what Chrome told this client. */
  private isTab(targetId: string): boolean {
    return this.places ? this.places.isTab(targetId) : this.reported.get(targetId)?.type === "page";
  }

  /** Why a target may not be driven now: svc's watch first, then what Chrome told this client. */
  private targetRefusal(targetId: string): string | undefined {
    const watched = this.places?.refusal(targetId);
    if (watched !== undefined) return watched;
    const info = this.reported.get(targetId);
    return info && info.type !== "browser" && !tenantTarget(info, this.ownExtensions()) ? INTERNAL_TARGET : undefined;
  }

  /** Why a command is refused whatever target it addresses. */
  private commandRefusal(method: string, params: Params): string | undefined {
    if (method === "Extensions.getExtensions") return this.listing.size < MAX_LISTINGS ? undefined : `more than ${MAX_LISTINGS} Extensions.getExtensions calls await their answer`;
    if (method.startsWith("Extensions.") && method !== "Extensions.loadUnpacked") {
      return typeof params.id === "string" && this.ownExtensions().includes(params.id) ? undefined : "only this session's own uploaded extensions may be named";
    }
    if (URL_COMMANDS.has(method) && ownExtensionUrl(params.url, this.ownExtensions())) return undefined;
    return CHECKS.get(method)?.(params);
  }

  /**
   * A message from Chrome on its way to the client: learns which sessions are attached to what; a
   * replacement text for the answers it rewrites.
   */
  fromBrowser(data: Buffer, isBinary: boolean): string | undefined {
    if (isBinary) return undefined;
    if (this.listing.size > 0 && data.indexOf('"extensions"') >= 0) return this.hidePaths(data);
    if (data.indexOf('"Target.') < 0 && !(this.sessions.awaiting && data.indexOf('"sessionId"') >= 0)) return undefined;
    let m: { id?: unknown; method?: unknown; params?: Params; result?: unknown; sessionId?: unknown };
    try {
      m = JSON.parse(data.toString("utf8")) as typeof m;
    } catch {
      return undefined;
    }
    if (typeof m !== "object" || m === null) return undefined;
    this.sessions.fromBrowser(m);
    const info = (m.params?.targetInfo ?? {}) as Params;
    if (typeof m.method === "string" && m.method.startsWith("Target.") && typeof info.targetId === "string") {
      if (this.reported.size >= MAX_REPORTED && !this.reported.has(info.targetId)) this.reported.delete(this.reported.keys().next().value!);
      this.reported.set(info.targetId, info);
    }
    return undefined;
  }

  /** An Extensions.getExtensions answer with every `path` hidden; undefined for any other message. */
  private hidePaths(data: Buffer): string | undefined {
    let m: { id?: unknown; result?: { extensions?: unknown } };
    try {
      m = JSON.parse(data.toString("utf8")) as typeof m;
    } catch {
      return undefined;
    }
    if (typeof m.id !== "number" || !this.listing.delete(m.id) || !Array.isArray(m.result?.extensions)) return undefined;
    m.result.extensions = m.result.extensions.map((e: unknown) => (e && typeof e === "object" ? { ...e, path: HIDDEN_PATH } : e));
    return JSON.stringify(m);
  }
}

/** What Extensions.getExtensions shows as an extension's path (a string, as clients such as Stagehand 4.x expect). */
const HIDDEN_PATH = "(hidden by svc)";
/** Extensions.getExtensions calls awaiting their answer, at most (a client that never reads them cannot grow the set). */
const MAX_LISTINGS = 64;

/** Commands whose `url` may also be a page of the session's own extension. */
const URL_COMMANDS = new Set(["Page.navigate", "Target.createTarget"]);

/** Why a tenant may not navigate to or load `url`, or undefined when it may. */
export function urlRefusal(url: unknown, field: string): string | undefined {
  if (typeof url !== "string") return `${field} is not a string`;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `${field} is not an absolute URL`;
  }
  if (NAVIGABLE_SCHEMES.has(u.protocol)) return undefined;
  if (u.protocol === "about:" && ABOUT_PAGES.has(u.pathname)) return undefined;
  const scheme = u.protocol.length > 24 ? `${u.protocol.slice(0, 24)}…` : u.protocol;
  return `${scheme} URLs are not web pages (only http(s), data:, blob:, javascript:, about:blank and about:srcdoc are)`;
}

function hasItems(v: unknown): boolean {
  return v !== undefined && !(Array.isArray(v) && v.length === 0);
}

function refusedReply(id: number, sessionId: string | undefined, code: number, message: string, refused: string): ClientVerdict {
  return { reply: JSON.stringify({ id, error: { code, message }, ...(sessionId !== undefined ? { sessionId } : {}) }), refused };
}
