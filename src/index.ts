/** Public API of svc: explicit named exports only. */
export { Service, type InitResult, type ActOptions, type SnapshotOptions } from "./service.js";
export { type ServiceOptions, type LogLine, ServiceOptionsSchema } from "./options.js";
export { type Action, type ActResult, type ActionMethod, ACTION_METHODS, MODEL_ACTION_METHODS, ActionSchema, ActResultSchema, parseAction } from "./operations/action.js";
export { type Agent } from "./agent/agent.js";
export {
  type AgentConfig,
  type AgentExecuteOptions,
  type AgentExecuteRequest,
  type AskHumanHandler,
  type AskHumanRequest,
  DEFAULT_ASK_HUMAN_TIMEOUT_MS,
  AgentConfigSchema,
  AgentExecuteOptionsSchema,
  AgentExecuteRequestSchema,
  DEFAULT_MAX_STEPS,
  DEFAULT_TOOL_TIMEOUT_MS,
} from "./agent/options.js";
export { AgentActionSchema, AgentResultSchema, AgentUsageSchema, AgentExecuteResponseSchema } from "./agent/result.js";
export type {
  AgentAction,
  AgentMode,
  AgentResultData,
  AgentResultData as AgentResult,
  AgentStopReason,
  AgentUsage,
  LogLevel,
  RunEvent,
  RunEventListener,
  RunEventType,
} from "./events.js";
export { AgentCache, type AgentCacheEntry } from "./agent/cache.js";
export { ModelConfigSchema } from "./model/config.js";
export { type ModelEndpointPolicy } from "./model/endpoint.js";
export { VariablesSchema } from "./operations/variables.js";
export { Secrets, type SecretInput, type Masker } from "./util/secrets.js";
export type { HistoryEntry, Metrics } from "./records.js";
export { type LocalBrowserLaunchOptions, LocalBrowserLaunchOptionsSchema, type Viewport } from "./browser/types.js";
export { BrowserContext } from "./browser/context.js";
export { type StorageState, type StorageCookie, type OriginStorage, storageStateSchema, parseStorageState } from "./browser/storage-state.js";
export { Page, type GotoOptions, type NavigationInfo } from "./browser/page.js";
export type { Capture, CaptureOptions, Picture, ScreenshotOptions } from "./browser/screenshot.js";
export { type PageWebMcp, type WebMcpTool, type WebMcpCallResult, type WebMcpCallOptions, WEBMCP_LIMITS } from "./browser/webmcp.js";
export { Locator } from "./browser/locator.js";
export { launchBrowser, type LaunchedBrowser } from "./browser/launch.js";
export {
  ServiceError,
  ServiceElementNotFoundError,
  ServiceClickError,
  ServiceEvalError,
  ServiceDomProcessError,
  ServiceIframeError,
  ContentFrameNotFoundError,
  XPathResolutionError,
  ServiceShadowRootMissingError,
  LLMResponseError,
  MissingLLMConfigurationError,
  UnsupportedModelError,
  InvalidAISDKModelFormatError,
  ServiceInitError,
  ServiceNotInitializedError,
  BrowserbaseSessionNotFoundError,
  MissingEnvironmentVariableError,
  ServiceEnvironmentError,
  ServiceInvalidArgumentError,
  ServiceBrowserNotFoundError,
  ServiceNavigationError,
  ServiceTimeoutError,
  ServiceStaleRefError,
  ServiceBrowserClosedError,
  ServiceTargetCrashedError,
  ServiceAbortedError,
  ServiceSessionNotFoundError,
  ServiceStateError,
  ServiceRateLimitError,
  ServiceFetchError,
  ServiceSearchNotConfiguredError,
  ServiceUnsupportedError,
  WebMcpToolNotFoundError,
  WebMcpToolError,
  ServiceApiError,
  isServiceError,
  ERROR_CODES,
  type ServiceErrorCode,
} from "./errors.js";
// Web search and the platform module (search + fetch over the platform API).
export {
  type SearchBackend,
  type SearchRequest,
  type SearchResult,
  type SearchResponse,
  SearchRequestSchema,
  SearchResponseSchema,
  validateSearch,
  DEFAULT_NUM_RESULTS,
  MAX_NUM_RESULTS,
  MAX_QUERY_LENGTH,
} from "./platform/search.js";
export { SearxngSearch, type SearxngOptions } from "./platform/searxng.js";
export {
  platform,
  PlatformSearch,
  searchBackendFor,
  type SearchBackendConfig,
  type PlatformFetchFormat,
  type PlatformFetchOptions,
  type PlatformFetchResult,
  type PlatformRequestOptions,
} from "./platform/web.js";
export { type BackoffOptions } from "./platform/backoff.js";
// Local fetch without any key: one page as markdown, text, html, raw text or JSON (plain HTTP or Chrome).
export {
  fetchPage,
  pageRenderer,
  renderInBrowser,
  type RenderInBrowserOptions,
  type BrowserRenderer,
  type RenderOptions,
  type RenderedPage,
  type FetchFormat,
  type FetchOptions,
  type FetchResult,
  FETCH_FORMATS,
  DEFAULT_FETCH_TIMEOUT_MS,
  DEFAULT_FETCH_MAX_BYTES,
  DEFAULT_FETCH_MAX_REDIRECTS,
} from "./fetch/index.js";
// The options fragments of calls that can be stopped (the caller's signal, and a timeout in ms).
export type { Abortable, CallOptions } from "./util/abort.js";
