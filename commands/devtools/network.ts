/**
 * The CLI door's network log (`svc network requests|request`: src/capabilities/network.ts): every tab's requests, as
 * the host recorded them between commands too (host/network.ts). The host is asked to flush first (a control request,
 * answered even mid-command), then the file is read; a body is asked of the host, since Chrome keeps it on the page's
 * session.
 */
import type { NetworkView } from "../../src/capabilities/index.js";
import { ServiceInvalidArgumentError, isCloud, sessionNetworkLog, sessionTabStore, type StoredSession } from "../../src/base.js";
import { askSessionHost } from "../host/ask.js";
import type { GlobalOptions } from "../core/output.js";
import { resolveSession, stateRoot } from "../core/runtime.js";

/** The local session whose host holds the network log (a cloud session has none). */
function localSession(session: StoredSession | undefined, what: string): StoredSession {
  if (!session) throw new ServiceInvalidArgumentError(`svc ${what} records a live session's requests`, { hint: "svc sessions start" });
  if (isCloud(session)) throw new ServiceInvalidArgumentError(`session ${session.id} runs on the cloud platform: svc ${what} records a local session's requests`, { hint: "svc sessions start (local), or --session ID" });
  return session;
}

/** The live local session whose host holds the network log. */
export async function networkSession(g: GlobalOptions, what: string): Promise<{ root: string; session: StoredSession }> {
  const root = stateRoot();
  return { root, session: localSession(await resolveSession(root, g.session), what) };
}

/** `what`: the command, for the error a cloud session gets. */
export async function sessionNetworkView(stored: StoredSession | undefined, what: string): Promise<NetworkView> {
  const session = localSession(stored, what);
  const root = stateRoot();
  // The log as the host holds it now (it writes its pending batch first).
  await askSessionHost(root, session.id, { control: "networkFlush" });
  const log = sessionNetworkLog(session.id, root);
  const entries = log.read();
  const ids = sessionTabStore(session.id, root).load().ids;
  return {
    entries,
    entry: (id) => {
      const e = entries.find((x) => x.id === id);
      if (!e) throw new ServiceInvalidArgumentError(`no request ${id} in session ${session.id}'s network log (it keeps the newest requests, and --clear empties it)`, { hint: "svc network requests lists them" });
      return e;
    },
    body: (id) => askSessionHost<{ body: string; base64Encoded: boolean; bytes: number }>(root, session.id, { control: "networkBody", id }, 60_000),
    tabOf: (target) => ids[target],
    clear: () => log.clear(),
  };
}
