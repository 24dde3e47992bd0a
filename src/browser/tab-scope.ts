/**
 * Which tabs of someone else's browser this client may drive: on a user's own Chrome (`svc connect --auto`) the
 * tabs it created and their popups (store/own-tabs.ts); on a shared Chrome the tabs of one browser context
 * (`contextScope`). Every other tab is released at once, never set up, listed or driven.
 */
import type { CdpSession } from "./cdp/connection.js";

export interface TabScope {
  /** Whether the tab is in scope; a popup whose opener is in scope joins it. */
  owns(targetId: string, openerId?: string, browserContextId?: string): boolean;
  /** Puts a tab this client created in scope. */
  adopt(targetId: string): void;
  /** The CDP browser context the client's new tabs open in (none: a window of its own in the default one). */
  readonly browserContextId?: string;
}

/** The tabs of one CDP browser context (an isolated one, or a browser's default one): its popups stay in it. */
export function contextScope(browserContextId: string): TabScope {
  return { browserContextId, owns: (_targetId, _openerId, context) => context === browserContextId, adopt: () => {} };
}

/** Lets go of a tab not in scope: resumed if it waits for its debugger, then detached. */
export function releaseTab(root: CdpSession, session: CdpSession, sessionId: string, waiting: boolean): void {
  const detach = () => void root.send("Target.detachFromTarget", { sessionId }).catch(() => {});
  if (waiting) void session.send("Runtime.runIfWaitingForDebugger").then(detach, detach);
  else detach();
}
