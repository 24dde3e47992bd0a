/**
 * The session host's one Service, kept between commands so a command does not attach afresh (a full `svc` process
 * attaches for its one command). It is reused only when the next command would build the same one; what other
 * processes may change meanwhile (refs, selected tab, secrets, dialog answer) is read again. Dropped after a failed
 * or interrupted command and after KEEP_COMMANDS.
 */
import type { Service, ServiceOptions } from "../../src/index.js";
import { isForwardedEnv } from "../registry/host-env.js";

/** Commands one kept Service serves before a fresh one is built (bounds what it accumulates). */
const KEEP_COMMANDS = 200;

interface Kept {
  key: string;
  svc: Service;
  served: number;
}

let kept: Kept | undefined;

/** Whether this process is a session host, which keeps its Service between commands. */
export function keepsService(): boolean {
  return (globalThis as { svcHost?: boolean }).svcHost === true;
}

/** The kept Service when `key` matches what it was kept with; else none (the old one closed). */
export function takeKept(key: string): Service | undefined {
  const k = kept;
  kept = undefined;
  if (!k) return undefined;
  if (k.key === key && k.served < KEEP_COMMANDS) {
    kept = k;
    return k.svc;
  }
  void k.svc.close().catch(() => {});
  return undefined;
}

/** Keeps `svc` for the next command (it served one more). */
export function keep(svc: Service, key: string): void {
  const served = kept?.svc === svc ? kept.served + 1 : 1;
  if (kept && kept.svc !== svc) void kept.svc.close().catch(() => {});
  kept = { key, svc, served };
}

/** Forgets `svc` if it is the kept one (the caller closes it, or already did). */
export function forget(svc: Service): void {
  if (kept?.svc === svc) kept = undefined;
}

/**
 * What a command's Service is built from: its options (the session's endpoint, viewport, downloads, dialog
 * policy, cache and search URL; the ref store is the session's own), the verbosity its logger prints at,
 * and the environment the host applied for the command.
 */
export function keptKey(options: ServiceOptions, verbose: number | undefined): string {
  const env = Object.entries(process.env)
    .filter(([k]) => isForwardedEnv(k))
    .sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify({ options, verbose, env });
}
