/** `svc sessions start|list|show|end`: browsers that outlive one command, here or on a cloud platform. */
import { utimesSync } from "node:fs";
import { resolve } from "node:path";
import { ServiceInitError, ServiceInvalidArgumentError, ServiceSessionNotFoundError } from "../../src/base.js";
import type { HostLaunchSpec } from "../host/browser.js";
import { checkId, checkSessionName, type CloudSessionRecord, defaultDownloadsDir, ensureDir, errorFromCode, errorMessage, findSession, heartbeatPath, isAlive, isCloud, listSessions, newSessionId, readHistory, readMetrics, removeSession, saveSession, type SessionRecord, sessionsDir, type StoredSession, touchHeartbeat } from "../../src/base.js";
import { registerCleanup } from "../core/cleanup.js";
import { claimProfile, parseLaunchFlags, runHost } from "./session-launch.js";
import { type CloudGlobals, type CloudStatus, cloudStatus, cloudStatuses, cloudTarget, cloudViewport, platformClient, rejectLocalFlags, resolveEnv } from "../core/cloud.js";
import type { GlobalOptions } from "../core/output.js";
import { table } from "../core/output.js";
import { discardSession, launchDefaults, output, stateRoot } from "../core/runtime.js";
import { type SettingsStore, openSettings, parseSetting, settingDef } from "../core/settings.js";

const LAUNCH_GRACE_MS = 60_000;

export interface StartOptions {
  headed?: boolean;
  idleTimeout?: string;
  viewport?: string;
  executablePath?: string;
  /** A cloud session (also when env is BROWSERBASE). */
  cloud?: boolean;
  /** Cloud: the session's lifetime in seconds. */
  timeout?: number;
  /** A name usable wherever a session id is (unique among live sessions). */
  name?: string;
  /** A file from `svc state save`: its cookies and storage are applied once the browser runs. */
  state?: string;
  /** A persistent profile directory (commands/sessions/session-launch.ts), and the other launch flags there. */
  profile?: string;
  proxy?: string;
  args?: string;
  userAgent?: string;
  ignoreHttpsErrors?: boolean;
  /** Join this live session's Chrome (commands/sessions/session-join.ts) instead of launching one. */
  browser?: string;
  /** With `browser`: work in that Chrome's default context rather than one of the session's own. */
  sharedContext?: boolean;
}

/** Refuse a name a live session has; forget dead sessions that had it. */
export async function claimName(name: string, root: string): Promise<void> {
  checkSessionName(name);
  for (const r of listSessions(root)) {
    if (r.name !== name) continue;
    if (isCloud(r) || (await isAlive(r))) {
      throw new ServiceInvalidArgumentError(`--name "${name}" is taken by live session ${r.id}`, { hint: `end it first (svc sessions end ${name}) or pick another name` });
    }
    await discardSession(r, root);
  }
}

export async function start(g: CloudGlobals, opts: StartOptions): Promise<void> {
  const root = stateRoot();
  if (opts.name !== undefined) await claimName(opts.name, root);
  // Read (and decrypt) the state before anything is launched: a wrong key must not leave a browser behind.
  const state = opts.state !== undefined ? await (await import("./state.js")).readStateFile(opts.state) : undefined;
  const started = await startBrowser(g, opts);
  if (!state) return;
  try {
    await (await import("./state.js")).applyState({ ...g, session: started }, state);
  } catch (e) {
    const r = findSession(started, root);
    if (r) await (isCloud(r) ? endCloud(r, root, await openSettings()) : discardSession(r, root)).catch(() => {});
    throw e;
  }
}

/**
 * A session started for a command that needs one (`svc open`, `svc goto` with none live), with the configured
 * defaults; said once on stderr (stdout stays the command's result). Returns its id.
 */
export async function startForCommand(g: CloudGlobals, command: string, gone: readonly string[] = []): Promise<string> {
  return startBrowser(g, {}, { auto: command, gone });
}

