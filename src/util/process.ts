import { readdirSync, readFileSync } from "node:fs";

/**
 * Is a process alive? (signal 0: no signal is sent; EPERM means it exists under another user.) A zombie —
 * ended, waiting for a parent that may never reap it (a Chrome whose holder was killed, reparented to an init
 * that does not reap) — is not.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
  return !zombie(pid);
}

function zombie(pid: number): boolean {
  if (process.platform !== "linux") return false;
  return procStat(pid)?.state === "Z"; // gone meanwhile, or no /proc: kill(0) said it exists
}

/** What svc reads of `/proc/PID/stat`: the fields after the command's closing parenthesis. */
export interface ProcStat {
  state: string;
  ppid: number;
  pgrp: number;
}

function parseStat(text: string): ProcStat {
  const [state = "", ppid, pgrp] = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { state, ppid: Number(ppid), pgrp: Number(pgrp) };
}

/** Process `pid`'s state, parent and group (Linux); undefined when it is gone or there is no /proc. */
export function procStat(pid: number): ProcStat | undefined {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}

/**
 * Pids of the processes (other than this one) whose command line (`/proc/PID/cmdline`: arguments separated by
 * NUL) `match` accepts. Linux only: [] where there is no /proc.
 */
export function processesWhere(match: (cmdline: string) => boolean): number[] {
  return pidsWhere("cmdline", match);
}

/** Pids (other than this one) whose `/proc/PID/<file>` `match` accepts; [] where there is no /proc. */
function pidsWhere(file: "cmdline" | "stat", match: (text: string) => boolean): number[] {
  const out: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return out;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (match(readFileSync(`/proc/${name}/${file}`, "utf8"))) out.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** Waits until process `pid` is gone, checking every `pollMs`: true when it is, false when `timeoutMs` passed first. */
export async function waitForExit(pid: number, timeoutMs: number, pollMs = 25): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (processAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  return true;
}

/**
 * Pids of the live (not zombie) processes in process group `pgid`. Linux reads /proc; elsewhere the group
 * answers `kill(-pgid, 0)` as a whole, so this is `[pgid]` while any member exists.
 */
export function groupMembers(pgid: number): number[] {
  if (process.platform !== "linux") {
    try {
      process.kill(-pgid, 0);
      return [pgid];
    } catch {
      return [];
    }
  }
  return pidsWhere("stat", (text) => {
    const { state, pgrp } = parseStat(text);
    return pgrp === pgid && state !== "Z";
  });
}
