import type { Logger } from "../log.js";
import type { RemoteLogLine } from "../platform/session-api.js";

/** A server's log line, re-emitted through this process's logger at its own level. */
export function forwardLog(log: Logger, line: RemoteLogLine): void {
  const category = line.category ?? "server";
  const aux = line.auxiliary && !("event" in line.auxiliary) ? line.auxiliary : undefined;
  if (line.level === 0) log.error(category, line.message, aux);
  else if (line.level === 2) log.debug(category, line.message, aux);
  else log.info(category, line.message, aux);
}
