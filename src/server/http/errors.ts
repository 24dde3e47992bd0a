/**
 * Where failures become HTTP statuses (ARCHITECTURE.md, "The server"): routes throw HttpError, domain code the
 * server's failures (STATUS_BY_KIND) and library errors (STATUS_BY_CODE), both maps required complete by the type
 * checker. A 500's message is masked (it may quote internals), and every message is cut to MAX_MESSAGE: a library
 * error may quote megabytes of input.
 */
import { isServiceError, type ServiceErrorCode } from "../../index.js";
import { clip } from "../../util/zod.js";
import { clientMessage, MAX_MESSAGE, ServerFailure, type FailureKind } from "../failures.js";

/** The status of each library error code: the request named something unusable (400), an unknown session (404), else the operation failed (422). */
export const STATUS_BY_CODE: Readonly<Record<ServiceErrorCode, number>> = {
  INVALID_ARGUMENT: 400,
  INVALID_MODEL_FORMAT: 400,
  UNSUPPORTED_MODEL: 400,
  MISSING_LLM_CONFIGURATION: 400,
  CLOUD_SESSION_NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  SERVICE_ERROR: 422,
  ELEMENT_NOT_FOUND: 422,
  CLICK_FAILED: 422,
  EVAL_FAILED: 422,
  DOM_PROCESS_FAILED: 422,
  IFRAME_UNRESOLVED: 422,
  CONTENT_FRAME_NOT_FOUND: 422,
  XPATH_UNRESOLVED: 422,
  SHADOW_ROOT_MISSING: 422,
  LLM_RESPONSE_ERROR: 422,
  INIT_FAILED: 422,
  NOT_INITIALIZED: 422,
  MISSING_ENV_VAR: 422,
  INVALID_ENVIRONMENT: 422,
  BROWSER_NOT_FOUND: 422,
  NAVIGATION_FAILED: 422,
  TIMEOUT: 422,
  STALE_REF: 422,
  BROWSER_CLOSED: 422,
  TARGET_CRASHED: 422,
  ABORTED: 422,
  STATE_ERROR: 422,
  RATE_LIMITED: 422,
  FETCH_FAILED: 422,
  SEARCH_NOT_CONFIGURED: 422,
  UNSUPPORTED: 422,
  WEBMCP_TOOL_NOT_FOUND: 422,
  WEBMCP_TOOL_FAILED: 422,
  API_ERROR: 422,
  CDP_PROTOCOL_ERROR: 422,
  ACT_FAILED: 422,
  AGENT_INCOMPLETE: 422,
  BATCH_INCOMPLETE: 422,
  QUEUE_UNAVAILABLE: 422,
};

/** The status of each kind of the server's own failures (failures.ts). */
export const STATUS_BY_KIND: Readonly<Record<FailureKind, number>> = {
  unauthorized: 401,
  forbidden: 403,
  "not-found": 404,
  conflict: 409,
  gone: 410,
  "too-large": 413,
  overloaded: 429,
  "client-gone": 499,
  internal: 500,
  upstream: 502,
  unavailable: 503,
};

/**
 * The `code` of an error body that no library error describes: one stable name per status. 400 is the
 * library's own INVALID_ARGUMENT (svc clients rebuild ServiceInvalidArgumentError from it); the others are
 * protocol codes no library class claims, so clients still map those by status (platform/http.ts).
 */
const STATUS_CODES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  408: "REQUEST_TIMEOUT",
  409: "CONFLICT",
  410: "SESSION_ENDED",
  413: "PAYLOAD_TOO_LARGE",
  414: "URI_TOO_LONG",
  422: "OPERATION_FAILED",
  429: "TOO_MANY_REQUESTS",
  431: "HEADERS_TOO_LARGE",
  500: "INTERNAL_ERROR",
  501: "NOT_IMPLEMENTED",
  502: "BAD_GATEWAY",
  503: "UNAVAILABLE",
  504: "GATEWAY_TIMEOUT",
};

/** The protocol code of a status (any status without its own name: its class, CLIENT_ERROR or SERVER_ERROR). */
export function statusCode(status: number): string {
  return STATUS_CODES[status] ?? (status < 500 ? "CLIENT_ERROR" : "SERVER_ERROR");
}

export class HttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly code: string;

  /** `code`: a more precise name than the status's own (e.g. 429 QUEUE_FULL), for clients that tell them apart. */
  constructor(status: number, message: string, headers: Record<string, string> = {}, code = statusCode(status)) {
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.headers = headers;
    this.code = code;
  }
}

export interface ErrorResponse {
  status: number;
  message: string;
  /** The library error's stable code (svc clients rebuild the same error class from it), else the status's. */
  code: string;
  headers: Record<string, string>;
}

/** An error answer's JSON body, the one shape of every 4xx/5xx (app, body parser, CDP proxy, Node's parser). */
export function errorBody(r: Pick<ErrorResponse, "message" | "code">): { success: false; message: string; code: string } {
  return { success: false, message: r.message, code: r.code };
}

export function errorResponse(e: unknown): ErrorResponse {
  const r = classify(e);
  return { ...r, message: clip(r.message, MAX_MESSAGE) };
}

function classify(e: unknown): ErrorResponse {
  if (e instanceof HttpError) return { status: e.status, message: e.message, code: e.code, headers: e.headers };
  if (e instanceof ServerFailure) {
    const status = STATUS_BY_KIND[e.kind];
    return { status, message: clientMessage(e), code: e.code ?? statusCode(status), headers: e.retryAfterS === undefined ? {} : { "retry-after": String(e.retryAfterS) } };
  }
  if (isServiceError(e)) return { status: STATUS_BY_CODE[e.code] ?? 422, message: clientMessage(e), code: e.code, headers: {} };
  // decodeURIComponent on a request's path or query: only input can be malformed percent-encoding.
  if (e instanceof URIError) return { status: 400, message: "malformed percent-encoding in the request", code: statusCode(400), headers: {} };
  return { status: 500, message: clientMessage(e), code: statusCode(500), headers: {} };
}

/** Whether `e` was thrown on purpose, its message meant for the client (not an unexpected failure to log). */
export function isDeliberate(e: unknown): e is HttpError | ServerFailure {
  return e instanceof HttpError || e instanceof ServerFailure;
}

/** A path as a log line shows it: the CDP proxy's capability token masked, the length bounded. */
export function safePath(path: string): string {
  const masked = path.replace(/^(\/v1\/(?:connect|live)\/[^/]+\/)[^/]+/, "$1***");
  return masked.length > 200 ? `${masked.slice(0, 200)}…` : masked;
}

/** An unexpected error for the log: its name and the first frame of its stack, never its message. */
export function describeFailure(e: unknown): string {
  if (!(e instanceof Error)) return "unknown";
  const frame = e.stack?.split("\n").find((l) => l.trim().startsWith("at "))?.trim();
  return frame ? `${e.name} ${frame}` : e.name;
}
