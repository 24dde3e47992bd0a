/**
 * The library's error tree (docs/library.md, Errors). Every class has a stable `code` from ERROR_CODES that callers
 * map on: the CLI to exit codes (commands/main.ts), the server to HTTP statuses (src/server/http/errors.ts), each
 * with a map the type checker requires to be complete. Messages are one line, ending with a hint where the user can
 * act.
 */

/** Every `code` a ServiceError can carry. */
export const ERROR_CODES = [
  "SERVICE_ERROR", "ELEMENT_NOT_FOUND", "CLICK_FAILED", "EVAL_FAILED", "DOM_PROCESS_FAILED", "IFRAME_UNRESOLVED",
  "CONTENT_FRAME_NOT_FOUND", "XPATH_UNRESOLVED", "SHADOW_ROOT_MISSING", "LLM_RESPONSE_ERROR", "MISSING_LLM_CONFIGURATION",
  "UNSUPPORTED_MODEL", "INVALID_MODEL_FORMAT", "INIT_FAILED", "NOT_INITIALIZED", "CLOUD_SESSION_NOT_FOUND", "MISSING_ENV_VAR",
  "INVALID_ENVIRONMENT", "INVALID_ARGUMENT", "BROWSER_NOT_FOUND", "NAVIGATION_FAILED", "TIMEOUT", "STALE_REF", "BROWSER_CLOSED",
  "TARGET_CRASHED", "ABORTED", "SESSION_NOT_FOUND", "STATE_ERROR", "RATE_LIMITED", "FETCH_FAILED", "SEARCH_NOT_CONFIGURED", "API_ERROR",
  "UNSUPPORTED", "WEBMCP_TOOL_NOT_FOUND", "WEBMCP_TOOL_FAILED",
  // Raised by the CDP connection (src/browser/cdp/) and by CLI commands, whose classes live there.
  "CDP_PROTOCOL_ERROR", "ACT_FAILED", "AGENT_INCOMPLETE", "BATCH_INCOMPLETE", "QUEUE_UNAVAILABLE",
] as const;

/** Codes whose class lives outside this file, or that name no one class: a remote failure carrying one becomes a plain ServiceError. */
type UnmappedCode = "SERVICE_ERROR" | "API_ERROR" | "CDP_PROTOCOL_ERROR" | "ACT_FAILED" | "AGENT_INCOMPLETE" | "BATCH_INCOMPLETE" | "QUEUE_UNAVAILABLE";

export type ServiceErrorCode = (typeof ERROR_CODES)[number];
export interface ServiceErrorOptions {
  hint?: string;
  cause?: unknown;
}

export class ServiceError extends Error {
  readonly code: ServiceErrorCode = "SERVICE_ERROR";
  readonly hint: string | undefined;

