/**
 * Records of persistent CLI sessions: how to reach a Chrome that outlives one command (endpoint, pid,
 * profile dir) and when it ends itself (idle timeout, heartbeat file), or, for a cloud session, which
 * platform holds it (never its API key: that stays in the settings). One JSON file per session under
 * `<state>/sessions/`, written atomically.
 */
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, openSync, readFileSync, readdirSync, rmSync, utimesSync } from "node:fs";
import { get as httpGet } from "node:http";
import { join } from "node:path";
import { devtoolsJson, devtoolsPath, parseUnixWsEndpoint } from "../util/devtools-socket.js";
import { processAlive } from "../util/process.js";
import { ServiceInvalidArgumentError, ServiceStateError } from "../errors.js";
import { checkId, describeFsError, ensureDir, readIfExists, resolveStateDir, writeStateFile } from "./files.js";
import { hostSocketPath } from "./state-dir.js";

/** A Chrome on this machine (records written before cloud sessions existed have no `kind`). */
export interface SessionRecord {
  kind?: "local";
  id: string;
  /** `svc sessions start --name`: usable wherever an id is, unique among live sessions. */
  name?: string;
  /**
   * Browser-level DevTools WebSocket URL: `ws+unix://<run dir>/devtools.sock:/devtools/browser/UUID` (the
   * socket is 0600; Chrome has no TCP port). Records of older versions hold `ws://127.0.0.1:PORT/…`.
   */
  wsEndpoint: string;
  /** Only when the session opted in to a TCP DevTools port (older records always have one). */
  port?: number;
  /** Chrome's main process. */
  pid: number;
  userDataDir: string;
  /** True when the profile dir was created for this session and is deleted when it ends. */
  ownsProfile?: boolean;
  headless: boolean;
  viewport?: { width: number; height: number };
  executablePath?: string;
  /** Where the session's downloads go (`svc sessions start --downloads`; default `<state>/downloads/<id>`). */
  downloadsDir?: string;
  /** How dialogs are answered unless a command says otherwise (`svc sessions start --dialog`; default dismiss). */
  dialog?: "accept" | "dismiss";
  createdAt: string;
  lastUsedAt: string;
  /** The session ends itself when its heartbeat file is older than this. */
  idleMs: number;
  heartbeatFile: string;
  /**
   * `svc connect`: the DevTools endpoint of a Chrome svc did not start (`http://127.0.0.1:PORT` or a ws(s)://
   * URL). `pid` is then the session host's, and ending the session leaves that Chrome running.
   */
  attached?: string;
  /** `svc connect --auto`: a user's own Chrome; the session drives only the tabs it created (store/own-tabs.ts). */
  ownTabs?: true;
  /**
   * The CDP browser context whose tabs the session drives (browser/tab-scope.ts `contextScope`): the default one
   * of a Chrome it launched, or, joined to another session's Chrome (`svc sessions start --browser`), its own or
   * (`--shared-context`) that Chrome's default one.
   */
  browserContextId?: string;
  /** `svc sessions start --browser ID`: the session whose Chrome this one works in (ending that one ends this one). */
  joined?: string;
  /** `--proxy`: the proxy server, never its password (the host alone holds that, in memory). */
  proxy?: string;
  /** `--args`: extra Chrome flags the session was launched with. */
  args?: string[];
  /** `--user-agent`: the browser's user agent. */
  userAgent?: string;
  /** `--ignore-https-errors`. */
  ignoreHTTPSErrors?: boolean;
}

/** A session on a cloud platform (`svc sessions start --cloud`): its id is the platform's session id. */
export interface CloudSessionRecord {
  kind: "cloud";
  id: string;
  name?: string;
  /** The platform's CDP WebSocket URL for the session (a capability of its own: kept like wsEndpoint). */
  connectUrl: string;
  /** Session API and platform API origins the session was created with. */
  apiUrl: string;
  platformUrl: string;
  viewport?: { width: number; height: number };
  createdAt: string;
  lastUsedAt: string;
  /** When the platform ends it on its own (its lifetime), if it said. */
  expiresAt?: string;
}

export type StoredSession = SessionRecord | CloudSessionRecord;

export function isCloud(record: StoredSession): record is CloudSessionRecord {
  return record.kind === "cloud";
}

export function sessionsDir(root: string = resolveStateDir()): string {
  return join(root, "sessions");
}

