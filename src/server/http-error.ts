/**
 * The one place where failures become HTTP statuses (DESIGN.md: statuses only in src/server/). Routes throw
 * HttpError for protocol failures (400 validation, 401, 404, 413, 429, 501, 503) and let library errors
 * through; `errorResponse` maps those: bad input → 400, unknown session → 404, a failed operation → 422,
 * anything else → 500 with its message masked (it may quote internals).
 */
import type { ZodError, ZodType } from "zod";
import {
  BrowserbaseSessionNotFoundError,
  InvalidAISDKModelFormatError,
  isServiceError,
  MissingLLMConfigurationError,
  ServiceInvalidArgumentError,
  ServiceSessionNotFoundError,
  UnsupportedModelError,
} from "../index.js";
import { describeIssue } from "../util/zod.js";

export class HttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.headers = headers;
  }
}

export interface ErrorResponse {
  status: number;
  message: string;
  /** The library error's stable code (svc clients rebuild the same error class from it); absent for 500s. */
  code?: string;
  headers: Record<string, string>;
}

export function errorResponse(e: unknown): ErrorResponse {
  if (e instanceof HttpError) return { status: e.status, message: e.message, headers: e.headers };
  // The request named something unusable: bad input, a model string, a model without a key.
  if (e instanceof ServiceInvalidArgumentError || e instanceof InvalidAISDKModelFormatError || e instanceof UnsupportedModelError || e instanceof MissingLLMConfigurationError) return { status: 400, message: e.message, code: e.code, headers: {} };
  if (e instanceof BrowserbaseSessionNotFoundError || e instanceof ServiceSessionNotFoundError) return { status: 404, message: e.message, code: e.code, headers: {} };
  if (isServiceError(e)) return { status: 422, message: e.message, code: e.code, headers: {} };
  return { status: 500, message: "internal server error", headers: {} };
}

/** The message an SSE `error` event carries: the same text a JSON response would have. */
export function streamErrorMessage(e: unknown): string {
  return errorResponse(e).message;
}

/** Validates a request body (or query) with a library schema; 400 naming the field on failure. */
export function parseWith<T>(schema: ZodType<T>, value: unknown, where = ""): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new HttpError(400, describeIssue(parsed.error as ZodError, where));
  return parsed.data;
}
