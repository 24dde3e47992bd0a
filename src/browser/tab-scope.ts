/**
 * Which tabs of a browser are this client's to drive, when the browser is someone else's (a user's own Chrome,
 * `svc connect --auto`): the tabs it created, and the popups they opened. Every other tab is released at once
 * (left running, never set up, listed or driven). The scope is kept where every process of the session reads it
 * (a CLI session's file, src/store/own-tabs.ts).
 */
import type { CdpSession } from "./cdp/connection.js";

export interface TabScope {
  /** Whether the tab is in scope; a popup whose opener is in scope joins it. */
  owns(targetId: string, openerId?: string): boolean;
  /** Puts a tab this client created in scope. */
  adopt(targetId: string): void;
}

/** Lets go of a tab not in scope: resumed if it waits for its debugger, then detached. */
export function releaseTab(root: CdpSession, session: CdpSession, sessionId: string, waiting: boolean): void {
  const detach = () => void root.send("Target.detachFromTarget", { sessionId }).catch(() => {});
  if (waiting) void session.send("Runtime.runIfWaitingForDebugger").then(detach, detach);
  else detach();
}
