/**
 * `svc connect PORT|URL`: a session on a Chrome svc did not start, a DevTools port on this machine's loopback or an
 * explicit ws(s):// URL (any host: the user named it). Its host attaches instead of launching, so ending the session
 * ends only the host and leaves that Chrome running. `--auto`: the user's own running Chrome (its
 * DevToolsActivePort), worked on in a window of the session's own.
 */
import { ServiceInvalidArgumentError } from "../../src/base.js";
import type { HostLaunchSpec } from "../host/browser.js";
import type { CloudGlobals } from "../core/cloud.js";
import { launchDefaults, output, stateRoot } from "../core/runtime.js";
import { runHost } from "./session-launch.js";
import { claimName, prepareSession } from "./sessions.js";
import { parseSetting, settingDef } from "../core/settings.js";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/** The endpoint to attach to: `http://127.0.0.1:PORT` for a port or a loopback http URL, or the ws(s):// URL as given. */
export function parseEndpoint(raw: string): string {
  const t = raw.trim();
  if (/^\d{1,5}$/.test(t)) {
    const port = Number(t);
    if (port < 1 || port > 65535) throw new ServiceInvalidArgumentError(`invalid PORT: expected 1-65535, got ${t}`);
    return `http://127.0.0.1:${port}`;
  }
  let u: URL;
  try {
    u = new URL(t.length > 4096 ? "" : t);
  } catch {
    throw new ServiceInvalidArgumentError(`invalid endpoint ${JSON.stringify(t.slice(0, 80))}: expected a DevTools PORT, http://127.0.0.1:PORT or a ws(s):// URL`);
  }
  if (u.protocol === "ws:" || u.protocol === "wss:") return u.href;
  if (u.protocol !== "http:" || !LOOPBACK.has(u.hostname) || !u.port) {
    throw new ServiceInvalidArgumentError(`invalid endpoint ${JSON.stringify(t.slice(0, 80))}: a DevTools HTTP endpoint must be on loopback (http://127.0.0.1:PORT); give a ws(s):// URL to attach elsewhere`);
  }
  return `http://${u.host}`;
}

/** `--auto`: the user's own running Chrome, from its DevToolsActivePort (src/browser/devtools-active-port.ts). */
async function endpointOf(target: string | undefined, opts: ConnectOptions): Promise<string> {
  if (!opts.auto) {
    if (opts.userDataDir !== undefined || opts.allTabs) throw new ServiceInvalidArgumentError("--user-data-dir and --all-tabs go with --auto");
    if (target === undefined) throw new ServiceInvalidArgumentError("svc connect: give a DevTools PORT or ws(s):// URL, or --auto for your own running Chrome");
    return parseEndpoint(target);
  }
  if (target !== undefined) throw new ServiceInvalidArgumentError("svc connect --auto takes no endpoint (it reads DevToolsActivePort; --user-data-dir DIR for another profile)");
  if (opts.userDataDir !== undefined && (!opts.userDataDir.trim() || opts.userDataDir.length > 4096)) throw new ServiceInvalidArgumentError("invalid --user-data-dir: expected a folder path of at most 4096 characters");
  const { findUserChrome } = await import("../../src/internal.js");
  return (await findUserChrome(opts.userDataDir)).wsEndpoint;
}

interface ConnectOptions {
  name?: string;
  idleTimeout?: string;
  auto?: boolean;
  userDataDir?: string;
  allTabs?: boolean;
}

export async function connectSession(g: CloudGlobals, target: string | undefined, opts: ConnectOptions): Promise<void> {
  const out = output(g);
  const root = stateRoot();
  const url = await endpointOf(target, opts);
  // The user's own Chrome: a window of the session's own, and the user's tabs left alone (unless --all-tabs).
  const own = opts.auto === true && !opts.allTabs;
  if (opts.name !== undefined) await claimName(opts.name, root);
  const idleFlag = opts.idleTimeout !== undefined ? parseSetting(settingDef("session.idleTimeoutMinutes"), opts.idleTimeout, "--idle-timeout") : undefined;
  const { value } = await launchDefaults({}, { "session.idleTimeoutMinutes": idleFlag });
  const { fields } = prepareSession(g, root, Number(value("session.idleTimeoutMinutes")));
  const spec: HostLaunchSpec = {
    connect: { url, ...(opts.auto ? { ownWindow: true, ...(opts.allTabs ? { allTabs: true } : {}) } : {}) },
    record: { ...fields, ...(opts.name !== undefined ? { name: opts.name } : {}), headless: false, attached: url },
    ownerPid: process.pid,
  };
  const record = await runHost(spec, root);
  const ref = record.name ?? record.id;
  out.result({ session: record }, () => [
    `session ${record.id}${record.name !== undefined ? ` "${record.name}"` : ""} attached to ${url} (ends after ${record.idleMs / 60_000} idle min; ending it leaves that Chrome running${opts.auto ? `; it works in a window of its own${own ? " and drives only its own tabs" : ""}` : ""})`,
    `use it: svc goto URL [--session ${ref}] · end it: svc sessions end ${ref}`,
  ]);
}
