/**
 * Starting a session's host (commands/host.ts): detached and unref'd, so the command that starts it exits
 * as before; the next command on the session finds its socket. Once per session: a socket already there
 * means a host runs (its command line names the session and the state dir, for `ps`) (a stale one is removed by the next client, and the next command starts a new host).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isCloud, type StoredSession } from "../src/base.js";
import { hostEnabled, hostSocketPath } from "./host-client.js";

export function startHost(session: StoredSession, root: string): void {
  if (isCloud(session) || !hostEnabled() || (globalThis as { svcEmbedded?: boolean }).svcEmbedded) return;
  if (existsSync(hostSocketPath(root, session.id))) return;
  const script = fileURLToPath(new URL("./host.js", import.meta.url));
  if (!existsSync(script)) return; // run from sources: no built host
  try {
    const child = spawn(process.execPath, [script, session.id, root], { detached: true, stdio: "ignore", env: { ...process.env, SVC_STATE_DIR: root } });
    child.on("error", () => {});
    child.unref();
  } catch {
    // no host: every command runs in full, as without one
  }
}
