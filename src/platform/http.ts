/**
 * The HTTP side of talking to a platform or session API: one request function that adds the key header,
 * bounds the wait, and turns an error answer into the library's error classes (the server sends the
 * failure's stable `code` next to its message, so a remote ElementNotFound is a local one too).
 */
import {
  BrowserbaseSessionNotFoundError,
  errorFromCode,
  isErrorClassCode,
  ServiceApiError,
  ServiceEnvironmentError,
  ServiceError,
  ServiceInitError,
  ServiceInvalidArgumentError,
  ServiceSearchNotConfiguredError,
} from "../errors.js";
import type { Abortable } from "../util/abort.js";

export interface ApiClientOptions {
  /** Origin (and optional path prefix) of the API, without the `/v1`. */
  baseURL: string;
  apiKey: string;
  /** Extra headers on every request (never logged). */
  headers?: Record<string, string>;
  /** Per request, for calls that do not stream. Default 60 s. */
  timeoutMs?: number;
}

export interface RequestOptions extends Abortable {
  method?: "GET" | "POST";
  body?: unknown;
  headers?: Record<string, string>;
  /** No timeout (a stream that lasts as long as the operation). */
  streaming?: boolean;
}

/** `https://api.example.com/` → `https://api.example.com`; a trailing `/v1` is dropped (both forms are common). */
export function apiOrigin(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ServiceInvalidArgumentError(`base URL: "${url}" is not a valid URL`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new ServiceInvalidArgumentError(`base URL: "${url}" must be http(s)`);
  return u.href.replace(/\/+$/, "").replace(/\/v1$/, "");
}

export class ApiClient {
  readonly baseURL: string;

  constructor(private readonly o: ApiClientOptions) {
    this.baseURL = apiOrigin(o.baseURL);
  }

  /** Sends a request under `/v1`; resolves with the Response when its status is 2xx, else throws the mapped error. */
  async request(path: string, options: RequestOptions = {}): Promise<Response> {
    const url = `${this.baseURL}/v1${path}`;
    const timeout = options.streaming ? undefined : AbortSignal.timeout(this.o.timeoutMs ?? 60_000);
    const signal = timeout && options.signal ? AbortSignal.any([timeout, options.signal]) : (timeout ?? options.signal);
    let res: Response;
    try {
      res = await fetch(url, {
        method: options.method ?? (options.body === undefined ? "GET" : "POST"),
        headers: {
          "x-bb-api-key": this.o.apiKey,
          "x-language": "typescript",
          ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
          ...this.o.headers,
          ...options.headers,
        },
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
        ...(signal ? { signal } : {}),
      });
    } catch (e) {
      if (options.signal?.aborted) throw e;
      const why = (e as Error).name === "TimeoutError" ? `no answer within ${this.o.timeoutMs ?? 60_000} ms` : ((e as { cause?: Error }).cause?.message ?? (e as Error).message);
      throw new ServiceApiError(0, `cannot reach ${this.baseURL}: ${why}`, { hint: "check the base URL and that the server is running" });
    }
    if (res.ok) return res;
    throw await errorOf(res, path);
  }

  async json<T>(path: string, options: RequestOptions = {}): Promise<T> {
    const res = await this.request(path, options);
    try {
      return (await res.json()) as T;
    } catch {
      throw new ServiceApiError(res.status, `${path}: the answer is not JSON`);
    }
  }
}

/** The library error for an API's error answer: by the `code` the server sent, else by status. */
export async function errorOf(res: Response, path: string): Promise<ServiceError> {
  const text = await res.text().catch(() => "");
  let message = text.slice(0, 500) || res.statusText;
  let code: string | undefined;
  try {
    const body = JSON.parse(text) as { message?: unknown; code?: unknown; error?: unknown };
    if (typeof body.message === "string") message = body.message;
    else if (typeof body.error === "string") message = body.error;
    if (typeof body.code === "string") code = body.code;
  } catch {
    // not JSON: keep the text
  }
  // A library error's code names its class; a protocol code (UNAUTHORIZED, NOT_FOUND …) leaves it to the status.
  if (code && isErrorClassCode(code)) return errorFromCode(code, message);
  switch (res.status) {
    case 400:
      return new ServiceInvalidArgumentError(message);
    case 401:
    case 403:
      return new ServiceEnvironmentError(`the API rejected the key (${res.status}): ${message}`, { hint: "check apiKey / BROWSERBASE_API_KEY" });
    case 404:
      return /\/sessions\//.test(path) ? new BrowserbaseSessionNotFoundError(message) : new ServiceApiError(404, message);
    case 501:
      return path === "/search" ? new ServiceSearchNotConfiguredError(message) : new ServiceApiError(501, `${path} failed (501): ${message}`);
    case 503:
      return new ServiceInitError(`the API is unavailable (503): ${message}`);
    default:
      return new ServiceApiError(res.status, `${path} failed (${res.status}): ${message}`);
  }
}