/** Starts the session and prints it (on stderr when `how.auto` names the command it is for); returns its id. */
async function startBrowser(g: CloudGlobals, opts: StartOptions, how: { auto?: string; gone?: readonly string[] } = {}): Promise<string> {
  if (opts.sharedContext && opts.browser === undefined) throw new ServiceInvalidArgumentError("--shared-context goes with --browser");
  if (opts.browser !== undefined) {
    return (await import("./session-join.js")).joinSession(g, { ...opts, browser: opts.browser });
  }
  const settings = await openSettings();
  if (opts.cloud || (await resolveEnv(g, settings)) === "BROWSERBASE") return startCloud(g, opts, settings, how);
  if (opts.timeout !== undefined) throw new ServiceInvalidArgumentError("--timeout applies to a cloud session; a local one ends after --idle-timeout idle minutes");
  const out = output(g);
  const root = stateRoot();
  const idleFlag =
    opts.idleTimeout !== undefined ? parseSetting(settingDef("session.idleTimeoutMinutes"), opts.idleTimeout, "--idle-timeout") : undefined;
  const { defaults, value } = await launchDefaults(opts, { "session.idleTimeoutMinutes": idleFlag }, settings);
  const idleMinutes = Number(value("session.idleTimeoutMinutes"));
  const launch = parseLaunchFlags(opts);
  const userDataDir = opts.profile !== undefined ? await claimProfile(opts.profile, root) : undefined;
  const { id, fields } = prepareSession(g, root, idleMinutes);
  const spec: HostLaunchSpec = {
    launch: {
      headless: defaults.headless,
      ...(defaults.executablePath ? { executablePath: defaults.executablePath } : {}),
      ...(defaults.viewport ? { viewport: defaults.viewport } : {}),
      downloadsPath: fields.downloadsDir as string,
      ...launch.launch,
      ...(userDataDir !== undefined ? { userDataDir } : {}),
    },
    record: {
      ...fields,
      ...(opts.name !== undefined ? { name: opts.name } : {}),
      headless: defaults.headless,
      ...(defaults.viewport ? { viewport: defaults.viewport } : {}),
      ...(defaults.executablePath ? { executablePath: defaults.executablePath } : {}),
      ...launch.record,
    },
    ownerPid: process.pid,
  };
  // The session's one resident process (host.ts) launches Chrome and holds its pipe, saves the record, answers
  // dialogs that open between commands, records downloads and runs later commands. This returns once it
  // watches every page. Interrupted meanwhile: the host ends what it started.
  const record = await runHost(spec, root, { proxyCredentials: launch.proxyCredentials });
  if (id !== record.id) throw new ServiceInitError(`session ${id} started as ${record.id}`);
  if (how.auto) announceStarted(record, how.auto, how.gone);
  else printStarted(out, record, opts.state);
  return record.id;
}

/**
 * A new local session's id and the record fields every start shares (`sessions start`, `svc connect`); its
 * heartbeat exists before the host starts, back-dated to expire LAUNCH_GRACE_MS from now until the record is
 * saved: if this process dies mid-launch (SIGKILL), the unrecorded Chrome goes within a minute.
 */
export function prepareSession(g: GlobalOptions, root: string, idleMinutes: number): { id: string; fields: Omit<HostLaunchSpec["record"], "headless"> } {
  const idleMs = Math.round(idleMinutes * 60_000);
  const id = newSessionId(root);
  ensureDir(sessionsDir(root));
  const downloadsDir = g.downloads !== undefined ? resolve(g.downloads) : defaultDownloadsDir(root, id);
  const heartbeatFile = heartbeatPath(root, id);
  touchHeartbeat(heartbeatFile);
  if (idleMs > LAUNCH_GRACE_MS) {
    const expiresSoon = new Date(Date.now() - idleMs + LAUNCH_GRACE_MS);
    utimesSync(heartbeatFile, expiresSoon, expiresSoon);
  }
  const now = new Date().toISOString();
  return { id, fields: { id, downloadsDir, ...(g.dialog ? { dialog: g.dialog } : {}), createdAt: now, lastUsedAt: now, idleMs, heartbeatFile } };
}

