/**
 * Starting a session's host, detached so it outlives the command that starts it; the command waits for its "ready"
 * line (it watches every page) or its error. Its command line names only the session and state dir (for `ps`): a
 * proxy's password goes in its environment, readable by this user only.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ServiceInitError, errorFromCode } from "../../src/base.js";
import { type HostLaunchSpec, PROXY_AUTH_ENV } from "./browser.js";
import type { ProxyCredentials } from "./fetch.js";

/** What the host prints on stdout once it watches every page and listens on its socket. */
export const READY_LINE = "ready";
/** How long a starter waits for that line: Chrome's own start may take 30 s on a loaded machine. */
const READY_MS = 60_000;

/**
 * Node flags of the resident process: a young generation of 1 MB semi-spaces instead of 16 (the host's
 * garbage is short-lived command output): its RSS after ten commands is ~75 MB instead of ~91. Not
 * `--optimize-for-size`: it saved another 2–3 MB but cost ~40 % more CPU on a large page's snapshot
 * (docs/performance.md).
 */
const HOST_NODE_FLAGS = ["--max-semi-space-size=1"];

/** A started host: `stop()` ends it and the Chrome it launched (an interrupted or failed start). */
export interface StartingHost {
  ready: Promise<void>;
  stop(): void;
}

/**
 * Starts the session's host with its launch spec. `ready` resolves once the host watches the session's
 * pages (its record saved); it rejects with the host's own error (its code kept: a missing Chrome is still
 * BROWSER_NOT_FOUND), or when the host ended or was not ready within READY_MS (it is stopped then).
 */
export function startHost(spec: HostLaunchSpec, root: string, secrets: { proxyCredentials?: ProxyCredentials | undefined } = {}): StartingHost {
  // Built, this code sits in a chunk in dist/commands/ or in dist/commands/host/; from TypeScript sources (tests)
  // the build's. Never "./main.js": beside a chunk, that is the CLI.
  const script = [new URL("./host/main.js", import.meta.url), new URL("../host/main.js", import.meta.url), new URL("../../dist/commands/host/main.js", import.meta.url)].map((u) => fileURLToPath(u)).find((p) => existsSync(p));
  if (!script) throw new ServiceInitError("svc is not built: commands/host/main.js missing", { hint: "run npm run build" });
  const child = spawn(process.execPath, [...HOST_NODE_FLAGS, script, spec.record.id, root, JSON.stringify(spec)], { detached: true, stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, SVC_STATE_DIR: root, ...(secrets.proxyCredentials ? { [PROXY_AUTH_ENV]: JSON.stringify(secrets.proxyCredentials) } : {}) } });
  // SIGTERM: the host ends what it started (Chrome, its run dir, the record) before it exits.
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  };
  let timer: NodeJS.Timeout | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    let said = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      said += d;
      const lines = said.split("\n");
      if (lines.includes(READY_LINE)) return resolve();
      const error = lines.find((l) => l.startsWith("{"));
      if (error && said.endsWith("\n")) reject(hostError(error));
    });
    child.on("error", reject);
    child.on("exit", (code) => reject(new ServiceInitError(`the session's host ended before it watched the session's pages (exit ${code})`)));
    timer = setTimeout(() => reject(new ServiceInitError(`the session's host did not watch the session's pages within ${READY_MS / 1000} s`)), READY_MS);
  }).finally(() => {
    clearTimeout(timer);
    child.stdout!.destroy();
    child.unref();
  });
  ready.catch(stop);
  return { ready, stop };
}

function hostError(line: string): Error {
  try {
    // The message carries the error's hint already.
    const { error } = JSON.parse(line) as { error: { message: string; code?: string } };
    return errorFromCode(error.code, error.message);
  } catch {
    return new ServiceInitError(`the session's host failed: ${line.slice(0, 500)}`);
  }
}
