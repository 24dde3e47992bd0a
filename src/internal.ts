/**
 * What the faces (src/server/, src/mcp/, commands/) use beyond the public API (src/index.ts): parts of the
 * library that a library user has no business with, exported here so the faces never reach into the
 * library's folders directly. Explicit named exports only.
 */
export { CdpConnection, type CdpSession } from "./browser/cdp/connection.js";
export { checkFetchUrl } from "./fetch/index.js";

// Server-only helpers (src/server/): what `svc serve` does to its sessions' Chromes and model gateway.
export { checkModelEndpoint } from "./model/endpoint.js";
export { type GatewayTarget, gatewayTarget } from "./model-gateway.js";
export { type BrowserEmulation, BrowserEmulationSchema, emulates, type HeldEmulation, holdEmulation } from "./browser/emulation.js";
export { type LoadedExtension, loadedExtension, loadWithoutFileAccess } from "./browser/extension-access.js";
export { type BrowserRecorder, type RecorderOptions, type RecorderSinks, startRecorder } from "./browser/recorder.js";
export type { DownloadBudget } from "./browser/recorder-downloads.js";
export { type BrowserCookie, browserCookies, setBrowserCookies, closeBrowserCleanly } from "./browser/profile-state.js";

// --- the CLI (commands/) -------------------------------------------------------------------------------
// The light part (errors, small helpers, the CLI's state directory) is src/base.ts.
// Settings → model, and the model clients' keys and providers.
export { type SettingsModel, modelFromSettings } from "./settings.js";
export { PROVIDERS, envKeysFor, parseModelConfig, resolveApiKey } from "./model/index.js";
// Cloud sessions: the platform's URLs and its session client.
export { cloudUrls } from "./cloud.js";
export { ApiClient } from "./platform/http.js";
export { PlatformSessions } from "./platform/session-client.js";
export { cleanText } from "./platform/search.js";
// A live session's page, reached from a CLI command: dialogs, downloads, element calls, refs, snapshots.
export { DialogHandler, type HandledDialog } from "./browser/dialogs.js";
export { ConsoleRecorder } from "./browser/console-recorder.js";
export { PAPER, type PaperFormat, printPdf } from "./browser/pdf.js";
export { type EmulationApplied, PageEmulation } from "./browser/page-emulation.js";
export { pageViewport } from "./browser/connect.js";
export { PAGE_NETWORK_ENABLE } from "./browser/page.js";
export { type NetworkEntry, NETWORK_REQUEST_ID, durationWord, headerLines, statusWord } from "./store/network-log.js";
export { type FetchApplied, PageFetch, type ProxyCredentials } from "./browser/page-fetch.js";
export { BrowserTrace, DEFAULT_TRACE_CATEGORIES, SCREENSHOT_CATEGORY, TRACE_MAX_SIZE_MB, type TraceWritten, checkTraceMaxSize } from "./browser/trace.js";
export { boundWords } from "./browser/trace-bound.js";
export { type TraceSummary, summaryLines, summarizeTraceFile } from "./browser/trace-summary.js";
export { type SessionRoute, ROUTE_LIMITS, checkRoutes } from "./store/routes.js";
export { DEVICES, findDevice } from "./store/devices.js";
export { type SessionEmulation, checkEmulation } from "./store/emulation.js";
export { type ConsoleEntry, type ErrorEntry, type PageLogKind, pageLogLine } from "./store/page-log.js";
export { DownloadWatcher, formatSize, listDownloads, pruneEmptyDownloads } from "./browser/downloads.js";
export { NETWORK_BODY_LIMIT, NETWORK_ENABLE_PARAMS, type NetworkBody, type NetworkPage, NetworkRecorder, type NetworkRecorderOptions } from "./browser/network-recorder.js";
export { type Har, type HarBody, type HarEntry, buildHar, harTimings } from "./browser/har.js";
export { callOn } from "./browser/element.js";
export type { ElementHandle } from "./browser/resolve.js";
export { sweepRunDirs } from "./browser/run-dir.js";
export { FIND_KINDS, type FindKind, type FindQuery, findElements } from "./browser/find.js";
export { type Box, countMatches, elementBox } from "./browser/inspect.js";
export { modifierBit } from "./browser/input.js";
export { selectorOf } from "./browser/resolve.js";
export { resolveTarget } from "./operations/perform.js";
export { PageSnapshots } from "./operations/snapshots.js";
export { type Variables, parseVariables } from "./operations/variables.js";
export { PageRefs } from "./snapshot/index.js";
