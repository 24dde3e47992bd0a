/**
 * The session host's browser (commands/host.ts): the host launches the session's Chrome itself and holds its
 * DevTools pipe (`{ kind: "self" }`, src/browser/pipe-holder.ts), so Chrome lives exactly as long as the
 * host: killing the host in any way (kill -9 included) ends Chrome. It also keeps the session's lifeline:
 * the heartbeat file that every command touches. When it is older than the session's idle timeout, or gone
 * (`svc sessions end`, a wiped state dir), the host ends Chrome and itself.
 */
import { statSync } from "node:fs";
import { type SessionRecord, pidAlive, saveSession, touchHeartbeat } from "../src/base.js";
import type { LaunchedBrowser, LocalBrowserLaunchOptions } from "../src/index.js";

/** What `svc sessions start` hands its host: how to launch, and the record's fields known before launch. */
export interface HostLaunchSpec {
  launch: LocalBrowserLaunchOptions;
  record: Omit<SessionRecord, "wsEndpoint" | "pid" | "userDataDir" | "ownsProfile" | "port">;
  /** The starting command: while it runs (a slow start on a loaded machine) the session is not idle. */
  ownerPid: number;
}

/** Parses and bounds the spec of the host's command line; undefined when it is not one. */
export function parseLaunchSpec(text: string | undefined): HostLaunchSpec | undefined {
  if (text === undefined || text.length > 100_000) return undefined;
  try {
    const s = JSON.parse(text) as Partial<HostLaunchSpec>;
    const r = s.record;
    if (typeof s.launch !== "object" || s.launch === null || typeof r !== "object" || r === null) return undefined;
    if (typeof r.id !== "string" || typeof r.heartbeatFile !== "string" || typeof r.idleMs !== "number" || !(r.idleMs > 0)) return undefined;
    if (!Number.isInteger(s.ownerPid)) return undefined;
    return s as HostLaunchSpec;
  } catch {
    return undefined;
  }
}

/** Launches the session's Chrome held by this process, and saves the session's record. */
export async function launchSessionBrowser(spec: HostLaunchSpec, root: string): Promise<{ record: SessionRecord; browser: LaunchedBrowser }> {
  const { launchBrowser } = await import("../src/index.js");
  const browser = await launchBrowser(spec.launch, { kind: "self" });
  const record: SessionRecord = {
    ...spec.record,
    wsEndpoint: browser.wsEndpoint,
    ...(browser.port ? { port: browser.port } : {}),
    pid: browser.pid,
    userDataDir: browser.userDataDir,
    ownsProfile: browser.ownsProfile,
  };
  try {
    saveSession(record, root);
    touchHeartbeat(record.heartbeatFile, false);
  } catch (e) {
    await browser.close().catch(() => {});
    throw e;
  }
  return { record, browser };
}

/**
 * Whether the session's lifeline is cut: its heartbeat is stale or gone. While the host starts, the
 * starter running counts as a heartbeat (the host touches the heartbeat itself once it is ready).
 */
export function lifelineCut(spec: HostLaunchSpec, starting: boolean): boolean {
  if (starting && pidAlive(spec.ownerPid)) return false;
  try {
    return Date.now() - statSync(spec.record.heartbeatFile).mtimeMs > spec.record.idleMs;
  } catch {
    return true; // heartbeat removed: the session was ended or its state wiped
  }
}
