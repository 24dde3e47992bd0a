/**
 * Starting a session's host (commands/host.ts), the session's one resident Node process besides its reaper:
 * detached, so it outlives the command that starts it. `svc sessions start` starts it and waits until it
 * watches every page (its "ready" line); a full command on a session whose host is gone (killed, crashed)
 * starts a new one, which takes over answering dialogs and recording downloads between commands, and waits
 * for it before it lets go of the page. Its command line names the session and the state dir (for `ps`).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import { isCloud, type StoredSession } from "../src/base.js";
import { hostSocketPath } from "./host-client.js";

/** What the host prints on stdout once it watches every page and listens on its socket. */
export const READY_LINE = "ready";
/** How long a starter waits for that line. */
const READY_MS = 30_000;

/** Whether something listens on the socket (the session's host). */
export function listening(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    s.on("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.on("error", () => resolve(false));
  });
}

/** Whether this process is a session's host (which never starts another for its own commands). */
export function isHostProcess(): boolean {
  return (globalThis as { svcHost?: boolean }).svcHost === true;
}

/**
 * Starts the session's host unless one listens. Resolves "running" (one was there), "started" (a new one
 * is ready), or "unbuilt" (run from sources: no host script); rejects when the new host ended or was not
 * ready within READY_MS (it is killed then).
 */
export async function ensureHost(session: StoredSession, root: string): Promise<"running" | "started" | "unbuilt"> {
  if (isCloud(session) || isHostProcess()) return "running";
  const path = hostSocketPath(root, session.id);
  if (existsSync(path) && (await listening(path))) return "running";
  const script = fileURLToPath(new URL("./host.js", import.meta.url));
  if (!existsSync(script)) return "unbuilt";
  const child = spawn(process.execPath, [script, session.id, root], { detached: true, stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, SVC_STATE_DIR: root } });
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      let said = "";
      child.stdout!.setEncoding("utf8").on("data", (d: string) => {
        said += d;
        if (said.split("\n").includes(READY_LINE)) resolve();
      });
      child.on("error", reject);
      child.on("exit", (code) => reject(new Error(`the session's host ended before it watched the session's pages (exit ${code})`)));
      timer = setTimeout(() => reject(new Error(`the session's host did not watch the session's pages within ${READY_MS / 1000} s`)), READY_MS);
    });
  } catch (e) {
    child.kill("SIGKILL");
    throw e;
  } finally {
    clearTimeout(timer);
    child.stdout!.destroy();
    child.unref();
  }
  return "started";
}

/** Starts a host for the session without waiting for it (a host that ends mid-command starts its successor). */
export function spawnHost(id: string, root: string): void {
  const script = fileURLToPath(new URL("./host.js", import.meta.url));
  try {
    const child = spawn(process.execPath, [script, id, root], { detached: true, stdio: "ignore", env: { ...process.env, SVC_STATE_DIR: root } });
    child.on("error", () => {});
    child.unref();
  } catch {
    // the next full command starts one
  }
}
