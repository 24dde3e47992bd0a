/**
 * A browser's cookies as a whole (persistent and session-only), read and written at the browser level
 * over CDP, and a clean shutdown (Browser.close, then the process gone) after which Chrome's profile
 * files (Local Storage, IndexedDB) are complete on disk. The server's saved contexts are built from these.
 */
import type { Protocol } from "devtools-protocol";
import { processAlive, waitForExit } from "../util/process.js";
import { CdpConnection } from "./cdp/connection.js";

export type BrowserCookie = Protocol.Network.Cookie;

const CALL_TIMEOUT_MS = 10_000;

async function withRoot<T>(wsEndpoint: string, fn: (c: CdpConnection) => Promise<T>): Promise<T> {
  const c = await CdpConnection.connect(wsEndpoint, { protocolTimeout: CALL_TIMEOUT_MS });
  try {
    return await fn(c);
  } finally {
    await c.close().catch(() => {});
  }
}

/** Every cookie of the browser's default context, session-only ones included. */
export async function browserCookies(wsEndpoint: string): Promise<BrowserCookie[]> {
  return withRoot(wsEndpoint, async (c) => (await c.root.send("Storage.getCookies", {})).cookies);
}

/** Sets cookies read by browserCookies(): a session-only cookie stays one (no expiry), the others keep theirs. */
export async function setBrowserCookies(wsEndpoint: string, cookies: readonly BrowserCookie[]): Promise<void> {
  if (!cookies.length) return;
  const params: Protocol.Network.CookieParam[] = cookies.map((k) => ({
    name: k.name,
    value: k.value,
    domain: k.domain,
    path: k.path,
    secure: k.secure,
    httpOnly: k.httpOnly,
    ...(k.sameSite ? { sameSite: k.sameSite } : {}),
    ...(k.session ? {} : { expires: k.expires }),
    priority: k.priority,
    sourceScheme: k.sourceScheme,
    sourcePort: k.sourcePort,
    ...(k.partitionKey ? { partitionKey: k.partitionKey } : {}),
  }));
  await withRoot(wsEndpoint, (c) => c.root.send("Storage.setCookies", { cookies: params }));
}

/**
 * Asks Chrome to close (Browser.close) and waits until its process `pid` is gone: true when it exited
 * within `timeoutMs` (its profile then written out), false otherwise (the caller's close kills it).
 */
export async function closeBrowserCleanly(wsEndpoint: string, pid: number, timeoutMs: number): Promise<boolean> {
  try {
    const c = await CdpConnection.connect(wsEndpoint, { protocolTimeout: CALL_TIMEOUT_MS });
    // The answer may never come: the connection drops as Chrome exits.
    await c.root.send("Browser.close").catch(() => {});
    await c.close().catch(() => {});
  } catch {
    return !processAlive(pid);
  }
  return waitForExit(pid, timeoutMs, 50);
}
