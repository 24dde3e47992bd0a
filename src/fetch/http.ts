/**
 * One GET over plain HTTP(S), the way `fetchPage` needs it: redirects followed by hand (`redirect:
 * "manual"`: hops counted, Location resolved against the current URL, non-http(s) targets and loops
 * refused, every target passed through the caller's host policy), the body streamed under a byte cap
 * (over it: the connection is aborted), the whole exchange under one deadline.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { ServiceAbortedError, ServiceError, ServiceFetchError, ServiceInvalidArgumentError, ServiceNavigationError, ServiceTimeoutError } from "../errors.js";
import { Cancellation, abortError } from "../util/abort.js";
import { refusalIn } from "../util/refusal.js";
import { readCapped as readStreamCapped } from "../util/read-capped.js";
import type { Abortable } from "../util/abort.js";

export interface HttpGetOptions extends Abortable {
  timeoutMs: number;
  maxBytes: number;
  /** Redirects to follow; a 3xx beyond that is an error, unless `followRedirects` is false (then it is returned). */
  maxRedirects: number;
  followRedirects: boolean;
  userAgent: string;
  accept: string;
  refuseHost?: ((host: string, addresses: string[], port?: number) => string | undefined) | undefined;
  /** Called once the final response's head is in, before its body is read: throw to refuse it unread. */
  inspect?: (head: ResponseHead) => void;
}

export interface ResponseHead {
  url: string;
  status: number;
  statusText: string;
  headers: Record<string, string>;
}

export interface HttpResponse extends ResponseHead {
  body: Uint8Array;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** The host policy: resolve the host (IP literals as they are) and ask the caller. */
export async function checkHost(url: URL, refuseHost: HttpGetOptions["refuseHost"], what: string): Promise<void> {
  if (!refuseHost) return;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch (e) {
      throw new ServiceNavigationError(`cannot resolve ${host}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { hint: "check the address" });
    }
  }
  const reason = refuseHost(host, addresses, Number(url.port) || (url.protocol === "https:" ? 443 : 80));
  if (reason) throw new ServiceInvalidArgumentError(`${what} ${url.href} refused: ${reason}`);
}

export async function httpGet(rawUrl: string, options: HttpGetOptions): Promise<HttpResponse> {
  // With a host policy, every connection of the chain resolves through it (see util/guarded-fetch.ts; undici is loaded
  // only then, not with the library).
  const guarded = options.refuseHost ? (await import("../util/guarded-fetch.js")).guardedFetch(options.refuseHost) : undefined;
  const call = new Cancellation({
    signal: options.signal,
    timeout: options.timeoutMs,
    timeoutError: () => new ServiceTimeoutError(`fetching ${rawUrl} did not finish within ${options.timeoutMs} ms`, { hint: "raise the timeout (--timeout MS)" }),
  });
  const abort = () => call.abort();
  const fail = (e: unknown, url: URL): Error => {
    if (call.timedOut) return abortError(call.signal);
    if (options.signal?.aborted) return new ServiceAbortedError(`fetching ${rawUrl} was aborted`);
    if (e instanceof ServiceError) return e;
    const refused = refusalIn(e);
    if (refused) return new ServiceInvalidArgumentError(`${url.href} refused: ${refused.reason}`);
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (e as Error).message;
    return new ServiceNavigationError(`cannot fetch ${url.href}: ${why}`, { hint: "check the address and that the site is reachable" });
  };

  let url = new URL(rawUrl);
  const chain = [url.href];
  try {
    for (let hop = 0; ; hop++) {
      await checkHost(url, options.refuseHost, hop === 0 ? "URL" : "redirect to");
      let res: Response;
      try {
        const init = {
          redirect: "manual" as const,
          signal: call.signal,
          headers: { "user-agent": options.userAgent, accept: options.accept, "accept-language": "en;q=0.9, *;q=0.5" },
        };
        res = guarded ? await guarded.fetch(url, init) : await fetch(url, init);
      } catch (e) {
        throw fail(e, url);
      }
      const location = res.headers.get("location");
      if (options.followRedirects && REDIRECT_STATUSES.has(res.status) && location) {
        await res.body?.cancel().catch(() => {});
        if (hop + 1 > options.maxRedirects) {
          throw new ServiceFetchError(`${rawUrl}: more than ${options.maxRedirects} redirects (${chain.join(" → ")} → …)`, { hint: "the limit is maxRedirects / the server's redirect chain is too long" });
        }
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new ServiceFetchError(`${url.href} redirects to an invalid URL: ${JSON.stringify(location)}`);
        }
        if (next.protocol !== "http:" && next.protocol !== "https:") {
          throw new ServiceFetchError(`${url.href} redirects to ${next.href}: only http and https are followed`);
        }
        next.hash = next.hash || url.hash;
        if (chain.includes(next.href)) throw new ServiceFetchError(`redirect loop: ${[...chain, next.href].join(" → ")}`);
        chain.push(next.href);
        url = next;
        continue;
      }
      const head: ResponseHead = { url: url.href, status: res.status, statusText: res.statusText, headers: headersOf(res.headers) };
      try {
        options.inspect?.(head);
      } catch (e) {
        await res.body?.cancel().catch(() => {});
        abort();
        throw e;
      }
      try {
        return { ...head, body: await readCapped(res, url.href, options.maxBytes, abort) };
      } catch (e) {
        throw fail(e, url);
      }
    }
  } finally {
    call.dispose();
    void guarded?.close().catch(() => {});
  }
}

function headersOf(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => (out[name] = value));
  return out;
}

function tooLarge(url: string, maxBytes: number, size?: number): ServiceFetchError {
  const got = size !== undefined ? `is ${size} bytes` : "is larger than that";
  return new ServiceFetchError(`${url} ${got}: over the limit of ${maxBytes} bytes`, { hint: "raise the limit (--max-bytes N / maxBytes)" });
}

/** The body, at most `maxBytes`: a Content-Length over it is refused unread, a stream over it is cut and the connection aborted. */
async function readCapped(res: Response, url: string, maxBytes: number, abort: () => void): Promise<Uint8Array> {
  const declared = Number(res.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes && !res.headers.get("content-encoding")) {
    await res.body?.cancel().catch(() => {});
    abort();
    throw tooLarge(url, maxBytes, declared);
  }
  return readStreamCapped(res.body, maxBytes, () => {
    abort();
    return tooLarge(url, maxBytes);
  });
}