/** The one stderr line of a session started by a command: which, and how it ends. */
function announceStarted(record: StoredSession, command: string, gone: readonly string[] = []): void {
  const ends = isCloud(record) ? `ends with svc sessions end ${record.id}${record.expiresAt ? ` or by ${record.expiresAt}` : ""}` : `ends with svc sessions end ${record.id} or after ${record.idleMs / 60_000} idle min`;
  // A session that died since the last command is named: the new one starts without its pages and cookies.
  const why = gone.length
    ? `${gone.length === 1 ? `session ${gone[0]} is` : `sessions ${gone.join(", ")} are`} no longer running (its browser is gone; record removed)`
    : "no live session";
  process.stderr.write(`svc: ${why}, so ${command} started session ${record.id} (${ends})\n`);
}

function printStarted(out: ReturnType<typeof output>, record: StoredSession, state: string | undefined): void {
  const ref = record.name ?? record.id;
  const named = record.name !== undefined ? ` "${record.name}"` : "";
  const loaded = state !== undefined ? ` with the state of ${state}` : "";
  out.result({ session: record, ...(state !== undefined ? { state } : {}) }, () =>
    isCloud(record)
      ? [
          `cloud session ${record.id}${named} started at ${record.platformUrl}${record.expiresAt ? ` (ends by ${record.expiresAt})` : ""}${loaded}`,
          `use it: svc goto URL [--session ${ref}] · end it: svc sessions end ${ref}`,
        ]
      : [
          `session ${record.id}${named} started (${record.headless ? "headless" : "headed"}, pid ${record.pid}, ends after ${record.idleMs / 60_000} idle min)${loaded}`,
          `use it: svc goto URL [--session ${ref}] · end it: svc sessions end ${ref}`,
        ],
  );
}

/** A platform session with keepAlive: it outlives this command and every later one until ended. */
async function startCloud(g: GlobalOptions, opts: StartOptions, settings: SettingsStore, how: { auto?: string; gone?: readonly string[] }): Promise<string> {
  const out = output(g);
  const root = stateRoot();
  rejectLocalFlags(opts, "a cloud session");
  for (const [flag, set] of [["--profile", opts.profile], ["--proxy", opts.proxy], ["--args", opts.args], ["--user-agent", opts.userAgent], ["--ignore-https-errors", opts.ignoreHttpsErrors]] as const) {
    if (set !== undefined && set !== false) throw new ServiceInvalidArgumentError(`${flag} applies to a local session, not to a cloud session`, { hint: "use --env LOCAL for a browser on this machine" });
  }
  const timeout = opts.timeout;
  const viewport = cloudViewport(settings, opts.viewport);
  const target = await cloudTarget(settings);
  const platform = await platformClient(target);
  const creating = platform.create({ keepAlive: true, ...(timeout !== undefined ? { timeout } : {}), ...(viewport ? { browserSettings: { viewport } } : {}) });
  creating.catch(() => {});
  // Interrupted while the platform starts it: release it once it exists, or it would run unrecorded.
  const release = async () => {
    const created = await creating.catch(() => undefined);
    if (created) await platform.release(created.id).catch(() => {});
  };
  const unregister = registerCleanup(release);
  let record: CloudSessionRecord;
  try {
    const created = await creating;
    const now = new Date().toISOString();
    record = {
      kind: "cloud",
      id: checkId(created.id, "cloud session id"),
      ...(opts.name !== undefined ? { name: opts.name } : {}),
      connectUrl: created.connectUrl,
      apiUrl: target.apiUrl,
      platformUrl: target.platformUrl,
      ...(viewport ? { viewport } : {}),
      createdAt: now,
      lastUsedAt: now,
      ...(typeof created.expiresAt === "string" ? { expiresAt: created.expiresAt } : {}),
    };
    saveSession(record, root);
  } catch (e) {
    await release();
    unregister();
    throw e;
  }
  unregister();
  if (how.auto) announceStarted(record, how.auto, how.gone);
  else printStarted(out, record, opts.state);
  return record.id;
}

