/**
 * What went wrong in the server's domain code, said without HTTP: domain code throws these and only http/errors.ts
 * and route files choose a status. Bad input is the library's ServiceInvalidArgumentError (parseWith below); these
 * cover the rest. `code` is a wire name more precise than the status (CONTEXT_IN_USE for a conflict); `retryAfterS`
 * becomes `retry-after`.
 */
import type { ZodError, ZodType } from "zod";
import { isServiceError, ServiceInvalidArgumentError } from "../index.js";
import { clip, describeIssue } from "../util/zod.js";

export const FAILURE_KINDS = ["unauthorized", "forbidden", "not-found", "conflict", "gone", "too-large", "overloaded", "client-gone", "internal", "upstream", "unavailable"] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

export interface FailureOptions {
  code?: string;
  retryAfterS?: number;
}

export class ServerFailure extends Error {
  readonly kind: FailureKind;
  readonly code: string | undefined;
  readonly retryAfterS: number | undefined;

  constructor(kind: FailureKind, message: string, options: FailureOptions = {}) {
    super(message);
    this.name = new.target.name;
    this.kind = kind;
    this.code = options.code;
    this.retryAfterS = options.retryAfterS;
  }
}

function failure(kind: FailureKind) {
  return class extends ServerFailure {
    constructor(message: string, options: FailureOptions = {}) {
      super(kind, message, options);
    }
  };
}

/** A credential (a cluster peer's, a session's CDP token) is wrong. */
export class UnauthorizedError extends failure("unauthorized") {}
/** The caller may not do this (a tenant asking for a browser-internal page). */
export class ForbiddenError extends failure("forbidden") {}
/** No such thing for this caller (another key's session is not found either). */
export class NotFoundError extends failure("not-found") {}
/** The thing exists but its state refuses the request (not running, in use, a quota full). */
export class ConflictError extends failure("conflict") {}
/** The thing existed and is gone for good (an ended session, a dead replica's session). */
export class GoneError extends failure("gone") {}
/** A value the server would keep is over its bound. */
export class TooLargeError extends failure("too-large") {}
/** Too many at once: the caller may retry later (`retryAfterS`). */
export class OverloadedError extends failure("overloaded") {}
/** The client left before the answer (nobody reads it; logs see it). */
export class ClientGoneError extends failure("client-gone") {}
/** The server itself cannot do it, and the message says why (safe to show). */
export class InternalFailureError extends failure("internal") {}
/** Something the server depends on (a session's Chrome, a peer replica) did not answer as it should. */
export class UpstreamError extends failure("upstream") {}
/** The server takes no such request now (shutting down, the session store silent): retry later. */
export class UnavailableError extends failure("unavailable") {}

/** Longest error message a client reads: a library error may quote a request's input, which can be megabytes. */
export const MAX_MESSAGE = 300;

/**
 * What a client may read of a thrown value: a failure's or a library error's own message, cut to MAX_MESSAGE;
 * anything else was not thrown for the client, and its message (which may quote internals) is masked.
 */
export function clientMessage(e: unknown): string {
  return e instanceof ServerFailure || isServiceError(e) ? clip(e.message, MAX_MESSAGE) : "internal server error";
}

/** Validates a value (a body, a query, a session's create params) with a schema: bad input is ServiceInvalidArgumentError naming the field. */
export function parseWith<T>(schema: ZodType<T>, value: unknown, where = ""): T {
  let parsed: ReturnType<ZodType<T>["safeParse"]>;
  try {
    // reportInput: the message can then cut a quotation of the value short (describeIssue).
    parsed = schema.safeParse(value, { reportInput: true });
  } catch (e) {
    // A value too deep for a recursive check (bodies are bounded before this; other callers' values may not be).
    if (e instanceof RangeError) throw new ServiceInvalidArgumentError(`${where || "body"}: too deeply nested to validate`);
    throw e;
  }
  if (!parsed.success) throw new ServiceInvalidArgumentError(describeIssue(parsed.error as ZodError, where));
  return parsed.data;
}