  constructor(message: string, options: ServiceErrorOptions = {}) {
    super(options.hint ? `${message} (hint: ${options.hint})` : message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.hint = options.hint;
  }
}

function kind<C extends ServiceErrorCode>(code: C) {
  return class extends ServiceError {
    override readonly code: C = code;
  };
}

export class ServiceElementNotFoundError extends kind("ELEMENT_NOT_FOUND") {}
export class ServiceClickError extends kind("CLICK_FAILED") {}
export class ServiceEvalError extends kind("EVAL_FAILED") {}
export class ServiceDomProcessError extends kind("DOM_PROCESS_FAILED") {}
export class ServiceIframeError extends kind("IFRAME_UNRESOLVED") {}
export class ContentFrameNotFoundError extends kind("CONTENT_FRAME_NOT_FOUND") {}
export class XPathResolutionError extends kind("XPATH_UNRESOLVED") {}
export class ServiceShadowRootMissingError extends kind("SHADOW_ROOT_MISSING") {}
export class LLMResponseError extends kind("LLM_RESPONSE_ERROR") {}
export class MissingLLMConfigurationError extends kind("MISSING_LLM_CONFIGURATION") {}
export class UnsupportedModelError extends kind("UNSUPPORTED_MODEL") {}
export class InvalidAISDKModelFormatError extends kind("INVALID_MODEL_FORMAT") {}
export class ServiceInitError extends kind("INIT_FAILED") {}
export class ServiceNotInitializedError extends kind("NOT_INITIALIZED") {}
export class BrowserbaseSessionNotFoundError extends kind("CLOUD_SESSION_NOT_FOUND") {}
export class MissingEnvironmentVariableError extends kind("MISSING_ENV_VAR") {}
export class ServiceEnvironmentError extends kind("INVALID_ENVIRONMENT") {}

// Beyond the operations' own failures: timeouts, stale refs, bad input, navigation, CDP.
/** Input from outside (options, Action JSON, flags) failed validation. */
export class ServiceInvalidArgumentError extends kind("INVALID_ARGUMENT") {}
/** No Chrome/Chromium executable could be found or started. */
export class ServiceBrowserNotFoundError extends kind("BROWSER_NOT_FOUND") {}
/** A navigation failed (bad scheme, DNS, refused connection, HTTP-level network error). */
export class ServiceNavigationError extends kind("NAVIGATION_FAILED") {}
/** An operation exceeded its deadline. */
export class ServiceTimeoutError extends kind("TIMEOUT") {}
/** A ref from an older snapshot points at an element that no longer exists. */
export class ServiceStaleRefError extends kind("STALE_REF") {}
/** The browser connection closed (normally) or the target crashed while a command was in flight. */
export class ServiceBrowserClosedError extends kind("BROWSER_CLOSED") {}
export class ServiceTargetCrashedError extends kind("TARGET_CRASHED") {}
/** The run was cancelled through its AbortSignal. */
export class ServiceAbortedError extends kind("ABORTED") {}
/** A persistent CLI session id that is unknown or whose browser is gone. */
export class ServiceSessionNotFoundError extends kind("SESSION_NOT_FOUND") {}
/** Local state (sessions, history, metrics, config) could not be read or written. */
export class ServiceStateError extends kind("STATE_ERROR") {}

/** Too many requests (HTTP 429) even after backing off as the server asked (Retry-After). */
export class ServiceRateLimitError extends kind("RATE_LIMITED") {}
/** A fetch failed: HTTP error status, too many redirects, too large, a content type it cannot give in that format. */
export class ServiceFetchError extends kind("FETCH_FAILED") {}
/** No search backend is configured (search.url / SVC_SEARCH_URL, or a platform key). */
export class ServiceSearchNotConfiguredError extends kind("SEARCH_NOT_CONFIGURED") {}
/** The browser lacks what the call needs (e.g. WebMCP in a Chrome without it). */
export class ServiceUnsupportedError extends kind("UNSUPPORTED") {}
/** A page's WebMCP tool the call named is not registered (now) on the page. */
export class WebMcpToolNotFoundError extends kind("WEBMCP_TOOL_NOT_FOUND") {}
/** A page's WebMCP tool threw, was canceled, or its document went away before it answered. */
export class WebMcpToolError extends kind("WEBMCP_TOOL_FAILED") {}

/** A session or platform API answered with an error the other classes do not describe (5xx, 429, 501 …). */
export class ServiceApiError extends kind("API_ERROR") {
  readonly status: number;
  constructor(status: number, message: string, options: ServiceErrorOptions = {}) {
    super(message, options);
    this.status = status;
  }
}

/** The class of each code a remote failure may name (the type checker requires one for every other code). */
const BY_CODE: { readonly [K in Exclude<ServiceErrorCode, UnmappedCode>]: new (message: string) => ServiceError & { code: K } } = {
  ELEMENT_NOT_FOUND: ServiceElementNotFoundError,
  CLICK_FAILED: ServiceClickError,
  EVAL_FAILED: ServiceEvalError,
  DOM_PROCESS_FAILED: ServiceDomProcessError,
  IFRAME_UNRESOLVED: ServiceIframeError,
  CONTENT_FRAME_NOT_FOUND: ContentFrameNotFoundError,
  XPATH_UNRESOLVED: XPathResolutionError,
  SHADOW_ROOT_MISSING: ServiceShadowRootMissingError,
  LLM_RESPONSE_ERROR: LLMResponseError,
  MISSING_LLM_CONFIGURATION: MissingLLMConfigurationError,
  UNSUPPORTED_MODEL: UnsupportedModelError,
  INVALID_MODEL_FORMAT: InvalidAISDKModelFormatError,
  INIT_FAILED: ServiceInitError,
  NOT_INITIALIZED: ServiceNotInitializedError,
  CLOUD_SESSION_NOT_FOUND: BrowserbaseSessionNotFoundError,
  MISSING_ENV_VAR: MissingEnvironmentVariableError,
  INVALID_ENVIRONMENT: ServiceEnvironmentError,
  INVALID_ARGUMENT: ServiceInvalidArgumentError,
  BROWSER_NOT_FOUND: ServiceBrowserNotFoundError,
  NAVIGATION_FAILED: ServiceNavigationError,
  TIMEOUT: ServiceTimeoutError,
  STALE_REF: ServiceStaleRefError,
  BROWSER_CLOSED: ServiceBrowserClosedError,
  TARGET_CRASHED: ServiceTargetCrashedError,
  ABORTED: ServiceAbortedError,
  SESSION_NOT_FOUND: ServiceSessionNotFoundError,
  STATE_ERROR: ServiceStateError,
  RATE_LIMITED: ServiceRateLimitError,
  FETCH_FAILED: ServiceFetchError,
  SEARCH_NOT_CONFIGURED: ServiceSearchNotConfiguredError,
  UNSUPPORTED: ServiceUnsupportedError,
  WEBMCP_TOOL_NOT_FOUND: WebMcpToolNotFoundError,
  WEBMCP_TOOL_FAILED: WebMcpToolError,
};

/** Whether `code` names one of the library's error classes (a server's protocol codes, e.g. UNAUTHORIZED, do not). */
export function isErrorClassCode(code: string): code is keyof typeof BY_CODE {
  return Object.hasOwn(BY_CODE, code);
}

/** The error class a remote failure's `code` names (the server sends it next to the message), else ServiceError. */
export function errorFromCode(code: string | undefined, message: string): ServiceError {
  return code !== undefined && isErrorClassCode(code) ? new BY_CODE[code](message) : new ServiceError(message);
}

export function isServiceError(e: unknown): e is ServiceError {
  return e instanceof ServiceError;
}

/** A one-line description of any thrown value, for logs and CLI output. */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message.split("\n")[0] ?? e.message;
  return String(e);
}
