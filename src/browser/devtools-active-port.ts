/**
 * A Chrome the user runs with remote debugging allowed announces itself in its profile's `DevToolsActivePort` file: its
 * port on the first line, its browser WebSocket path on the second (written by chrome://inspect's remote-debugging
 * toggle, Chrome 144+, and by --remote-debugging-port=0). `svc connect --auto` reads it from the usual profile folders,
 * or the one given.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { createConnection } from "node:net";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { ServiceBrowserNotFoundError, ServiceInitError } from "../errors.js";

const FILE = "DevToolsActivePort";
/** The file is two short lines; more than this is not Chrome's. */
const MAX_BYTES = 512;
/** How long the port may take to accept a connection. */
const PROBE_MS = 3_000;

/** The profile folders Chrome and Chromium use by default on this platform (Chrome first). */
export function defaultProfileDirs(platform: NodeJS.Platform = process.platform, home = homedir(), env: NodeJS.ProcessEnv = process.env): string[] {
  if (platform === "darwin") {
    const base = join(home, "Library", "Application Support");
    return ["Google/Chrome", "Google/Chrome Beta", "Google/Chrome Canary", "Chromium"].map((d) => join(base, d));
  }
  if (platform === "win32") {
    const local = env.LOCALAPPDATA ?? join(home, "AppData", "Local");
    return ["Google\\Chrome\\User Data", "Google\\Chrome Beta\\User Data", "Google\\Chrome SxS\\User Data", "Chromium\\User Data"].map((d) => join(local, d));
  }
  const config = env.XDG_CONFIG_HOME ?? join(home, ".config");
  return [...["google-chrome", "google-chrome-beta", "google-chrome-unstable", "chromium"].map((d) => join(config, d)), join(home, "snap", "chromium", "common", "chromium")];
}

/** The file's text, at most MAX_BYTES read; undefined when there is none. */
function readBounded(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    const buf = Buffer.alloc(MAX_BYTES + 1);
    const n = readSync(fd, buf, 0, buf.length, 0);
    if (n > MAX_BYTES) throw new ServiceInitError(`${path}: larger than ${MAX_BYTES} bytes, not a DevToolsActivePort file`);
    return buf.subarray(0, n).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** The port and browser path a DevToolsActivePort file names; a malformed one is an error naming the file. */
export function parseActivePort(text: string, path: string): { port: number; path: string } {
  const [first = "", second = ""] = text.split(/\r?\n/);
  const port = /^\d{1,5}$/.test(first.trim()) ? Number(first.trim()) : NaN;
  if (!(port >= 1 && port <= 65535)) throw new ServiceInitError(`${path}: its first line is not a port 1-65535`);
  const wsPath = second.trim();
  if (!/^\/devtools\/browser\/[A-Za-z0-9-]{1,64}$/.test(wsPath)) throw new ServiceInitError(`${path}: its second line is not a /devtools/browser/<id> path`);
  return { port, path: wsPath };
}

/** Whether something accepts connections on 127.0.0.1:port within PROBE_MS. */
function portAnswers(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    const end = (ok: boolean) => {
      socket.destroy();
      done(ok);
    };
    socket.setTimeout(PROBE_MS, () => end(false));
    socket.once("connect", () => end(true));
    socket.once("error", () => end(false));
  });
}

/**
 * The browser WebSocket of the user's running Chrome, from the first profile folder with a DevToolsActivePort
 * (`dir`: that folder only). BROWSER_NOT_FOUND lists where it looked; a file whose port no longer answers (Chrome
 * quit without removing it) is an error saying so.
 */
export async function findUserChrome(dir?: string): Promise<{ wsEndpoint: string; file: string }> {
  const dirs = dir !== undefined ? [resolve(dir)] : defaultProfileDirs();
  for (const d of dirs) {
    const file = join(d, FILE);
    const text = readBounded(file);
    if (text === undefined) continue;
    const found = parseActivePort(text, file);
    if (!(await portAnswers(found.port))) {
      throw new ServiceInitError(`${file} names port ${found.port}, but nothing answers there: that Chrome is no longer running with remote debugging (a stale file)`, {
        hint: "start Chrome again and allow remote debugging at chrome://inspect/#remote-debugging",
      });
    }
    return { wsEndpoint: `ws://127.0.0.1:${found.port}${found.path}`, file };
  }
  throw new ServiceBrowserNotFoundError(`no running Chrome allows remote debugging: no ${FILE} in ${dirs.join(", ")}`, {
    hint: "in Chrome open chrome://inspect/#remote-debugging and turn it on (Chrome 144+), or start it with --remote-debugging-port=0; --user-data-dir DIR for another profile",
  });
}
