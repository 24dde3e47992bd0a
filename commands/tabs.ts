/**
 * The session's tabs with stable numbers (store/tabs.ts), which `svc tabs` (src/capabilities/tabs.ts) lists.
 * The selected tab is kept in the session's state, so every later command (`--session` or the default
 * session) drives it: withSession restores it before the command and remembers the page it ended on.
 */
import type { Service } from "../src/index.js";
import { syncTabs, type TabsFile, type TabStore } from "../src/base.js";
import type { Output } from "./output.js";

/** Before a command: make the session's selected tab the active page (when it is still open). */
export function restoreSelectedTab(svc: Service, store: TabStore, out: Output): void {
  try {
    const { selected } = store.load();
    const page = selected === undefined ? undefined : svc.context.pages().find((p) => p.targetId === selected);
    if (page && page !== svc.context.activePage()) svc.context.setActivePage(page);
  } catch (e) {
    out.log(1, `could not restore the selected tab: ${(e as Error).message}`);
  }
}

/** After a command: number new tabs, forget closed ones, and select the page the command ended on. */
export function rememberTabs(svc: Service, store: TabStore, out: Output): TabsFile | undefined {
  try {
    const file = syncTabs(store.load(), svc.context.pages().map((p) => p.targetId));
    const active = svc.context.activePage();
    const next = { ...file, ...(active && active.targetId in file.ids ? { selected: active.targetId } : {}) };
    store.save(next);
    return next;
  } catch (e) {
    out.log(1, `could not save the session's tabs: ${(e as Error).message}`);
    return undefined;
  }
}
