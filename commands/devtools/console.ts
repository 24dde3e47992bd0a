/**
 * The CLI door's page log (`svc console`, `svc errors`: src/capabilities/devtools.ts): what the session's pages logged
 * and threw, as the host recorded them between commands too (host/page-log.ts). Read from the session's files, not
 * the page, so it is the same in the host and in a full `svc` process; tabs are numbered as `svc tabs` numbers them.
 */
import type { PageLogView } from "../../src/capabilities/index.js";
import { type ConsoleEntry, type ErrorEntry, type PageLogKind, ServiceInvalidArgumentError, flushPageLog, isCloud, sessionPageLog, sessionTabStore, type StoredSession } from "../../src/base.js";
import type { Service } from "../../src/index.js";
import type { Output } from "../core/output.js";
import { stateRoot } from "../core/runtime.js";
import { rememberTabs } from "../core/tabs.js";

export function sessionPageLogView(svc: Service, session: StoredSession | undefined, out: Output, kind: PageLogKind): PageLogView {
  if (!session) throw new ServiceInvalidArgumentError(`svc ${kind} lists a live session's pages`, { hint: "svc sessions start" });
  if (isCloud(session)) throw new ServiceInvalidArgumentError(`session ${session.id} runs on the cloud platform: svc ${kind} lists a local session's pages`);
  const root = stateRoot();
  // In the session's host: what it received until now is written first.
  flushPageLog();
  const store = sessionPageLog(session.id, root);
  const tabs = sessionTabStore(session.id, root);
  // A tab closed since the last command keeps the number it was listed under; a new one gets its number now.
  const ids = { ...tabs.load().ids, ...rememberTabs(svc, tabs, out)?.ids };
  return {
    entries: store.read(kind) as Array<ConsoleEntry | ErrorEntry>,
    tabOf: (target) => ids[target],
    clear: () => store.clear(kind),
  };
}
