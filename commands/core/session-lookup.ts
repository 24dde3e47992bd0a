/**
 * Finding the session a command uses: `--session ID|NAME`, else the most recently used live one; and
 * forgetting one whose browser is gone (its leftovers removed). Split from runtime.ts, which re-exports it.
 */
import { existsSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { ServiceSessionNotFoundError } from "../../src/base.js";
import { type CloudSessionRecord, defaultDownloadsDir, findSession, isAlive, isCloud, listSessions, pidAlive, pidBelongsToSession, removeSession, type StoredSession, waitForExit } from "../../src/base.js";
import { cloudStatus } from "./cloud.js";
import { type SettingsStore, openSettings } from "./settings.js";

/** The session whose host this process is (host.ts): its Chrome is the one this process holds. */
let hosted: string | undefined;

/** Called by the session host: its own session is alive while its Chrome runs, without probing its own endpoint. */
export function holdsSession(id: string): void {
  hosted = id;
}

function alive(record: Parameters<typeof isAlive>[0]): Promise<boolean> {
  if (record.id === hosted && record.attached === undefined) return Promise.resolve(pidAlive(record.pid));
  return isAlive(record);
}

/** How long `sessions end` waits for an attached session's host to end (it checks every 500 ms). */
const HOST_END_MS = 5_000;
/** How long it waits for a kept profile's Chrome to exit cleanly (host/browser.ts allows it 10 s after the host noticed). */
const CLEAN_END_MS = 12_000;

const START_HINT = "start one with `svc open URL` or `svc sessions start`";
const NEW_HINT = "start a new one with `svc sessions start`";

/**
 * Forget a session whose Chrome is gone (or unreachable): kill what is left of it if the pid is still
 * provably its Chrome, delete the profile svc created, remove the record and heartbeat. A cloud
 * session's record only (its browser is the platform's to end: see `svc sessions end`).
 */
export async function discardSession(record: StoredSession, root: string): Promise<void> {
  if (isCloud(record)) return removeSession(record.id, root);
  // `svc connect`: that Chrome is not svc's to end; its host (record.pid) ends once the record is gone.
  if (record.attached !== undefined) {
    removeSession(record.id, root);
    await waitForExit(record.pid, HOST_END_MS);
    return;
  }
  // A kept profile (--profile): the host closes Chrome cleanly, so its cookies and storage are written out,
  // once the record is gone; only a Chrome still running after that is killed.
  if (record.ownsProfile === false && pidAlive(record.pid)) {
    removeSession(record.id, root);
    await waitForExit(record.pid, CLEAN_END_MS);
  }
  const singleton = singletonDir(record.userDataDir);
  if (pidBelongsToSession(record) !== false) {
    const { killBrowserProcess } = await import("../../src/internal.js");
    killBrowserProcess(record.pid, record.ownsProfile === false ? undefined : record.userDataDir);
    await waitForExit(record.pid, 3000);
  }
  if (record.ownsProfile !== false && existsSync(record.userDataDir)) {
    rmSync(record.userDataDir, { recursive: true, force: true, maxRetries: 3 });
  }
  if (singleton && !pidAlive(record.pid)) rmSync(singleton, { recursive: true, force: true });
  // The session's host (holder.pid in Chrome's run dir) removes that dir once it sees Chrome gone: wait for
  // it, so nothing of the session is left when this returns.
  const holder = record.ownsProfile === false ? undefined : holderOf(record.userDataDir);
  if (holder !== undefined && holder !== process.pid) await waitForExit(holder, HOST_END_MS);
  const internal = await import("../../src/internal.js");
  // The run dir of a Chrome whose holder (the session's host) was killed: nothing else removes it.
  internal.sweepRunDirs();
  // Downloaded files outlive the session; a folder that got none goes with it.
  internal.pruneEmptyDownloads(record.downloadsDir ?? defaultDownloadsDir(root, record.id));
  removeSession(record.id, root);
}

/**
 * Chrome keeps its singleton socket in a directory of its own under TMPDIR
 * (org.chromium.Chromium.XXXXXX), linked from the profile's SingletonSocket. A killed Chrome leaves it
 * behind; find it before the profile is deleted.
 */
function singletonDir(userDataDir: string): string | undefined {
  try {
    const dir = dirname(readlinkSync(join(userDataDir, "SingletonSocket")));
    return /[/\\]\.?(org\.chromium\.Chromium|com\.google\.Chrome)\.[\w-]+$/.test(dir) ? dir : undefined;
  } catch {
    return undefined;
  }
}


/**
 * The most recently used live session, if any, and the ids of recorded sessions found dead on the way
 * (each cleaned up). Cloud sessions are asked about at their platform; one that cannot be asked is skipped.
 */
export async function liveOrGone(
  root: string,
  statusOf: (r: CloudSessionRecord) => Promise<{ status: string; detail?: string }> = async (r) => cloudStatus(r, await openSettings()),
): Promise<{ live?: StoredSession; gone: string[] }> {
  const gone: string[] = [];
  for (const record of listSessions(root)) {
    if (isCloud(record)) {
      const s = await statusOf(record);
      if (s.status === "running") return { live: record, gone };
      if (s.status === "gone") {
        removeSession(record.id, root);
        gone.push(record.id);
      }
      continue;
    }
    if (await alive(record)) return { live: record, gone };
    await discardSession(record, root);
    gone.push(record.id);
  }
  return { gone };
}

/**
 * `--session ID` (or a session's name), else the most recently used live session. A dead explicit session is an error naming
 * it (its stale record removed); dead implicit candidates are cleaned up and skipped. A cloud session
 * is asked about at its platform; when the platform cannot be asked, an explicit one is tried anyway
 * (connecting gives the real error) and an implicit one is skipped.
 */
export async function resolveSession(root: string, id: string | undefined): Promise<StoredSession> {
  let settings: SettingsStore | undefined;
  const statusOf = async (r: CloudSessionRecord) => cloudStatus(r, (settings ??= await openSettings()));
  if (id !== undefined) {
    const record = findSession(id, root);
    if (!record) throw new ServiceSessionNotFoundError(`no session "${id}"`, { hint: `see \`svc sessions list\`, or ${START_HINT}` });
    if (isCloud(record)) {
      const s = await statusOf(record);
      if (s.status === "gone") {
        removeSession(record.id, root);
        throw new ServiceSessionNotFoundError(`cloud session ${id} is no longer running (${s.detail}); removed its record`, { hint: `${START_HINT} --cloud` });
      }
      return record;
    }
    if (!(await alive(record))) {
      await discardSession(record, root);
      throw new ServiceSessionNotFoundError(`session ${id} is no longer running: its browser is gone; removed its record`, {
        hint: NEW_HINT,
      });
    }
    return record;
  }
  const { live, gone } = await liveOrGone(root, statusOf);
  if (live) return live;
  if (gone.length) {
    // Sessions were recorded but their browsers ended (idle timeout, crash, killed): say so, not "none".
    const which = gone.length === 1 ? `session ${gone[0]} is` : `sessions ${gone.join(", ")} are`;
    throw new ServiceSessionNotFoundError(`${which} no longer running: its browser is gone (ended after idling, crashed or killed); removed its record`, {
      hint: NEW_HINT,
    });
  }
  throw new ServiceSessionNotFoundError("no running session", { hint: START_HINT });
}

/** The pid of the process holding the pipe of the Chrome whose profile is `<run dir>/profile`, if recorded. */
function holderOf(userDataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dirname(userDataDir), "holder.pid"), "utf8"));
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