function idle(ms: number): string {
  const min = ms / 60_000;
  return Number.isInteger(min) ? `${min}m` : `${min.toFixed(1)}m`;
}

const cloudWord = (s: CloudStatus | undefined) => (s?.status === "running" ? "alive" : (s?.status ?? "unknown"));

export async function list(g: GlobalOptions): Promise<void> {
  const out = output(g);
  const root = stateRoot();
  const records = listSessions(root);
  const clouds = records.filter(isCloud);
  const statuses = clouds.length ? await cloudStatuses(clouds, await openSettings()) : new Map<string, CloudStatus>();
  const rows = await Promise.all(
    records.map(async (r) => {
      if (!isCloud(r)) {
        const alive = await isAlive(r);
        return { ...r, kind: r.attached !== undefined ? ("attached" as const) : ("local" as const), alive, status: alive ? "alive" : "dead" };
      }
      const s = statuses.get(r.id);
      // The platform no longer runs it: nothing can use this record again.
      if (s?.status === "gone") removeSession(r.id, root);
      return { ...r, alive: s?.status === "running", status: cloudWord(s), ...(s && s.status !== "running" ? { detail: s.detail } : {}) };
    }),
  );
  out.result({ sessions: rows }, () =>
    rows.length === 0
      ? ["no sessions (start one with `svc sessions start`)"]
      : table([
          ["ID", "NAME", "KIND", "STATUS", "PID", "MODE", "LAST USED", "IDLE TIMEOUT"],
          ...rows.map((r) =>
            r.kind === "cloud"
              ? [r.id, r.name ?? "-", "cloud", r.status, "-", new URL(r.platformUrl).host, r.lastUsedAt, "-"]
              : [r.id, r.name ?? "-", r.attached !== undefined ? "attached" : "local", r.status, String(r.pid), r.attached !== undefined ? "attached" : r.headless ? "headless" : "headed", r.lastUsedAt, idle(r.idleMs)],
          ),
        ]),
  );
}

export async function show(g: GlobalOptions, idOrName: string): Promise<void> {
  const out = output(g);
  const root = stateRoot();
  checkId(idOrName);
  const record = findSession(idOrName, root);
  const id = record?.id ?? idOrName;
  const metrics = readMetrics(id, root);
  const historyLength = readHistory(id, root)?.length;
  if (!record && !metrics && historyLength === undefined) {
    throw new ServiceSessionNotFoundError(`no session "${id}"`, { hint: "see `svc sessions list`" });
  }
  const cloud = record && isCloud(record) ? await cloudStatus(record, await openSettings()) : undefined;
  const status = !record ? "ended" : cloud ? cloudWord(cloud) : (await isAlive(record as SessionRecord)) ? "alive" : "dead";
  const kind = record ? (isCloud(record) ? "cloud" : record.attached !== undefined ? "attached" : "local") : undefined;
  const detail = cloud && cloud.status !== "running" ? { detail: cloud.detail } : {};
  const data = { session: { ...(record ?? { id }), ...(kind ? { kind } : {}), status, ...detail }, metrics: metrics ?? null, historyEntries: historyLength ?? 0 };
  out.result(data, () => {
    const lines = [`session ${id}: ${status}${cloud && cloud.status !== "running" ? ` (${cloud.detail})` : ""}`];
    if (record) lines.push(...table(record.kind === "cloud" ? cloudLines(record) : localLines(record)));
    lines.push(`  history entries  ${historyLength ?? 0}`, `  commands         ${metrics?.commands ?? 0}`);
    return lines;
  });
}

