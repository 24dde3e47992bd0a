/**
 * The session host's browser: the host launches Chrome and holds its DevTools pipe itself (`{ kind: "self" }`), so
 * Chrome lives exactly as long as the host, kill -9 included; for `svc connect` it attaches and leaves Chrome
 * running. It keeps the session's heartbeat file, touched by every command: older than the idle timeout, or gone, and
 * the host ends a launched Chrome and itself.
 */
import { statSync, utimesSync } from "node:fs";
import { type SessionRecord, ServiceInitError, pidAlive, saveSession, sessionOwnTabs, touchHeartbeat } from "../../src/base.js";
import type { LocalBrowserLaunchOptions } from "../../src/index.js";
import type { ProxyCredentials } from "./fetch.js";

/** What `svc sessions start` (`launch`) or `svc connect` (`connect`) hands its host, and the record's fields known before. */
export interface HostLaunchSpec {
  launch?: LocalBrowserLaunchOptions;
  /** Attach to this Chrome instead: `http://127.0.0.1:PORT` (its /json/version is asked) or a ws(s):// URL. */
  /** `ownWindow`: the user's own Chrome (`svc connect --auto`): a window of the session's, and only its tabs driven unless `allTabs`. */
  /** `join`: another session's Chrome (`svc sessions start --browser`), in a browser context of the session's own unless `sharedContext`. */
  connect?: { url: string; ownWindow?: boolean; allTabs?: boolean; join?: Join };
  record: Omit<SessionRecord, "wsEndpoint" | "pid" | "userDataDir" | "ownsProfile" | "port">;
  /** The starting command: while it runs (a slow start on a loaded machine) the session is not idle. */
  ownerPid: number;
}

/** The session whose Chrome a joining session works in. */
export interface Join {
  owner: string;
  /** The size of the session's pages (the owner's, else --viewport). */
  viewport?: { width: number; height: number };
  /** The owner's heartbeat: kept fresh while the joiner is used, so the Chrome does not idle out under it. */
  ownerHeartbeat: string;
  sharedContext: boolean;
}

/**
 * The proxy's credentials travel to the host in this variable (never on its command line, which any local
 * user can read, nor in a file): the host takes them out of its environment at once and keeps them in memory.
 */
export const PROXY_AUTH_ENV = "SVC_HOST_PROXY_AUTH";

/** The proxy credentials handed to this process, removed from its environment (Chrome and commands never see them). */
export function takeProxyCredentials(): ProxyCredentials | undefined {
  const raw = process.env[PROXY_AUTH_ENV];
  delete process.env[PROXY_AUTH_ENV];
  if (raw === undefined || raw.length > 10_000) return undefined;
  try {
    const v = JSON.parse(raw) as Partial<ProxyCredentials>;
    return typeof v.username === "string" && typeof v.password === "string" ? { username: v.username, password: v.password } : undefined;
  } catch {
    return undefined;
  }
}

/** The session's browser as the host holds it: `close()` ends a launched Chrome (cleanly when its profile is kept), or only lets go of an attached one. */
export interface SessionBrowser {
  close(): Promise<void>;
}

/** Parses and bounds the spec of the host's command line; undefined when it is not one. */
export function parseLaunchSpec(text: string | undefined): HostLaunchSpec | undefined {
  if (text === undefined || text.length > 100_000) return undefined;
  try {
    const s = JSON.parse(text) as Partial<HostLaunchSpec>;
    const r = s.record;
    const launch = typeof s.launch === "object" && s.launch !== null;
    const connect = typeof s.connect === "object" && s.connect !== null && typeof s.connect.url === "string";
    if (launch === connect || typeof r !== "object" || r === null) return undefined;
    if (typeof r.id !== "string" || typeof r.heartbeatFile !== "string" || typeof r.idleMs !== "number" || !(r.idleMs > 0)) return undefined;
    if (!Number.isInteger(s.ownerPid)) return undefined;
    return s as HostLaunchSpec;
  } catch {
    return undefined;
  }
}

/** How long a kept profile's Chrome may take to write it out and exit before it is killed. */
const CLEAN_CLOSE_MS = 10_000;

/** Launches the session's Chrome held by this process (or attaches to the one it was told), and saves the session's record. */
export async function launchSessionBrowser(spec: HostLaunchSpec, root: string): Promise<{ record: SessionRecord; browser: SessionBrowser }> {
  const { record, browser } = spec.connect ? await attach(spec, spec.connect.url, root) : await launch(spec, spec.launch ?? {});
  try {
    saveSession(record, root);
    touchHeartbeat(record.heartbeatFile, false);
  } catch (e) {
    await browser.close().catch(() => {});
    throw e;
  }
  return { record, browser };
}

async function launch(spec: HostLaunchSpec, options: LocalBrowserLaunchOptions): Promise<{ record: SessionRecord; browser: SessionBrowser }> {
  const [{ launchBrowser }, { closeBrowserCleanly, CdpConnection, defaultContextId }] = await Promise.all([import("../../src/index.js"), import("../../src/internal.js")]);
  const launched = await launchBrowser(options, { kind: "self" });
  // The session drives its default context's tabs only: sessions that join this Chrome work in contexts of their own.
  const browserContextId = await CdpConnection.connect(launched.wsEndpoint).then(async (c) => {
    try {
      return await defaultContextId(c.root);
    } finally {
      await c.close();
    }
  }).catch(async (e: unknown) => {
    await launched.close();
    throw e;
  });
  const record: SessionRecord = {
    ...spec.record,
    browserContextId,
    wsEndpoint: launched.wsEndpoint,
    ...(launched.port ? { port: launched.port } : {}),
    pid: launched.pid,
    userDataDir: launched.userDataDir,
    ownsProfile: launched.ownsProfile,
  };
  const close = async () => {
    // A profile that outlives the session: Chrome writes out its cookies and storage on a clean exit only.
    if (!launched.ownsProfile) await closeBrowserCleanly(launched.wsEndpoint, launched.pid, CLEAN_CLOSE_MS).catch(() => false);
    await launched.close();
  };
  return { record, browser: { close } };
}

