/**
 * What the faces (src/server/, src/mcp/, commands/) use beyond the public API (src/index.ts): parts of the
 * library that a library user has no business with, exported here so the faces never reach into the
 * library's folders directly. Each name is here because a face imports it (the group's comment says which
 * and why); a name no face needs leaves. Explicit named exports only.
 */
// svc's CDP connection: the server's target watch (features/target-watch.ts) and live view, and the CLI
// session host's own connection to its Chrome.
export { CdpConnection, type CdpSession } from "./browser/cdp/connection.js";
// The fetch tool's address check, before any request: the MCP server's fetch tool and `svc fetch`.
export { checkFetchUrl } from "./fetch/index.js";

// Server-only helpers (src/server/): what `svc serve` does to its sessions' Chromes (page settings, extensions,
// the recorder, cookies of saved contexts, a clean close — the CLI host's too) and its model gateway.
export { checkModelEndpoint } from "./model/endpoint.js";
export { gatewayTarget } from "./model-gateway.js";
export { type BrowserEmulation, BrowserEmulationSchema, emulates, type HeldEmulation, holdEmulation } from "./browser/emulation.js";
export { loadedExtension, loadWithoutFileAccess } from "./browser/extension-access.js";
export { webmcpInputSchema } from "./browser/webmcp-schema.js";
export { type BrowserRecorder, startRecorder } from "./browser/recorder.js";
export type { DownloadBudget } from "./browser/recorder-downloads.js";
export { type BrowserCookie, browserCookies, setBrowserCookies, closeBrowserCleanly } from "./browser/profile-state.js";

// --- the CLI (commands/) -------------------------------------------------------------------------------
// The light part (errors, small helpers, the CLI's state directory) is src/base.ts.
// Settings → model, and the model clients' keys and providers.
export { type SettingsModel, modelFromSettings } from "./settings.js";
export { PROVIDERS, envKeysFor, parseModelConfig, resolveApiKey } from "./model/index.js";
// Whether an act's instruction is literal (needs no model when one element fits): the CLI checks for a model first otherwise.
export { parseLiteral } from "./operations/literal.js";
// Cloud sessions: the platform's URLs and its session client.
export { cloudUrls } from "./cloud.js";
export { ApiClient } from "./platform/http.js";
export { PlatformSessions } from "./platform/session-client.js";
export { cleanText } from "./platform/search.js";
// A live page's developer tools, for the MCP server's tools (src/mcp/) and the CLI's commands on a session:
// dialogs, console, PDF, emulation, network, routes, traces, downloads, element calls, refs, snapshots. The
// MCP server loads no src/base.ts, so the few state-directory pieces its tools need are here too.
export { DialogHandler, type HandledDialog } from "./browser/dialogs.js";
export { ConsoleRecorder } from "./browser/console-recorder.js";
export { PAPER, type PaperFormat, printPdf } from "./browser/pdf.js";
export { type EmulationApplied, PageEmulation } from "./browser/page-emulation.js";
export { pageViewport } from "./browser/connect.js";
export { SCREENSHOT_MAX_SIZE, checkMaxSize, takeScreenshot } from "./browser/screenshot.js";
export { PAGE_NETWORK_ENABLE } from "./browser/page.js";
export { type NetworkEntry, NETWORK_REQUEST_ID, durationWord, entryDuration, headerLines, statusWord } from "./store/network-log.js";
export { type FetchApplied, PageFetch, type ProxyCredentials } from "./browser/page-fetch.js";
export { BrowserTrace, DEFAULT_TRACE_CATEGORIES, SCREENSHOT_CATEGORY, TRACE_MAX_SIZE_MB, type TraceStarted, type TraceWritten } from "./browser/trace.js";
export { boundWords } from "./browser/trace-bound.js";
export { type TraceSummary, summaryLines, summarizeTraceFile } from "./browser/trace-summary.js";
export { type SessionRoute, bodyBytes as routeBodyBytes, checkContentType, checkPattern as checkRoutePattern, checkRoutes } from "./store/routes.js";
export { DEVICES, deviceByName, findDevice } from "./store/devices.js";
export { checkEmulation, checkHeaders, type SessionEmulation } from "./store/emulation.js";
export { type ConsoleEntry, type ErrorEntry, type PageLogKind, pageLogLine } from "./store/page-log.js";
export { DownloadWatcher, formatSize, listDownloads, pruneEmptyDownloads } from "./browser/downloads.js";
export { NETWORK_ENABLE_PARAMS, NetworkRecorder } from "./browser/network-recorder.js";
export { type HarBody, buildHar, harTimings } from "./browser/har.js";
export { callOn } from "./browser/element.js";
export type { ElementHandle } from "./browser/resolve.js";
export { FIND_KINDS, type FindKind, type FindQuery, findElements } from "./browser/find.js";
export { countMatches, elementBox } from "./browser/inspect.js";
export { modifierBit } from "./browser/input.js";
export { selectorOf } from "./browser/resolve.js";
export { resolveTarget } from "./operations/perform.js";
export { PageSnapshots } from "./operations/snapshots.js";
export { type Variables, parseVariables } from "./operations/variables.js";
export { PageRefs } from "./snapshot/index.js";
// Ending a CLI session whose host is gone (commands/core/session-lookup.ts): its Chrome, then its run folder.
export { killBrowserProcess } from "./browser/launch.js";
export { sweepRunDirs } from "./browser/run-dir.js";
export { defaultProfileDirs, findUserChrome } from "./browser/devtools-active-port.js";
// A Chrome several clients share, each in a CDP browser context (`svc mcp --shared-browser`, `svc sessions start --browser`).
export { createIsolatedContext, defaultContextId, disposeContext } from "./browser/browser-contexts.js";
export { contextScope, type TabScope } from "./browser/tab-scope.js";