function recordPath(root: string, id: string): string {
  return join(sessionsDir(root), `${checkId(id)}.json`);
}

export function heartbeatPath(root: string, id: string): string {
  return join(sessionsDir(root), `${checkId(id)}.heartbeat`);
}

/** The session's `svc view --open` launch files (commands/host/view.ts), a 0700 folder: removed with the session. */
export function viewLaunchDir(root: string, id: string): string {
  return join(sessionsDir(root), `${checkId(id)}.view`);
}

/** The session's refs per page (store/refs.ts): removed with the session. */
export function refsPath(root: string, id: string): string {
  return join(sessionsDir(root), `${checkId(id)}.refs`);
}

/** The session's last outline per tab (store/outlines.ts, `svc snapshot --delta`): removed with the session. */
export function outlinePath(root: string, id: string): string {
  return join(sessionsDir(root), `${checkId(id)}.outline`);
}

/** The session's tab ids and selected tab (store/tabs.ts): removed with the session. */
export function tabsPath(root: string, id: string): string {
  return join(sessionsDir(root), `${checkId(id)}.tabs`);
}

/** The tabs a session on a user's own Chrome may drive (store/own-tabs.ts): removed with the session. */
export function ownTabsPath(root: string, id: string): string {
  return join(sessionsDir(root), `${checkId(id)}.own-tabs`);
}

/** The values of a session's secrets (store/secrets.ts), 0600. */
export function secretsPath(root: string, id: string): string {
  return join(sessionsDir(root), `${checkId(id)}.secrets`);
}

/** The session's answer for its next dialog (`svc dialog`, store/dialog-answer.ts): removed with the session. */
export function dialogAnswerPath(root: string, id: string): string {
  return join(sessionsDir(root), `${checkId(id)}.dialog`);
}

/** Where the pointer is and what is held down (`svc mouse`, `svc keyboard`, store/input-state.ts): removed with the session. */
export function inputStatePath(root: string, id: string): string {
  return join(sessionsDir(root), `${checkId(id)}.input`);
}

/** The fingerprint of each tab's last screenshot (`svc screenshot --if-changed`, store/screenshot-state.ts): removed with the session. */
export function screenshotStatePath(root: string, id: string): string {
  return join(sessionsDir(root), `${checkId(id)}.shots`);
}

/** What the session's pages logged or threw (store/page-log.ts), and `<file>.cleared`: removed with the session. */
export function pageLogPath(root: string, id: string, kind: "console" | "errors"): string {
  return join(sessionsDir(root), `${checkId(id)}.${kind}`);
}

/** The requests the session's pages made (store/network-log.ts), and `<file>.cleared`: removed with the session. */
export function networkLogPath(root: string, id: string): string {
  return join(sessionsDir(root), `${checkId(id)}.network`);
}

/** Where a session's downloads go unless `--downloads` chose: `<state>/downloads/<id>` (one-shot runs: `one-shot`). */
export function defaultDownloadsDir(root: string, id: string | undefined): string {
  return join(root, "downloads", id === undefined ? "one-shot" : checkId(id));
}

/** A short, unique, file-name-safe id (8 hex digits), not already recorded. */
export function newSessionId(root: string = resolveStateDir()): string {
  for (;;) {
    const id = randomBytes(4).toString("hex");
    if (!existsSync(recordPath(root, id))) return id;
  }
}

export function saveSession<T extends StoredSession>(record: T, root: string = resolveStateDir()): T {
  ensureDir(sessionsDir(root));
  writeStateFile(recordPath(root, record.id), `${JSON.stringify(record, null, 2)}\n`);
  return record;
}

export function getSession(id: string, root: string = resolveStateDir()): StoredSession | undefined {
  const path = recordPath(root, id);
  const text = readIfExists(path);
  if (text === undefined) return undefined;
  return parseRecord(text, path);
}

function parseRecord(text: string, path: string): StoredSession {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ServiceStateError(`corrupt session record ${path}: not JSON`, { cause: e, hint: "delete the file" });
  }
  const c = value as Partial<CloudSessionRecord> | null;
  if (c?.kind === "cloud") {
    if (typeof c.id !== "string" || typeof c.connectUrl !== "string" || typeof c.apiUrl !== "string" || typeof c.platformUrl !== "string" || typeof c.createdAt !== "string") {
      throw new ServiceStateError(`corrupt session record ${path}: missing fields`, { hint: "delete the file" });
    }
    return c as CloudSessionRecord;
  }
  const r = value as Partial<SessionRecord> | null;
  if (
    !r ||
    typeof r.id !== "string" ||
    typeof r.wsEndpoint !== "string" ||
    typeof r.pid !== "number" ||
    (r.port !== undefined && typeof r.port !== "number") ||
    typeof r.userDataDir !== "string"
  ) {
    throw new ServiceStateError(`corrupt session record ${path}: missing fields`, { hint: "delete the file" });
  }
  return r as SessionRecord;
}

