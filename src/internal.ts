/**
 * What the faces (src/server/, src/mcp/, commands/) use beyond the public API (src/index.ts): parts of the
 * library that a library user has no business with, exported here so the faces never reach into the
 * library's folders directly. Explicit named exports only.
 */
export { CdpConnection } from "./browser/cdp/connection.js";
export { checkFetchUrl } from "./fetch/index.js";

// Server-only helpers (src/server/): what `svc serve` does to its sessions' Chromes and model gateway.
export { checkModelEndpoint } from "./model/endpoint.js";
export { type GatewayTarget, gatewayTarget } from "./model-gateway.js";
export { type BrowserEmulation, BrowserEmulationSchema, emulates, type HeldEmulation, holdEmulation } from "./browser/emulation.js";
export { type LoadedExtension, loadedExtension, loadWithoutFileAccess } from "./browser/extension-access.js";
export { type BrowserRecorder, type RecorderOptions, type RecorderSinks, startRecorder } from "./browser/recorder.js";
export type { DownloadBudget } from "./browser/recorder-downloads.js";
export { type BrowserCookie, browserCookies, setBrowserCookies, closeBrowserCleanly } from "./browser/profile-state.js";
