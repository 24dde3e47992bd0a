/** `svc sessions start|list|show|end`: browsers that outlive one command. */
import { rmSync, utimesSync } from "node:fs";
import { ServiceInvalidArgumentError, ServiceSessionNotFoundError } from "../src/errors.js";
import { ensureDir, checkId } from "../src/store/files.js";
import { readHistory } from "../src/store/history.js";
import { readMetrics } from "../src/store/metrics.js";
import {
  type SessionRecord,
  getSession,
  heartbeatPath,
  isAlive,
  listSessions,
  newSessionId,
  saveSession,
  sessionsDir,
  touchHeartbeat,
} from "../src/store/sessions.js";
import type { LaunchedBrowser } from "../src/browser/launch.js";
import { registerCleanup } from "./cleanup.js";
import type { GlobalOptions } from "./output.js";
import { table } from "./output.js";
import { discardSession, launchDefaults, output, stateRoot } from "./runtime.js";
import { parseSetting, settingDef } from "./settings.js";

const LAUNCH_GRACE_MS = 60_000;

export interface StartOptions {
  headed?: boolean;
  idleTimeout?: string;
  viewport?: string;
  executablePath?: string;
}

export async function start(g: GlobalOptions, opts: StartOptions): Promise<void> {
  const out = output(g);
  const root = stateRoot();
  const idleFlag =
    opts.idleTimeout !== undefined ? parseSetting(settingDef("session.idleTimeoutMinutes"), opts.idleTimeout, "--idle-timeout") : undefined;
  const { defaults, value } = await launchDefaults(opts, { "session.idleTimeoutMinutes": idleFlag });
  const idleMinutes = Number(value("session.idleTimeoutMinutes"));
  const idleMs = Math.round(idleMinutes * 60_000);

  const id = newSessionId(root);
  ensureDir(sessionsDir(root));
  const heartbeatFile = heartbeatPath(root, id);
  // The reaper ends Chrome as soon as this file is missing or stale, so it must exist before launch.
  // Until the record is saved it is back-dated to expire LAUNCH_GRACE_MS from now: if this process dies
  // mid-launch (SIGKILL), the unrecorded Chrome is reaped within a minute, not after the idle timeout.
  touchHeartbeat(heartbeatFile);
  if (idleMs > LAUNCH_GRACE_MS) {
    const expiresSoon = new Date(Date.now() - idleMs + LAUNCH_GRACE_MS);
    utimesSync(heartbeatFile, expiresSoon, expiresSoon);
  }
  const { launchBrowser } = await import("../src/browser/launch.js");

  let launching: Promise<LaunchedBrowser> | undefined;
  // Interrupted mid-launch: let the launch settle, then close what it started.
  const closeLaunched = async () => {
    const launched = await launching?.catch(() => undefined);
    await launched?.close();
  };
  const unregister = registerCleanup(async () => {
    await closeLaunched();
    rmSync(heartbeatFile, { force: true });
  });
  let record: SessionRecord;
  try {
    launching = launchBrowser(
      {
        headless: defaults.headless,
        ...(defaults.executablePath ? { executablePath: defaults.executablePath } : {}),
        ...(defaults.viewport ? { viewport: defaults.viewport } : {}),
      },
      { kind: "idle", heartbeatFile, idleMs },
    );
    const launched = await launching;
    const now = new Date().toISOString();
    record = {
      id,
      wsEndpoint: launched.wsEndpoint,
      port: launched.port,
      pid: launched.pid,
      userDataDir: launched.userDataDir,
      ownsProfile: launched.ownsProfile,
      headless: defaults.headless,
      ...(defaults.viewport ? { viewport: defaults.viewport } : {}),
      ...(defaults.executablePath ? { executablePath: defaults.executablePath } : {}),
      createdAt: now,
      lastUsedAt: now,
      idleMs,
      heartbeatFile,
    };
    saveSession(record, root);
    touchHeartbeat(heartbeatFile);
  } catch (e) {
    await closeLaunched().catch(() => {});
    rmSync(heartbeatFile, { force: true });
    unregister();
    throw e;
  }
  unregister();
  out.result({ session: record }, () => [
    `session ${record.id} started (${record.headless ? "headless" : "headed"}, pid ${record.pid}, ends after ${idleMinutes} idle min)`,
    `use it: svc goto URL [--session ${record.id}] · end it: svc sessions end ${record.id}`,
  ]);
}

function idle(ms: number): string {
  const min = ms / 60_000;
  return Number.isInteger(min) ? `${min}m` : `${min.toFixed(1)}m`;
}

export async function list(g: GlobalOptions): Promise<void> {
  const out = output(g);
  const root = stateRoot();
  const records = listSessions(root);
  const rows = await Promise.all(records.map(async (r) => ({ ...r, alive: await isAlive(r) })));
  out.result({ sessions: rows }, () =>
    rows.length === 0
      ? ["no sessions (start one with `svc sessions start`)"]
      : table([
          ["ID", "STATUS", "PID", "MODE", "LAST USED", "IDLE TIMEOUT"],
          ...rows.map((r) => [r.id, r.alive ? "alive" : "dead", String(r.pid), r.headless ? "headless" : "headed", r.lastUsedAt, idle(r.idleMs)]),
        ]),
  );
}

export async function show(g: GlobalOptions, id: string): Promise<void> {
  const out = output(g);
  const root = stateRoot();
  checkId(id);
  const record = getSession(id, root);
  const metrics = readMetrics(id, root);
  const historyLength = readHistory(id, root)?.length;
  if (!record && !metrics && historyLength === undefined) {
    throw new ServiceSessionNotFoundError(`no session "${id}"`, { hint: "see `svc sessions list`" });
  }
  const status = record ? ((await isAlive(record)) ? "alive" : "dead") : "ended";
  const data = { session: { ...(record ?? { id }), status }, metrics: metrics ?? null, historyEntries: historyLength ?? 0 };
  out.result(data, () => {
    const lines = [`session ${id}: ${status}`];
    if (record) {
      lines.push(
        ...table([
          ["  pid", String(record.pid)],
          ["  endpoint", record.wsEndpoint],
          ["  profile", record.userDataDir],
          ["  mode", record.headless ? "headless" : "headed"],
          ["  created", record.createdAt],
          ["  last used", record.lastUsedAt],
          ["  idle timeout", idle(record.idleMs)],
        ]),
      );
    }
    lines.push(`  history entries  ${historyLength ?? 0}`, `  commands         ${metrics?.commands ?? 0}`);
    return lines;
  });
}

export async function end(g: GlobalOptions, id: string | undefined, opts: { all?: boolean }): Promise<void> {
  const out = output(g);
  const root = stateRoot();
  const target = id ?? g.session;
  if (opts.all && target !== undefined) throw new ServiceInvalidArgumentError("give a session id or --all, not both");
  let records: SessionRecord[];
  if (opts.all) {
    records = listSessions(root);
  } else if (target !== undefined) {
    const r = getSession(target, root);
    if (!r) throw new ServiceSessionNotFoundError(`no session "${target}"`, { hint: "see `svc sessions list`" });
    records = [r];
  } else {
    const r = listSessions(root)[0];
    if (!r) throw new ServiceSessionNotFoundError("no session to end", { hint: "see `svc sessions list`" });
    records = [r];
  }
  const ended: string[] = [];
  for (const r of records) {
    await discardSession(r, root);
    ended.push(r.id);
  }
  out.result({ ended }, () => (ended.length ? ended.map((x) => `ended session ${x}`) : ["no sessions to end"]));
}
