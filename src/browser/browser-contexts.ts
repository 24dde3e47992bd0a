/**
 * CDP browser contexts on a Chrome several clients share (`svc mcp --shared-browser`, `svc sessions start
 * --browser`): a client's own context keeps its cookies, storage, cache and tabs apart from the others'; the
 * default context is the one every client that asks to share works in. The client's tabs are then scoped to its
 * context (tab-scope.ts `contextScope`).
 */
import type { CdpSession } from "./cdp/connection.js";

/**
 * A new isolated context. Chrome disposes it (and closes its tabs) when the connection that made it goes, so a
 * client killed without its cleanup leaves no context behind.
 */
export async function createIsolatedContext(root: CdpSession): Promise<string> {
  return (await root.send("Target.createBrowserContext", { disposeOnDetach: true })).browserContextId;
}

/** The browser's default context, where Chrome's first tab is and where tabs open unless told otherwise. */
export async function defaultContextId(root: CdpSession): Promise<string> {
  const { defaultBrowserContextId } = await root.send("Target.getBrowserContexts");
  if (!defaultBrowserContextId) throw new Error("this browser does not name its default context (Chrome 120 or later does)");
  return defaultBrowserContextId;
}

/** Ends a context made by createIsolatedContext: its tabs close, its cookies and storage are gone. */
export async function disposeContext(root: CdpSession, browserContextId: string): Promise<void> {
  await root.send("Target.disposeBrowserContext", { browserContextId });
}
