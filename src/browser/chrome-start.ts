/**
 * The parts of starting Chrome that decide whether it can start at all, and what to say when it cannot:
 * a display for a headed window, and Chrome's own fatal line (read from its log) instead of a bare
 * `connect ECONNREFUSED`. (The run folder short enough for Chrome's singleton socket: run-dir.ts.)
 */
import type { ChildProcess } from "node:child_process";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { ServiceInitError } from "../errors.js";
import type { LocalBrowserLaunchOptions } from "./types.js";

/** A headed Chrome on Linux needs an X or Wayland display; without one it exits before opening its port. */
export function checkDisplay(options: LocalBrowserLaunchOptions): void {
  if (options.headless ?? true) return;
  if (process.platform !== "linux") return;
  if (process.env.DISPLAY || process.env.WAYLAND_DISPLAY) return;
  if ((options.args ?? []).some((a) => a.startsWith("--ozone-platform"))) return;
  throw new ServiceInitError("no display: set DISPLAY or use headless", {
    hint: "headless: true (CLI: drop --headed), or run under a display (e.g. xvfb-run)",
  });
}

/** Chrome could not open an opted-in DevTools port (`port`): it keeps running without one, so this line ends the wait. */
const NO_DEVTOOLS = /Cannot start http server for devtools/i;

/** Lines Chrome writes on every start on a server (no D-Bus, no cpufreq) that never explain a failure. */
const NOISE = /dbus|crashpad|zygote_linux|Fontconfig|cpufreq|sandbox_linux|gpu_init|viz_main|gl_(surface|display)|angle/i;

/** Chrome's own reason for ending: its FATAL line, else its last ERROR lines that are not routine noise. */
function chromeFailureLine(log: string): string | undefined {
  const lines = log.split("\n").map((l) => l.trim()).filter((l) => l.startsWith("["));
  const fatal = lines.find((l) => /:FATAL:/.test(l));
  if (fatal) return fatal;
  const errors = lines.filter((l) => /:ERROR:/.test(l) && !NOISE.test(l));
  return errors.length ? errors.slice(-2).join(" · ") : undefined;
}

function readFrom(file: string, offset: number): string {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return "";
  }
  try {
    const size = statSync(file).size;
    if (size <= offset) return "";
    const buf = Buffer.alloc(Math.min(size - offset, 1 << 20));
    const n = readSync(fd, buf, 0, buf.length, offset);
    return buf.subarray(0, n).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** chrome-launcher appends Chrome's stderr to this file in the profile; only what follows `offset` is ours. */
export function chromeErrLog(userDataDir: string): { file: string; offset: number } {
  const file = join(userDataDir, "chrome-err.log");
  let offset = 0;
  try {
    offset = statSync(file).size;
  } catch {
    // not there yet
  }
  return { file, offset };
}

/** What the pipe's holder answers once its DevTools endpoint is up (pipe-holder.ts). */
export interface EndpointReady {
  socketPath: string;
  browserId: string;
}

/**
 * Waits for the DevTools endpoint of the pipe's holder (`ready`). Chrome exiting first, or the deadline passing, is a
 * ServiceInitError carrying Chrome's own fatal line.
 */
export async function waitForEndpoint(child: ChildProcess, log: { file: string; offset: number }, timeoutMs: number, ready: Promise<EndpointReady>): Promise<EndpointReady> {
  let exited: string | undefined;
  let settled: { ok: EndpointReady } | { error: unknown } | undefined;
  ready.then((ok) => (settled = { ok }), (error: unknown) => (settled = { error }));
  const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
    exited = signal ? `signal ${signal}` : `exit code ${code}`;
  };
  child.once("exit", onExit);
  if (child.exitCode !== null || child.signalCode !== null) onExit(child.exitCode, child.signalCode);
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (settled && "ok" in settled) return settled.ok;
      const text = readFrom(log.file, log.offset);
      const noPort = text.split("\n").find((l) => NO_DEVTOOLS.test(l));
      if (noPort) throw new ServiceInitError(`Chrome could not open its DevTools port: ${noPort.trim()}`, { hint: "the port is in use; choose another localBrowserLaunchOptions.port, or leave it unset" });
      if (exited !== undefined || settled || Date.now() > deadline) {
        // Chrome may still be flushing its last lines when the exit is seen.
        await new Promise((r) => setTimeout(r, 100));
        const why = chromeFailureLine(readFrom(log.file, log.offset));
        if (exited === undefined && settled && "error" in settled && !why) throw settled.error;
        const what = exited !== undefined ? `Chrome exited during startup (${exited})` : settled ? "Chrome's DevTools endpoint did not start" : `Chrome did not open its DevTools endpoint within ${Math.round(timeoutMs / 1000)} s`;
        throw new ServiceInitError(why ? `${what}: ${why}` : what);
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  } finally {
    child.off("exit", onExit);
  }
}