/** `svc connect`: the Chrome's browser endpoint; the record's pid is this host's (the Chrome is not svc's to end). */
async function attach(spec: HostLaunchSpec, url: string, root: string): Promise<{ record: SessionRecord; browser: SessionBrowser }> {
  const wsEndpoint = /^(wss?|ws\+unix):\/\//.test(url) ? url : await browserEndpoint(url);
  const record: SessionRecord = { ...spec.record, wsEndpoint, pid: process.pid, userDataDir: "", ownsProfile: false, ...(spec.connect?.ownWindow && !spec.connect.allTabs ? { ownTabs: true as const } : {}) };
  if (spec.connect?.join) return joinContext(record, spec.connect.join);
  if (!spec.connect?.ownWindow) return { record, browser: { close: async () => {} } };
  return { record, browser: await ownWindow(record, root) };
}

/**
 * A user's own Chrome (`svc connect --auto`): the session's tab, in a window of its own in the user's profile
 * (signed in as they are), adopted before any command attaches. Ending the session closes the session's tabs
 * only; Chrome and the user's tabs stay.
 */
async function ownWindow(record: SessionRecord, root: string): Promise<SessionBrowser> {
  const { CdpConnection } = await import("../../src/internal.js");
  const tabs = sessionOwnTabs(record.id, root);
  const connection = await CdpConnection.connect(record.wsEndpoint).catch((e: unknown) => {
    throw new ServiceInitError(`cannot attach to the Chrome at ${record.wsEndpoint}: ${(e as Error).message}`, { hint: "allow the connection in Chrome if it asks, or check chrome://inspect/#remote-debugging", cause: e });
  });
  try {
    const { targetId } = await connection.root.send("Target.createTarget", { url: "about:blank", newWindow: true });
    tabs.adopt(targetId);
  } catch (e) {
    await connection.close().catch(() => {});
    throw e;
  }
  return {
    close: async () => {
      for (const targetId of tabs.known()) await connection.root.send("Target.closeTarget", { targetId }).catch(() => {});
      await connection.close().catch(() => {});
    },
  };
}

/**
 * `svc sessions start --browser`: a context of the session's own in the owner's Chrome (made on this host's
 * connection, so Chrome disposes of it should the host die), with its first tab; or the default context.
 * Ending the session ends its own context (its tabs close) and leaves the owner running.
 */
async function joinContext(record: SessionRecord, join: Join): Promise<{ record: SessionRecord; browser: SessionBrowser }> {
  const { CdpConnection, createIsolatedContext, defaultContextId, disposeContext } = await import("../../src/internal.js");
  const connection = await CdpConnection.connect(record.wsEndpoint).catch((e: unknown) => {
    throw new ServiceInitError(`cannot reach the Chrome of session ${join.owner}: ${(e as Error).message}`, { hint: "is that session still running? (svc sessions list)", cause: e });
  });
  try {
    const browserContextId = join.sharedContext ? await defaultContextId(connection.root) : await createIsolatedContext(connection.root);
    if (!join.sharedContext) await connection.root.send("Target.createTarget", { url: "about:blank", browserContextId });
    const close = async () => {
      if (!join.sharedContext) await disposeContext(connection.root, browserContextId).catch(() => {});
      await connection.close().catch(() => {});
    };
    return { record: { ...record, browserContextId, joined: join.owner }, browser: { close } };
  } catch (e) {
    await connection.close().catch(() => {});
    throw e;
  }
}

/** A joining session used now keeps its owner's Chrome from idling out: the owner's heartbeat is never older than its own. */
export function shareHeartbeat(spec: HostLaunchSpec): void {
  const owner = spec.connect?.join?.ownerHeartbeat;
  if (!owner) return;
  try {
    const own = statSync(spec.record.heartbeatFile).mtime;
    if (own > statSync(owner).mtime) utimesSync(owner, own, own);
  } catch {
    // either is gone: the session is ending
  }
}

/** The browser WebSocket a DevTools HTTP endpoint names (/json/version), asked with a bound. */
async function browserEndpoint(httpUrl: string): Promise<string> {
  try {
    const res = await fetch(new URL("/json/version", httpUrl), { signal: AbortSignal.timeout(10_000) });
    const body = (await res.json()) as { webSocketDebuggerUrl?: unknown };
    if (typeof body.webSocketDebuggerUrl !== "string" || !/^wss?:\/\//.test(body.webSocketDebuggerUrl)) throw new Error("its /json/version names no webSocketDebuggerUrl");
    return body.webSocketDebuggerUrl;
  } catch (e) {
    throw new ServiceInitError(`cannot attach to a Chrome at ${httpUrl}: ${(e as Error).message}`, { hint: "start Chrome with --remote-debugging-port=PORT, or give its ws:// URL", cause: e });
  }
}

/**
 * Whether the session's lifeline is cut: its heartbeat is stale or gone. While the host starts, the
 * starter running counts as a heartbeat (the host touches the heartbeat itself once it is ready).
 */
export function lifelineCut(spec: HostLaunchSpec, starting: boolean): boolean {
  if (starting && pidAlive(spec.ownerPid)) return false;
  try {
    return Date.now() - statSync(spec.record.heartbeatFile).mtimeMs > spec.record.idleMs;
  } catch {
    return true; // heartbeat removed: the session was ended or its state wiped
  }
}
