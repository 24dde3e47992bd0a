/**
 * A detached watchdog per launched Chrome (launch.ts), started BEFORE Chrome so the owner can never die leaving an
 * orphan. When the lifeline is cut it kills Chrome and deletes the run dir, and exits once Chrome is gone. It holds
 * Chrome's pipe and serves it on a 0600 socket (pipe-endpoint.ts), so killing it (-9 included) ends Chrome.
 */
import { readFileSync, statSync } from "node:fs";
import { Socket } from "node:net";
import { sep } from "node:path";
import { sleep } from "../util/abort.js";
import { groupMembers, processAlive as alive, processesWhere } from "../util/process.js";
import { holdPipe } from "./pipe-holder.js";
import { removeRunDir } from "./run-dir.js";

interface Spec {
  ownerPid: number;
  runDir: string;
  pidFile: string;
  userDataDir: string;
  lifeline: { kind: "parent" } | { kind: "idle"; heartbeatFile: string; idleMs: number };
}

const spec = JSON.parse(process.argv[2] ?? "{}") as Spec;
const POLL_MS = 250;
/** Whether the profile is the one svc created in the run dir (no other Chrome can be using it). */
const ownsProfile = spec.userDataDir.startsWith(spec.runDir + sep);
/** Chrome's pid once read: the owner's close() deletes the pid file with the run dir. */
let known: number | undefined;

/** One line to the launcher, then stdout is closed: the launcher may be long gone later. */
function tell(message: { ready: { socketPath: string; browserId: string } } | { error: string }): void {
  // The launcher may have been killed meanwhile: EPIPE then, which must not end this watchdog.
  process.stdout.on("error", () => {});
  try {
    process.stdout.end(`${JSON.stringify(message)}\n`);
  } catch {
    // the launcher went away: its own deadline reports it
  }
}

/** Takes the pipe over and serves the endpoint; the launcher hears about the outcome. */
async function serveEndpoint(): Promise<void> {
  try {
    const toChrome = new Socket({ fd: 3, readable: false, writable: true });
    const fromChrome = new Socket({ fd: 4, readable: true, writable: false });
    const held = await holdPipe({ toChrome, fromChrome, runDir: spec.runDir });
    // Nothing written later by this process needs looser modes than the endpoint's.
    process.umask(0o077);
    tell({ ready: { socketPath: held.socketPath, browserId: held.browserId } });
  } catch (e) {
    tell({ error: e instanceof Error ? e.message : String(e) });
  }
}

function chromePid(): number | undefined {
  try {
    const pid = Number(readFileSync(spec.pidFile, "utf8"));
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Chrome's processes: its process group (Chrome leads it; every child it starts stays in it), and on Linux
 * whatever was started with its profile. Once Chrome itself is gone, a profile svc did not create here may
 * already belong to the next Chrome: then only the group counts.
 */
function chromeProcesses(pid: number | undefined): number[] {
  const own = new Set(pid ? groupMembers(pid) : []);
  if ((pid && alive(pid)) || ownsProfile) {
    const flag = `--user-data-dir=${spec.userDataDir}`;
    for (const p of processesWhere((cmdline) => cmdline.split("\0").includes(flag))) own.add(p);
  }
  return [...own];
}

function lifelineCut(): boolean {
  if (spec.lifeline.kind === "parent") return !alive(spec.ownerPid);
  // While the command that started the session runs (a slow launch on a loaded machine), it is not idle.
  if (alive(spec.ownerPid)) return false;
  try {
    return Date.now() - statSync(spec.lifeline.heartbeatFile).mtimeMs > spec.lifeline.idleMs;
  } catch {
    return true; // heartbeat removed: the session was ended or its state wiped
  }
}

/** How long the reaper keeps at ending its Chrome's last processes and removing the run dir. */
const FINISH_MS = 30_000;

/** SIGTERM, then SIGKILL, to every process of this Chrome; resolves once none is left (or at `deadline`). */
async function killAll(deadline: number): Promise<void> {
  const pid = chromePid() ?? known;
  for (const sig of ["SIGTERM", "SIGKILL"] as const) {
    const graceEnd = sig === "SIGTERM" ? Math.min(deadline, Date.now() + 1000) : deadline;
    for (const t of [...(pid ? [-pid] : []), ...chromeProcesses(pid)]) {
      try {
        process.kill(t, sig);
      } catch {
        // gone already
      }
    }
    while (chromeProcesses(pid).length && Date.now() < graceEnd) await sleep(50);
  }
}

/**
 * Ends what is left of this Chrome, then removes the run dir. Under load a child of Chrome (its network
 * service, say) can still be writing into the profile while the dir goes: the removal then fails, and is
 * tried again once that process is gone. Should it still fail at the end, the dir keeps its pid files and
 * the next launch's sweep removes it.
 */
async function finish(): Promise<void> {
  const deadline = Date.now() + FINISH_MS;
  for (;;) {
    await killAll(deadline);
    try {
      removeRunDir(spec.runDir);
      return;
    } catch {
      if (Date.now() >= deadline) return;
    }
    await sleep(POLL_MS);
  }
}

async function main(): Promise<void> {
  void serveEndpoint();
  let seen = false;
  for (;;) {
    // The owner's close() deletes the run dir with the pid file in it: keep the pid once read, or this
    // watchdog would outlive its Chrome until the owner exits (one stray process per session in a server).
    const pid = chromePid() ?? known;
    if (pid) {
      seen = true;
      known = pid;
    }
    if (seen && pid && !alive(pid)) {
      // Chrome ended on its own or by its owner: give the owner a moment to clean up, then make sure.
      await sleep(500);
      await finish();
      return;
    }
    if (!seen && !statSafe(spec.runDir)) return; // the launch failed and its owner cleaned up
    if (lifelineCut()) {
      await finish();
      return;
    }
    await sleep(POLL_MS);
  }
}

function statSafe(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

// Exits once its Chrome is gone, whatever the endpoint's sockets still hold open. Should anything throw,
// Chrome (which dies with this process's pipe anyway) is ended and its run dir removed first.
process.on("uncaughtException", () => void finish().then(() => process.exit(1)));
void main().then(() => process.exit(0));
