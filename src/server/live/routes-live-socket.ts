/**
 * The live view's WebSocket (`/v1/live/{id}/{token}/socket`), handed every upgrade under /v1/live/ by the CDP proxy.
 * Its token is derived from, and weaker than, connectUrl's: one tab's screen and input, never raw CDP. On an isolated
 * server the viewer reaches only the tenant's tabs (live/page-cdp.ts). Viewers per session are bounded (429
 * LIVE_VIEWERS).
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import { isolated, type ServerConfig } from "../config.js";
import { HttpError } from "../http/errors.js";
import { TenantCdpFilter } from "../cdp/filter.js";
import type { TenantHooks } from "../cdp/proxy.js";
import { sessionDownloadsDir } from "../features/recorder-downloads.js";
import type { PlatformSessions } from "../platform/chrome-sessions.js";
import { LIVE_LIMITS } from "./messages.js";
import { socketSource } from "./socket-source.js";
import { LIVE_SOCKET_OPTIONS, LiveViewer } from "./viewer.js";

/** What a live view token is derived for (PlatformSessions.derivedToken). */
export const LIVE_PURPOSE = "svc-live-view";
const SOCKET_PATH = /^\/v1\/live\/([^/]+)\/([^/]+)\/socket$/;

export interface LiveSocketDeps {
  platform: PlatformSessions;
  config: ServerConfig;
  tenants: TenantHooks;
  log: (line: string) => void;
}

/** Handles an upgrade whose path is under /v1/live/ (true), else leaves it (false); throws the HTTP answer. */
export type LiveUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer, url: URL) => Promise<boolean>;

export function liveSocketHandler(deps: LiveSocketDeps): LiveUpgrade {
  const wss = new WebSocketServer(LIVE_SOCKET_OPTIONS);
  const viewers = new Map<string, number>();
  const filtered = isolated(deps.config);

  return async (req, socket, head, url) => {
    if (!url.pathname.startsWith("/v1/live/")) return false;
    const m = SOCKET_PATH.exec(url.pathname);
    if (!m) throw new HttpError(404, "not found");
    const target = deps.platform.connectTarget(decode(m[1]!), decode(m[2]!), LIVE_PURPOSE);
    if (!target.ok) throw target.error;
    const { session, socketPath } = target;
    const places = filtered ? deps.tenants.watchOf(session.id) : undefined;
    if (filtered && !places) throw new HttpError(503, "svc is not watching this session's browser (its start failed or it is ending)");
    const count = viewers.get(session.id) ?? 0;
    if (count >= LIVE_LIMITS.maxViewersPerSession) throw new HttpError(429, `session ${session.id} has ${count} live viewers already (at most ${LIVE_LIMITS.maxViewersPerSession})`, {}, "LIVE_VIEWERS");
    const tab = url.searchParams.get("tab") ?? undefined;
    if (tab !== undefined && tab.length > 128) throw new HttpError(400, "query.tab: longer than 128 characters");
    const interactive = url.searchParams.get("interactive") !== "false";
    viewers.set(session.id, count + 1);
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      const n = (viewers.get(session.id) ?? 1) - 1;
      if (n > 0) viewers.set(session.id, n);
      else viewers.delete(session.id);
    };
    socket.once("close", leave);
    wss.handleUpgrade(req, socket, head, (ws) => {
      const viewer = new LiveViewer({
        socket: ws,
        source: socketSource({
          socketPath,
          tabAllowed: (id) => !places || (places.known(id) && places.refusal(id) === undefined),
          filterFor: (id) => (filtered ? new TenantCdpFilter({ ownExtensions: () => deps.tenants.ownExtensions(session.id), downloadPath: sessionDownloadsDir(deps.config, session), places, pageTarget: id }) : undefined),
        }),
        interactive,
        tab,
        log: deps.log,
      });
      const unsubscribe = deps.platform.onEnded(session.id, (s) => viewer.ended(s.status));
      ws.once("close", () => {
        unsubscribe();
        leave();
      });
      viewer.start().catch((e: unknown) => deps.log(`live view: session ${session.id}: ${String(e instanceof Error ? e.message : e).slice(0, 200)}`));
    });
    return true;
  };
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new HttpError(400, "malformed percent-escape in the live view URL");
  }
}
