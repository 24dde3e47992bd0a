/**
 * The library's light entry point: errors, small helpers and the CLI's state directory, loading no browser, model or
 * server code, so commands that only touch state (`svc config`, `svc history`, the start of every command) stay
 * cheap. Each name is here because a command imports it; a name no command needs leaves. Explicit named exports only.
 */
// The error classes commands throw or tell apart before the library is loaded.
export {
  MissingLLMConfigurationError,
  ServiceBrowserNotFoundError,
  ServiceError,
  ServiceElementNotFoundError,
  ServiceEvalError,
  ServiceFetchError,
  ServiceInitError,
  ServiceInvalidArgumentError,
  ServiceNavigationError,
  ServiceSearchNotConfiguredError,
  ServiceSessionNotFoundError,
  ServiceStateError,
  ServiceTimeoutError,
  type ServiceErrorCode,
} from "./errors.js";
// Errors: rebuilding an error a session host sent by code, and one line of any thrown value.
export { errorFromCode, errorMessage } from "./errors.js";
// Small helpers: waiting, cancellation, atomic and regular files, address and URL policies, zod issues, JSON Schema.
export { Cancellation, sleep, within } from "./util/abort.js";
export { AddressPolicy } from "./util/address-policy.js";
export { checkUrlPolicy } from "./util/url-policy.js";
export { checkTypedUrl, looksLikeUrl, typedUrl } from "./util/typed-url.js";
export { writeFileAtomic } from "./util/atomic-write.js";
export { waitForExit } from "./util/process.js";
export { fromJsonSchema } from "./util/json-schema.js";
export { regularFile } from "./util/regular-file.js";
export { describeIssue } from "./util/zod.js";
// The CLI's state directory: files, sessions, refs, tabs, dialogs, history, metrics, secrets, saved state.
export { configDir } from "./store/config-file.js";
export { sessionDialogAnswer } from "./store/dialog-answer.js";
export { DEVICES, deviceByName, findDevice } from "./store/devices.js";
export { type EmulationField, type SessionEmulation, checkGeo, checkHeaders, checkLocale, checkTimezone, checkUserAgent, checkViewport, sessionEmulationStore } from "./store/emulation.js";
export { checkId, describeFsError, ensureDir, ensureStateDir, mkdirp } from "./store/files.js";
export { DEFAULT_LOG_ID, type StoredHistoryEntry, appendHistory, listHistoryIds, readHistory } from "./store/history.js";
export { addMetrics, listMetricsIds, readMetrics } from "./store/metrics.js";
export { type InputState, sessionInputStore } from "./store/input-state.js";
export { sessionRefStore } from "./store/refs.js";
export { sessionScreenshotStore } from "./store/screenshot-state.js";
export { type SessionRoute, ROUTE_LIMITS, bodyBytes as routeBodyBytes, checkContentType, checkPattern as checkRoutePattern, checkStatus as checkRouteStatus, sessionRouteStore } from "./store/routes.js";
export { type ConsoleEntry, type ErrorEntry, type PageLogKind, bounded as boundedPageLog, flushPageLog, onPageLogFlush, pageLogLine, sessionPageLog } from "./store/page-log.js";
export { sessionMasker, sessionSecretStore } from "./store/secrets.js";
export { type NetworkEntry, NETWORK_LOG_LIMITS, NETWORK_REQUEST_ID, durationWord, entryDuration, headerLines, networkClearedAt, sessionNetworkLog, statusWord } from "./store/network-log.js";
export {
  type CloudSessionRecord,
  type SessionRecord,
  type StoredSession,
  checkSessionName,
  defaultDownloadsDir,
  findSession,
  heartbeatPath,
  isAlive,
  isCloud,
  listSessions,
  newSessionId,
  pidAlive,
  pidBelongsToSession,
  removeSession,
  saveSession,
  sessionsDir,
  touchHeartbeat,
  touchSession,
  viewLaunchDir,
} from "./store/session-records.js";
export {
  type Effective,
  type SettingValue,
  SETTINGS,
  displayValue,
  effectiveSetting,
  parseSetting,
  parseViewport,
  settingDef,
  splitList,
  storagePath,
} from "./store/settings-defs.js";
export { resolveStateDir } from "./store/state-dir.js";
export { openSealed, readSavedState, sealState, writeSavedState } from "./store/state-file.js";
export { type TabStore, type TabsFile, sessionTabStore, syncTabs } from "./store/tabs.js";
export { type OwnTabs, sessionOwnTabs } from "./store/own-tabs.js";
export { contextScope } from "./browser/tab-scope.js";
