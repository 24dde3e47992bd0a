/**
 * A detached watchdog, one per launched Chrome (see launch.ts). It polls its lifeline and, once cut, kills
 * Chrome's process group and deletes the profile svc created. It exits as soon as Chrome is gone, so it
 * never lingers past the browser it guards.
 */
import { rmSync, statSync } from "node:fs";

interface Spec {
  chromePid: number;
  ownerPid: number;
  userDataDir?: string;
  lifeline: { kind: "parent" } | { kind: "idle"; heartbeatFile: string; idleMs: number };
}

const spec = JSON.parse(process.argv[2] ?? "{}") as Spec;
const POLL_MS = 250;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function lifelineCut(): boolean {
  if (spec.lifeline.kind === "parent") return !alive(spec.ownerPid);
  try {
    return Date.now() - statSync(spec.lifeline.heartbeatFile).mtimeMs > spec.lifeline.idleMs;
  } catch {
    return true; // heartbeat removed: the session was ended or its state wiped
  }
}

function cleanup(): void {
  if (spec.userDataDir) {
    try {
      rmSync(spec.userDataDir, { recursive: true, force: true, maxRetries: 5 });
    } catch {
      // best effort: a temp dir left behind is harmless compared to a live browser
    }
  }
}

async function main(): Promise<void> {
  for (;;) {
    if (!alive(spec.chromePid)) {
      // Chrome ended on its own or by its owner: give the owner a moment to clean up, then make sure.
      await new Promise((r) => setTimeout(r, 500));
      cleanup();
      return;
    }
    if (lifelineCut()) {
      for (const sig of ["SIGTERM", "SIGKILL"] as const) {
        for (const target of [-spec.chromePid, spec.chromePid]) {
          try {
            process.kill(target, sig);
          } catch {
            // gone already
          }
        }
        for (let i = 0; i < 20 && alive(spec.chromePid); i++) await new Promise((r) => setTimeout(r, 50));
        if (!alive(spec.chromePid)) break;
      }
      cleanup();
      return;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

void main();