function localLines(record: SessionRecord): string[][] {
  if (record.attached !== undefined) {
    return [
      ...(record.name !== undefined ? [["  name", record.name]] : []),
      ["  kind", "attached (a Chrome svc did not start: ending the session leaves it running)"],
      ["  attached to", record.attached],
      ["  endpoint", record.wsEndpoint],
      ["  host pid", String(record.pid)],
      ["  created", record.createdAt],
      ["  last used", record.lastUsedAt],
      ["  idle timeout", idle(record.idleMs)],
    ];
  }
  return [
    ...(record.name !== undefined ? [["  name", record.name]] : []),
    ["  pid", String(record.pid)],
    ["  endpoint", record.wsEndpoint],
    ["  profile", record.ownsProfile === false ? `${record.userDataDir} (kept)` : record.userDataDir],
    ["  mode", record.headless ? "headless" : "headed"],
    ...(record.proxy !== undefined ? [["  proxy", record.proxy]] : []),
    ...(record.userAgent !== undefined ? [["  user agent", record.userAgent]] : []),
    ...(record.args?.length ? [["  chrome args", record.args.join(" ")]] : []),
    ...(record.ignoreHTTPSErrors ? [["  https errors", "ignored"]] : []),
    ["  created", record.createdAt],
    ["  last used", record.lastUsedAt],
    ["  idle timeout", idle(record.idleMs)],
  ];
}

function cloudLines(record: CloudSessionRecord): string[][] {
  return [
    ...(record.name !== undefined ? [["  name", record.name]] : []),
    ["  kind", "cloud"],
    ["  platform", record.platformUrl],
    ["  session API", record.apiUrl],
    ["  created", record.createdAt],
    ["  last used", record.lastUsedAt],
    ...(record.expiresAt ? [["  expires", record.expiresAt]] : []),
  ];
}

/** Release a cloud session at its platform (already gone counts as ended), then forget its record. */
async function endCloud(record: CloudSessionRecord, root: string, settings: SettingsStore): Promise<void> {
  const platform = await platformClient(await cloudTarget(settings, record));
  try {
    await platform.release(record.id);
  } catch (e) {
    if ((e as { code?: unknown }).code !== "CLOUD_SESSION_NOT_FOUND") throw e;
  }
  removeSession(record.id, root);
}

export async function end(g: GlobalOptions, id: string | undefined, opts: { all?: boolean }): Promise<void> {
  const out = output(g);
  const root = stateRoot();
  const target = id ?? g.session;
  if (opts.all && target !== undefined) throw new ServiceInvalidArgumentError("give a session id or --all, not both");
  let records: StoredSession[];
  if (opts.all) {
    records = listSessions(root);
  } else if (target !== undefined) {
    const r = findSession(target, root);
    if (!r) throw new ServiceSessionNotFoundError(`no session "${target}"`, { hint: "see `svc sessions list`" });
    records = [r];
  } else {
    const r = listSessions(root)[0];
    if (!r) throw new ServiceSessionNotFoundError("no session to end", { hint: "see `svc sessions list`" });
    records = [r];
  }
  // A session's Chrome goes with it: the sessions that joined it end first.
  const joiners = listSessions(root).filter((j) => !isCloud(j) && j.joined !== undefined && records.some((r) => r.id === j.joined) && !records.includes(j));
  records = [...joiners, ...records];
  const ended: string[] = [];
  const failed: { id: string; error: unknown }[] = [];
  let settings: SettingsStore | undefined;
  for (const r of records) {
    try {
      if (isCloud(r)) await endCloud(r, root, (settings ??= await openSettings()));
      else await discardSession(r, root);
      ended.push(r.id);
    } catch (e) {
      // One unreachable platform must not keep the other sessions running; its record stays for a retry.
      failed.push({ id: r.id, error: e });
    }
  }
  const first = failed[0];
  if (first) {
    if (failed.length === 1 && records.length === 1) throw first.error;
    const why = failed.map((f) => `${f.id}: ${errorMessage(f.error)}`).join("; ");
    const code = (first.error as { code?: unknown }).code;
    throw errorFromCode(typeof code === "string" ? code : undefined, `could not end ${failed.length} session(s) (${why})${ended.length ? `; ended ${ended.join(", ")}` : ""}`);
  }
  out.result({ ended }, () => (ended.length ? ended.map((x) => `ended session ${x}`) : ["no sessions to end"]));
}
