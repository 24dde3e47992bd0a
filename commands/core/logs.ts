/** Which session's history/metrics `svc history` and `svc metrics` show. */
import { ServiceSessionNotFoundError } from "../../src/base.js";
import { checkId, DEFAULT_LOG_ID, findSession, listHistoryIds, listMetricsIds, listSessions, readHistory, readMetrics } from "../../src/base.js";

/**
 * `--session ID` (or "default" for one-shot runs); else the most recently used recorded session; else
 * whichever log was written last, so `svc history` right after `svc sessions end` still shows that session.
 */
export function pickLogId(root: string, explicit: string | undefined): string {
  if (explicit !== undefined) {
    checkId(explicit);
    // A recorded session's name names its logs too.
    const recorded = findSession(explicit, root);
    if (recorded) return recorded.id;
    if (explicit !== DEFAULT_LOG_ID && !readHistory(explicit, root) && !readMetrics(explicit, root)) {
      throw new ServiceSessionNotFoundError(`no session "${explicit}"`, { hint: "see `svc sessions list`" });
    }
    return explicit;
  }
  return listSessions(root)[0]?.id ?? listHistoryIds(root)[0] ?? listMetricsIds(root)[0] ?? DEFAULT_LOG_ID;
}
