/**
 * `svc connect PORT|URL`: a session on a Chrome svc did not start, a DevTools port on this machine's loopback or an
 * explicit ws(s):// URL (any host: the user named it). Its host attaches instead of launching, so ending the session
 * ends only the host and leaves that Chrome running.
 */
import { ServiceInvalidArgumentError } from "../src/base.js";
import type { HostLaunchSpec } from "./host-browser.js";
import type { CloudGlobals } from "./cloud.js";
import { launchDefaults, output, stateRoot } from "./runtime.js";
import { runHost } from "./session-launch.js";
import { claimName, prepareSession } from "./sessions.js";
import { parseSetting, settingDef } from "./settings.js";

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

export async function connectSession(g: CloudGlobals, target: string, opts: { name?: string; idleTimeout?: string }): Promise<void> {
  const out = output(g);
  const root = stateRoot();
  const url = parseEndpoint(target);
  if (opts.name !== undefined) await claimName(opts.name, root);
  const idleFlag = opts.idleTimeout !== undefined ? parseSetting(settingDef("session.idleTimeoutMinutes"), opts.idleTimeout, "--idle-timeout") : undefined;
  const { value } = await launchDefaults({}, { "session.idleTimeoutMinutes": idleFlag });
  const { fields } = prepareSession(g, root, Number(value("session.idleTimeoutMinutes")));
  const spec: HostLaunchSpec = {
    connect: { url },
    record: { ...fields, ...(opts.name !== undefined ? { name: opts.name } : {}), headless: false, attached: url },
    ownerPid: process.pid,
  };
  const record = await runHost(spec, root);
  const ref = record.name ?? record.id;
  out.result({ session: record }, () => [
    `session ${record.id}${record.name !== undefined ? ` "${record.name}"` : ""} attached to ${url} (ends after ${record.idleMs / 60_000} idle min; ending it leaves that Chrome running)`,
    `use it: svc goto URL [--session ${ref}] · end it: svc sessions end ${ref}`,
  ]);
}
