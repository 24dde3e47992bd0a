/**
 * Final SDK failures (after the SDK's retries) → ServiceErrors, worded once here. Messages never carry a key, token
 * or header value: the provider's text is scrubbed of every known secret, and left out for auth failures (OpenAI
 * echoes a masked key). No SDK error becomes `cause`, since it holds the same text.
 */
import { LLMResponseError, ServiceAbortedError, ServiceError, ServiceInvalidArgumentError } from "../errors.js";
import { formatDeadline } from "./deadline.js";
import { refusalIn } from "../util/refusal.js";

export type Failure =
  | { kind: "aborted" }
  | { kind: "timeout" }
  | { kind: "connection"; detail?: string }
  /** An address policy refused the connection (util/guarded-fetch.ts): the endpoint is not for this caller. */
  | { kind: "refused"; detail: string }
  /** The token provider (Google auth, Entra) failed before any request was sent. */
  | { kind: "credentials"; detail: string }
  | { kind: "status"; status: number; message?: string; requestId?: string }
  | { kind: "other"; message: string };

export interface FailureContext {
  /** `provider/model`. */
  modelName: string;
  provider: string;
  /** Where requests went (host only is shown). */
  baseURL?: string;
  maxRetries: number;
  timeoutMs?: number;
  /** Every value that must not appear in a message: keys, tokens, header values. */
  secrets: string[];
  /** The variable that holds the key, for the auth hint. */
  keyHint?: string;
  /** What to try when the endpoint rejects a request (400) for a reason svc could not step around. */
  badRequestHint?: string;
}

/** Replace every secret (and any `Bearer …` / `sk-…`-looking token) in a provider message. */
export function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join("***");
  return out.replace(/Bearer\s+[A-Za-z0-9._~+/=-]{8,}/gi, "Bearer ***").replace(/\b((sk|pk|gsk|xai)-[A-Za-z0-9_-]{12,}|AIza[A-Za-z0-9_-]{20,}|ya29\.[A-Za-z0-9._-]{8,})/g, "***");
}

function host(url: string | undefined): string {
  if (!url) return "the provider";
  try {
    return new URL(url).host;
  } catch {
    return "the provider";
  }
}

function oneLine(s: string, max = 300): string {
  const line = s.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** The innermost cause of a connection error (`ECONNREFUSED: connect …`), for the message. */
function causeDetail(e: unknown): string | undefined {
  let cur = (e as { cause?: unknown }).cause;
  let msg: string | undefined;
  for (let i = 0; cur && i < 5; i++) {
    const c = cur as { message?: string; code?: string; cause?: unknown };
    msg = c.code && c.message && !c.message.includes(c.code) ? `${c.code}: ${c.message}` : (c.message ?? msg);
    cur = c.cause;
  }
  return msg;
}

/** The error classes both Stainless-generated SDKs (openai, @anthropic-ai/sdk) export. */
export interface SdkErrorClasses {
  Abort: abstract new (...args: never[]) => Error;
  Timeout: abstract new (...args: never[]) => Error;
  Connection: abstract new (...args: never[]) => Error;
  Api: abstract new (...args: never[]) => Error & { status?: number | undefined; error?: unknown; requestID?: string | null | undefined };
}

/** An SDK's final error → a neutral Failure (undefined: not an SDK error). `messageOf` reads the provider's error body. */
export function classifySdkError(e: unknown, c: SdkErrorClasses, messageOf: (body: unknown) => unknown): Failure | undefined {
  if (e instanceof c.Abort) return { kind: "aborted" };
  if (e instanceof c.Timeout) return { kind: "timeout" };
  if (e instanceof c.Connection) {
    const refused = refusalIn(e)?.message;
    if (refused) return { kind: "refused", detail: refused };
    const detail = causeDetail(e);
    return detail ? { kind: "connection", detail } : { kind: "connection" };
  }
  if (e instanceof c.Api && typeof e.status === "number") {
    const body = e.error;
    const found = body === undefined ? undefined : messageOf(body);
    const message = typeof found === "string" ? found : body ? JSON.stringify(body) : undefined;
    return { kind: "status", status: e.status, ...(message ? { message } : {}), ...(e.requestID ? { requestId: e.requestID } : {}) };
  }
  return undefined;
}

export function failureToError(f: Failure, ctx: FailureContext): ServiceError {
  const who = ctx.modelName;
  const attempts = ctx.maxRetries > 0 ? ` after ${ctx.maxRetries + 1} attempts` : "";
  switch (f.kind) {
    case "aborted":
      return new ServiceAbortedError(`${who}: the model call was cancelled`);
    case "timeout":
      return new LLMResponseError(`${who}: the model endpoint did not answer ${ctx.timeoutMs !== undefined ? `within ${formatDeadline(ctx.timeoutMs)}` : "in time"}${attempts}`, {
        hint: "try again, or raise the model config's timeoutMs (the deadline of one request)",
      });
    case "connection":
      return new LLMResponseError(`${who}: could not reach ${host(ctx.baseURL)}${attempts}${f.detail ? ` (${oneLine(redact(f.detail, ctx.secrets), 120)})` : ""}`, {
        hint: "check the network and the model baseURL",
      });
    case "refused":
      return new ServiceInvalidArgumentError(`${who}: the model endpoint ${host(ctx.baseURL)} is not reachable from here: ${oneLine(f.detail, 300)}`, {
        hint: "use a model endpoint on the public internet, or one the operator allows",
      });
    case "credentials":
      return new LLMResponseError(`${who}: could not get an access token: ${oneLine(redact(f.detail, ctx.secrets), 200)}`, { hint: `check ${ctx.keyHint ?? "the credentials"}` });
    case "other":
      return new LLMResponseError(`${who}: ${oneLine(redact(f.message, ctx.secrets))}`);
    case "status": {
      const detail = f.message ? `: ${oneLine(redact(f.message, ctx.secrets))}` : "";
      const rid = f.requestId ? ` [request ${f.requestId}]` : "";
      if (f.status === 401)
        return new LLMResponseError(`${who}: the provider rejected the API key (401)${rid}`, { hint: `check ${ctx.keyHint ?? "the API key"} or model.apiKey` });
      if (f.status === 403)
        return new LLMResponseError(`${who}: the provider refused access (403)${rid}`, { hint: `check that ${ctx.keyHint ?? "the key"} may use this model` });
      if (f.status === 429) return new LLMResponseError(`${who}: rate limited (429)${attempts}${detail}${rid}`, { hint: "wait and retry, or use a higher rate limit" });
      if (f.status === 404) return new LLMResponseError(`${who}: not found (404)${detail}${rid}`, { hint: "check the model name and baseURL" });
      if (f.status >= 500) return new LLMResponseError(`${who}: the provider failed (${f.status})${attempts}${detail}${rid}`);
      return new LLMResponseError(`${who}: the provider rejected the request (${f.status})${detail}${rid}`, f.status === 400 && ctx.badRequestHint ? { hint: ctx.badRequestHint } : {});
    }
  }
}

/** For errors no SDK class matched: ServiceErrors pass through (a token provider's), aborts become ServiceAbortedError. */
export function unknownToError(e: unknown, ctx: FailureContext, signal?: AbortSignal): ServiceError {
  if (e instanceof ServiceError) return e;
  const cause = (e as { cause?: unknown } | undefined)?.cause;
  if (cause instanceof ServiceError) return cause;
  if (signal?.aborted || (e instanceof Error && e.name === "AbortError")) return failureToError({ kind: "aborted" }, ctx);
  return failureToError({ kind: "other", message: e instanceof Error ? e.message : String(e) }, ctx);
}
