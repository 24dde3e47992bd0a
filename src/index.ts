/** Public API of svc: explicit named exports only. */
export { Service, type InitResult, type ActOptions } from "./service.js";
export { type ServiceOptions, type LogLine, ServiceOptionsSchema } from "./options.js";
export { type Action, type ActResult, type ActionMethod, ACTION_METHODS, ActionSchema, ActResultSchema, parseAction } from "./operations/action.js";
export { type Agent } from "./agent/agent.js";
export {
  type AgentConfig,
  type AgentExecuteOptions,
  type AgentExecuteRequest,
  AgentConfigSchema,
  AgentExecuteOptionsSchema,
  AgentExecuteOptionsWireSchema,
  AgentExecuteRequestSchema,
  DEFAULT_MAX_STEPS,
  DEFAULT_TOOL_TIMEOUT_MS,
} from "./agent/options.js";
export { AgentActionSchema, AgentResultSchema, AgentUsageSchema, AgentExecuteResponseSchema, AgentExecuteResultOutputSchema, AgentCacheEntryOutputSchema } from "./agent/result.js";
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
export { VariablesSchema } from "./operations/variables.js";
export { type HistoryEntry, type Metrics, emptyMetrics, mergeMetrics } from "./records.js";
export { type LocalBrowserLaunchOptions, LocalBrowserLaunchOptionsSchema, type Viewport } from "./browser/types.js";
export { BrowserContext } from "./browser/context.js";
export { Page, type GotoOptions, type NavigationInfo } from "./browser/page.js";
export { Locator } from "./browser/locator.js";
export { launchBrowser, killBrowserProcess, DEFAULT_ARGS, type LaunchedBrowser, type Lifeline } from "./browser/launch.js";
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
  isServiceError,
} from "./errors.js";
