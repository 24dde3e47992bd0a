/**
 * `svc serve`'s live source: tabs read from Chrome's /json/list on the session's unix socket, each viewer's
 * tab a page-level WebSocket of its own (live/page-cdp.ts) whose every command passes the tenant filter on an
 * isolated server.
 */
import { devtoolsJson } from "../../util/devtools-socket.js";
import type { TenantCdpFilter } from "../cdp/filter.js";
import { PageCdp } from "./page-cdp.js";
import { type LiveSource, toLiveTabs } from "./source.js";

export interface SocketSourceOptions {
  /** The unix socket of the session's Chrome (its DevTools endpoint). */
  socketPath: string;
  /** Whether the tenant may drive tab `id` (isolated servers ask svc's target watch). */
  tabAllowed: (id: string) => boolean;
  /** A tenant filter for a connection to tab `id` (isolated servers), else undefined. */
  filterFor: (id: string) => TenantCdpFilter | undefined;
}

export function socketSource(o: SocketSourceOptions): LiveSource {
  return {
    async tabs() {
      let list: unknown;
      try {
        list = (await devtoolsJson(o.socketPath, "/json/list", { timeoutMs: 5000 })).body;
      } catch {
        return undefined;
      }
      return Array.isArray(list) ? toLiveTabs(list as { id?: unknown }[], o.tabAllowed) : undefined;
    },
    open: (targetId, handlers) => PageCdp.open({ socketPath: o.socketPath, targetId, filter: o.filterFor(targetId), ...handlers }),
  };
}
