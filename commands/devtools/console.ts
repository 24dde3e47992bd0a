/**
 * `svc console` and `svc errors`: what the session's pages logged and threw, as the host recorded them between
 * commands too (host/page-log.ts). Read from the session's files, not the page, so it works the same in the host and
 * in a full `svc` process, and a page stuck in a loop still shows its errors. Default: the selected tab; `--all`:
 * every tab.
 */
import { type ConsoleEntry, type ErrorEntry, type PageLogKind, ServiceInvalidArgumentError, flushPageLog, pageLogLine, isCloud, sessionPageLog, sessionTabStore, type StoredSession } from "../../src/base.js";
import type { GlobalOptions } from "../core/output.js";
import { output, resolveSession, stateRoot } from "../core/runtime.js";

export interface PageLogFlags {
  clear?: boolean;
  all?: boolean;
}

interface Tabs {
  /** target id → tab number (`svc tabs`). */
  number(target: string): number | undefined;
  selected: string | undefined;
}

function tabsOf(session: StoredSession, root: string): Tabs {
  const file = sessionTabStore(session.id, root).load();
  return { number: (t) => file.ids[t], selected: file.selected };
}

export async function pageLog(g: GlobalOptions, kind: PageLogKind, flags: PageLogFlags): Promise<void> {
  const out = output(g);
  const root = stateRoot();
  const session = await resolveSession(root, g.session);
  if (isCloud(session)) throw new ServiceInvalidArgumentError(`session ${session.id} runs on the cloud platform: svc ${kind} lists a local session's pages`);
  // In the session's host: what it received until now is written first.
  flushPageLog();
  const store = sessionPageLog(session.id, root);
  const tabs = tabsOf(session, root);
  // The selected tab's entries; a session no command has driven yet has no selected tab: all of them.
  const only = flags.all || tabs.selected === undefined ? undefined : tabs.selected;
  const entries = (store.read(kind) as Array<ConsoleEntry | ErrorEntry>).filter((e) => only === undefined || e.target === only);
  if (flags.clear) store.clear(kind);
  // What the host keeps for itself (when it received it, Chrome's exception id) stays out of the output.
  const rows = entries.map((x) => {
    const e: Partial<ConsoleEntry & ErrorEntry> = { ...x };
    delete e.received;
    delete e.exceptionId;
    return { ...e, tab: tabs.number(x.target) ?? null };
  });
  const what = kind === "console" ? "console messages" : "errors";
  out.result({ session: session.id, tab: only === undefined ? "all" : (tabs.number(only) ?? null), [kind]: rows, ...(flags.clear ? { cleared: true } : {}) }, () => {
    const lines = entries.map((e, i) => pageLogLine(kind, e, rows[i]!.tab ?? undefined));
    if (flags.clear) lines.push(`cleared ${entries.length === 0 ? "(it was empty)" : ""}`.trim());
    return lines.length ? lines : `no ${what}${only === undefined ? "" : " in the selected tab (--all: every tab)"}`;
  });
}
