/**
 * The session's page snapshots, numbered through its ref store (the one the library uses for act and extract):
 * refs printed by `svc snapshot` (src/capabilities/page.ts) are the refs `svc act` and the verbs resolve.
 */
import { isCloud, ServiceInvalidArgumentError, sessionRefStore, type StoredSession } from "../../src/base.js";
import { PageSnapshots } from "../../src/internal.js";
import { stateRoot } from "../core/runtime.js";

export function sessionSnapshots(session: StoredSession | undefined): PageSnapshots {
  if (!session || isCloud(session)) {
    throw new ServiceInvalidArgumentError("refs need a local session", { hint: "start one with `svc sessions start`; on a cloud session use a selector" });
  }
  return new PageSnapshots(sessionRefStore(session.id, stateRoot()));
}