const NAME_RE = /^[A-Za-z][A-Za-z0-9_-]{0,39}$/;

/** A session name: a letter, then letters, digits, '-' or '_' (≤ 40); never something that reads as an id. */
export function checkSessionName(name: string): string {
  if (!NAME_RE.test(name) || /^[0-9a-f]{8}$/.test(name)) {
    throw new ServiceInvalidArgumentError(`invalid --name ${JSON.stringify(name)}: start with a letter, then letters, digits, '-' or '_' (at most 40), not an 8-hex-digit id`);
  }
  return name;
}

/** The session with this id, else the one with this name. */
export function findSession(idOrName: string, root: string = resolveStateDir()): StoredSession | undefined {
  return getSession(idOrName, root) ?? listSessions(root).find((r) => r.name === idOrName);
}

/** Every recorded session, most recently used first. Corrupt records are skipped. */
export function listSessions(root: string = resolveStateDir()): StoredSession[] {
  const dir = sessionsDir(root);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new ServiceStateError(`cannot read ${dir}: ${describeFsError(e)}`, { cause: e });
  }
  const out: StoredSession[] = [];
  for (const name of names) {
    if (!name.endsWith(".json") || name.startsWith(".")) continue;
    try {
      out.push(parseRecord(readFileSync(join(dir, name), "utf8"), join(dir, name)));
    } catch {
      // A record being replaced or corrupted by hand: not a session we can use.
    }
  }
  return out.sort((a, b) => (b.lastUsedAt ?? "").localeCompare(a.lastUsedAt ?? "") || b.createdAt.localeCompare(a.createdAt));
}

/** Delete a session's record, heartbeat, ref map, last outlines, secrets, tabs, emulation, routes, input state, screenshot fingerprints, page logs, network log, view launch files and host socket (not its history or metrics). */
export function removeSession(id: string, root: string = resolveStateDir()): void {
  rmSync(recordPath(root, id), { force: true });
  rmSync(heartbeatPath(root, id), { force: true });
  rmSync(refsPath(root, id), { force: true });
  rmSync(outlinePath(root, id), { force: true });
  rmSync(secretsPath(root, id), { force: true });
  rmSync(tabsPath(root, id), { force: true });
  rmSync(ownTabsPath(root, id), { force: true });
  rmSync(dialogAnswerPath(root, id), { force: true });
  rmSync(join(sessionsDir(root), `${checkId(id)}.emulation`), { force: true });
  rmSync(join(sessionsDir(root), `${checkId(id)}.routes`), { force: true });
  rmSync(inputStatePath(root, id), { force: true });
  rmSync(screenshotStatePath(root, id), { force: true });
  for (const kind of ["console", "errors"] as const) {
    rmSync(pageLogPath(root, id, kind), { force: true });
    rmSync(`${pageLogPath(root, id, kind)}.cleared`, { force: true });
  }
  rmSync(networkLogPath(root, id), { force: true });
  rmSync(`${networkLogPath(root, id)}.cleared`, { force: true });
  rmSync(viewLaunchDir(root, id), { recursive: true, force: true });
  // The session host's socket (commands/host/main.ts): gone with it, the host ends within a second. With a
  // state dir too deep for a socket it is under /tmp, left there by a host that was killed; a folder there that
  // is missing or not this user's alone holds none of ours.
  let socket: string | undefined;
  try {
    socket = hostSocketPath(root, checkId(id));
  } catch {
    // no private folder under /tmp: no socket of ours in it
  }
  if (socket) rmSync(socket, { force: true });
}

/**
 * Set the heartbeat file's mtime to now (the session's idle clock restarts), creating it unless
 * `create` is false (a removed heartbeat means the session was ended: do not bring it back).
 */
