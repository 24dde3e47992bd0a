/**
 * The launch options of `svc sessions start` beyond headless and viewport (profile, proxy with credentials, Chrome
 * flags, user agent, certificate errors), each checked with one line naming its flag; and starting a session's host
 * and waiting until it watches the pages, for `sessions start` and `svc connect` alike.
 */
import { existsSync, readlinkSync, rmSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { ServiceInitError, ServiceInvalidArgumentError, checkUserAgent, findSession, isAlive, isCloud, listSessions, mkdirp, pidAlive, removeSession, type SessionRecord } from "../../src/base.js";
import type { LocalBrowserLaunchOptions } from "../../src/index.js";
import { registerCleanup } from "../core/cleanup.js";
import type { HostLaunchSpec } from "../host/browser.js";
import type { ProxyCredentials } from "../host/fetch.js";

export interface LaunchFlags {
  profile?: string;
  proxy?: string;
  args?: string;
  userAgent?: string;
  ignoreHttpsErrors?: boolean;
}

export interface ParsedLaunch {
  launch: Pick<LocalBrowserLaunchOptions, "userDataDir" | "proxy" | "args" | "ignoreHTTPSErrors">;
  record: Pick<SessionRecord, "proxy" | "args" | "userAgent" | "ignoreHTTPSErrors">;
  proxyCredentials?: ProxyCredentials;
}

/** Chrome flags svc sets itself or that would cut svc off from the browser; each names what to use instead. */
const REFUSED_ARGS: Record<string, string> = {
  "--remote-debugging-port": "svc reaches Chrome over its own pipe",
  "--remote-debugging-pipe": "svc reaches Chrome over its own pipe",
  "--remote-debugging-address": "svc reaches Chrome over its own pipe",
  "--remote-debugging-io-pipes": "svc reaches Chrome over its own pipe",
  "--user-data-dir": "use --profile DIR",
  "--proxy-server": "use --proxy URL",
  "--user-agent": "use --user-agent UA",
  "--headless": "sessions are headless unless --headed",
  "--no-startup-window": "svc drives the startup window",
  "--single-process": "it breaks Chrome's out-of-process frames, which svc reads",
  "--ignore-certificate-errors": "use --ignore-https-errors",
};

const MAX_ARGS = 50;

/** `--args "…"`: whitespace-separated Chrome flags, each `--name` or `--name=value`. */
export function parseChromeArgs(raw: string): string[] {
  if (raw.length > 10_000) throw new ServiceInvalidArgumentError("invalid --args: longer than 10000 characters");
  const args = raw.split(/\s+/).filter(Boolean);
  if (args.length > MAX_ARGS) throw new ServiceInvalidArgumentError(`invalid --args: at most ${MAX_ARGS} flags`);
  for (const a of args) {
    if (!/^--[a-z0-9][a-z0-9-]*(=[^\0]*)?$/i.test(a)) throw new ServiceInvalidArgumentError(`invalid --args: ${JSON.stringify(a.slice(0, 80))} is not a Chrome flag (--name or --name=value)`);
    const name = a.split("=")[0]!.toLowerCase();
    const why = REFUSED_ARGS[name];
    if (why) throw new ServiceInvalidArgumentError(`invalid --args: ${name} is not allowed (${why})`);
  }
  return args;
}

const PROXY_SCHEMES = new Set(["http:", "https:", "socks4:", "socks5:"]);

/** `--proxy URL`: the server Chrome gets (no credentials), what the record shows, and the credentials for the host. */
export function parseProxy(raw: string): { server: string; shown: string; credentials?: ProxyCredentials } {
  let u: URL;
  try {
    u = new URL(raw.length > 2_000 ? "" : raw);
  } catch {
    throw new ServiceInvalidArgumentError("invalid --proxy: expected a URL such as http://user:pass@proxy.example:8080 (at most 2000 characters)");
  }
  if (!PROXY_SCHEMES.has(u.protocol)) throw new ServiceInvalidArgumentError(`invalid --proxy: scheme must be http, https, socks4 or socks5, got ${u.protocol.replace(/:$/, "")}`);
  if (!u.hostname || (u.pathname !== "/" && u.pathname !== "") || u.search || u.hash) throw new ServiceInvalidArgumentError("invalid --proxy: expected SCHEME://[user:pass@]HOST[:PORT] with no path");
  const server = `${u.protocol}//${u.host}`;
  if (!u.username && u.password) throw new ServiceInvalidArgumentError("invalid --proxy: a password needs a user name (user:pass@)");
  if (!u.username) return { server, shown: server };
  if (u.protocol.startsWith("socks")) throw new ServiceInvalidArgumentError("invalid --proxy: Chrome cannot authenticate to a SOCKS proxy; use an http(s) proxy for user:pass@");
  const username = decodeURIComponent(u.username);
  return { server, shown: `${u.protocol}//${encodeURIComponent(username)}@${u.host}`, credentials: { username, password: decodeURIComponent(u.password) } };
}

/**
 * `--profile DIR`: created 0700 when missing, never deleted by svc. Refused when a live session uses it, or a
 * Chrome still holds it (its SingletonLock names a live process): Chrome's own refusal would be a confusing
 * failure to start.
 */
export async function claimProfile(raw: string, root: string): Promise<string> {
  if (!raw.trim() || raw.length > 4096 || raw.includes("\0")) throw new ServiceInvalidArgumentError("invalid --profile: expected a directory path");
  const dir = resolve(raw);
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new ServiceInvalidArgumentError(`invalid --profile: ${dir} is not a directory`);
  for (const r of listSessions(root)) {
    if (isCloud(r) || r.userDataDir !== dir || !(await isAlive(r))) continue;
    throw new ServiceInvalidArgumentError(`--profile ${dir} is in use by live session ${r.name ?? r.id}`, { hint: `end it first (svc sessions end ${r.name ?? r.id})` });
  }
  const holder = singletonHolder(dir);
  if (holder !== undefined) throw new ServiceInvalidArgumentError(`--profile ${dir} is in use by another Chrome (pid ${holder})`, { hint: "close that browser first" });
  try {
    mkdirp(dir, 0o700);
  } catch (e) {
    throw new ServiceInvalidArgumentError(`invalid --profile: cannot create ${dir}: ${(e as Error).message}`);
  }
  return dir;
}

/** The live pid Chrome's SingletonLock (a link to `host-pid`) names, when it is this machine's. */
function singletonHolder(dir: string): number | undefined {
  try {
    const m = /^(.*)-(\d+)$/.exec(readlinkSync(resolve(dir, "SingletonLock")));
    const pid = Number(m?.[2]);
    return m && pidAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The launch options and record fields of these flags (the profile claimed separately). */
export function parseLaunchFlags(flags: LaunchFlags): ParsedLaunch {
  const out: ParsedLaunch = { launch: {}, record: {} };
  if (flags.proxy !== undefined) {
    const p = parseProxy(flags.proxy);
    out.launch.proxy = { server: p.server };
    out.record.proxy = p.shown;
    if (p.credentials) out.proxyCredentials = p.credentials;
  }
  const extra = flags.args !== undefined ? parseChromeArgs(flags.args) : [];
  if (extra.length) out.record.args = extra;
  const args = [...extra];
  if (flags.userAgent !== undefined) {
    out.record.userAgent = checkUserAgent("--user-agent", flags.userAgent);
    args.push(`--user-agent=${flags.userAgent}`);
  }
  if (args.length) out.launch.args = args;
  if (flags.ignoreHttpsErrors) {
    out.launch.ignoreHTTPSErrors = true;
    out.record.ignoreHTTPSErrors = true;
  }
  return out;
}

/**
 * Starts the session's host with `spec` and waits until it watches the session's pages; returns the record it
 * saved. Interrupted or failed meanwhile: the host ends what it started, and the record and heartbeat go.
 */
export async function runHost(spec: HostLaunchSpec, root: string, secrets: { proxyCredentials?: ProxyCredentials | undefined } = {}): Promise<SessionRecord> {
  const { id, heartbeatFile } = spec.record;
  const host = (await import("../host/start.js")).startHost(spec, root, secrets);
  const unregister = registerCleanup(async () => {
    host.stop();
    await host.ready.catch(() => {});
    rmSync(heartbeatFile, { force: true });
  });
  try {
    await host.ready;
    const saved = findSession(id, root);
    if (!saved || isCloud(saved)) throw new ServiceInitError(`session ${id} started but its record is missing`);
    return saved;
  } catch (e) {
    host.stop();
    removeSession(id, root);
    rmSync(heartbeatFile, { force: true });
    throw e;
  } finally {
    unregister();
  }
}