export function touchHeartbeat(file: string, create = true): void {
  const now = new Date();
  try {
    utimesSync(file, now, now);
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === "ENOENT";
    if (missing && !create) return;
    if (!missing) {
      throw new ServiceStateError(`cannot touch ${file}: ${describeFsError(e)}`, { cause: e });
    }
    try {
      closeSync(openSync(file, "a", 0o600));
    } catch (e2) {
      throw new ServiceStateError(`cannot create ${file}: ${describeFsError(e2)}`, { cause: e2 });
    }
  }
}

/** Mark a session used now: heartbeat mtime (local ones) and `lastUsedAt`. Returns the updated record. */
export function touchSession<T extends StoredSession>(record: T, root: string = resolveStateDir()): T {
  if (!isCloud(record)) touchHeartbeat(record.heartbeatFile, false);
  const updated = { ...record, lastUsedAt: new Date().toISOString() };
  // The record may have been removed by a concurrent `end`; do not resurrect it.
  if (existsSync(recordPath(root, record.id))) saveSession(updated, root);
  return updated;
}

export function pidAlive(pid: number): boolean {
  return Number.isInteger(pid) && pid > 0 && processAlive(pid);
}

/**
 * Whether `pid` is still this session's Chrome and not a recycled pid: on Linux its command line names
 * the session's profile dir. Elsewhere (no /proc) `undefined`: unknown.
 */
export function pidBelongsToSession(record: Pick<SessionRecord, "pid" | "userDataDir">): boolean | undefined {
  if (!pidAlive(record.pid)) return false;
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${record.pid}/cmdline`, "utf8");
  } catch {
    return process.platform === "linux" ? false : undefined;
  }
  return cmdline.split("\0").some((arg) => arg === `--user-data-dir=${record.userDataDir}`);
}

/** Whether `record.pid` is this session's host (its command line names the session), not a recycled pid. */
function hostOfSession(record: SessionRecord): boolean {
  try {
    const args = readFileSync(`/proc/${record.pid}/cmdline`, "utf8").split("\0");
    return args.some((a) => /host[/\\]main\.js$/.test(a)) && args.includes(record.id);
  } catch {
    return process.platform !== "linux";
  }
}

/** GET /json/version on the session's DevTools endpoint; resolves to its webSocketDebuggerUrl or undefined. */
function probeEndpoint(wsEndpoint: string, timeoutMs = 1500): Promise<string | undefined> {
  const unix = parseUnixWsEndpoint(wsEndpoint);
  if (unix) {
    return devtoolsJson(unix.socketPath, "/json/version", { timeoutMs }).then(
      ({ body }) => {
        const ws = (body as { webSocketDebuggerUrl?: unknown } | undefined)?.webSocketDebuggerUrl;
        return typeof ws === "string" ? ws : undefined;
      },
      () => undefined,
    );
  }
  let url: URL;
  try {
    url = new URL(wsEndpoint);
  } catch {
    return Promise.resolve(undefined);
  }
  return new Promise((resolvePromise) => {
    const req = httpGet({ host: url.hostname, port: url.port, path: "/json/version", timeout: timeoutMs }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => {
        try {
          const v = JSON.parse(body) as { webSocketDebuggerUrl?: unknown };
          resolvePromise(typeof v.webSocketDebuggerUrl === "string" ? v.webSocketDebuggerUrl : undefined);
        } catch {
          resolvePromise(undefined);
        }
      });
      res.on("error", () => resolvePromise(undefined));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolvePromise(undefined));
  });
}

/**
 * A session is alive when its Chrome process exists and its DevTools endpoint answers with the same
 * browser id (a different Chrome on a reused port is not our session), or, when the endpoint is slow to
 * answer, when that process provably is this session's Chrome (its command line names the profile).
 */
export async function isAlive(record: SessionRecord, timeoutMs = 1500): Promise<boolean> {
  if (!pidAlive(record.pid)) return false;
  // An attached Chrome may sit behind a ws(s):// URL with no /json/version: its host is the session, and it
  // ends when its connection to that Chrome does.
  if (record.attached !== undefined) return hostOfSession(record);
  const ws = await probeEndpoint(record.wsEndpoint, timeoutMs);
  // Chrome runs with this session's profile but its endpoint did not answer in time: a busy holder (the
  // session's host reading a page that logs thousands of messages on a loaded machine), not a gone session
  // — calling it gone would end it. A command then fails on its own bounded attach if it truly is stuck.
  if (!ws) return pidBelongsToSession(record) === true;
  const path = devtoolsPath(ws);
  return path !== undefined && path === devtoolsPath(record.wsEndpoint);
}
