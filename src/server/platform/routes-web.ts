/**
 * Platform API search and fetch (docs/wire-formats.md "Platform API": POST /search, POST /fetch). Both are
 * thin: the library does the work (SearxngSearch, fetchPage, SearchRequestSchema); this file adds what
 * only a shared server needs — a per-key rate limit, a deadline, and a policy on which hosts a fetch may
 * reach. Responses carry no envelope, as the platform's own.
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  fetchPage,
  SearchRequestSchema,
  SearxngSearch,
  ServiceApiError,
  ServiceInvalidArgumentError,
  ServiceNavigationError,
  ServiceSearchNotConfiguredError,
  ServiceTimeoutError,
  type SearchBackend,
} from "../../index.js";
import type { Env, ServerDeps } from "../app.js";
import { parseBody } from "../http/body.js";
import { tenantPolicy } from "../config.js";
import { HttpError } from "../http/errors.js";
import { withoutNulls } from "./wire.js";
import { RateLimiter, rateLimit } from "../http/rate-limit.js";

/** A SearXNG instance answers in well under a second; one that takes longer than this is not answering. */
const SEARCH_TIMEOUT_MS = 30_000;

export const NO_SEARCH_BACKEND =
  "search is not configured on this server: start svc serve with --search-url <SearXNG URL> (or SVC_SEARCH_URL / svc config set search.url)";

const FETCH_FORMATS = ["raw", "markdown", "json", "html", "text"] as const;

export const FetchBodySchema = z
  .looseObject({
    url: z.url({ protocol: /^https?$/, error: "expected an http(s) URL" }),
    format: z.enum(FETCH_FORMATS, { error: `expected one of ${FETCH_FORMATS.join(", ")}` }).default("raw"),
    /** A JSON Schema the fetched JSON must satisfy (format json only). */
    schema: z.record(z.string(), z.unknown(), { error: "expected a JSON Schema object" }).optional(),
    allowRedirects: z.boolean().default(true),
  })
  .superRefine((b, ctx) => {
    if (b.schema !== undefined && b.format !== "json") ctx.addIssue({ code: "custom", path: ["schema"], message: 'only with format "json"' });
  });

export function webRoutes(deps: ServerDeps): Hono<Env> {
  const { config } = deps;
  const app = new Hono<Env>();
  const backend: SearchBackend | undefined = config.searchUrl ? new SearxngSearch(config.searchUrl) : undefined;
  const searchLimit = new RateLimiter(config.searchRateLimitPerMinute);
  const fetchLimit = new RateLimiter(config.fetchRateLimitPerMinute);
  // Isolated tenants (several keys, or --isolate) fetch what their browsers may reach: the public web and
  // --allow-net, decided on the addresses each connection really uses.
  const policy = tenantPolicy(config);

  app.post("/search", rateLimit(searchLimit, "search"), async (c) => {
    const body = await parseBody(c, SearchRequestSchema);
    if (!backend) throw new HttpError(501, NO_SEARCH_BACKEND);
    const deadline = AbortSignal.timeout(SEARCH_TIMEOUT_MS);
    try {
      const result = await backend.search(body.query, body.numResults, AbortSignal.any([c.req.raw.signal, deadline]));
      return c.json({ query: result.query, requestId: result.requestId, results: result.results.map((r) => withoutNulls(r)) });
    } catch (e) {
      if (deadline.aborted || e instanceof ServiceTimeoutError) throw new HttpError(504, `the search backend did not answer within ${SEARCH_TIMEOUT_MS / 1000} s`);
      // The instance's address and its error text are the operator's business: logged, not returned.
      if (e instanceof ServiceApiError || e instanceof ServiceSearchNotConfiguredError) {
        deps.log(`search backend failed: ${e.message}`);
        throw new HttpError(502, "the search backend failed (the server's log says why)");
      }
      throw e;
    }
  });

  app.post("/fetch", rateLimit(fetchLimit, "fetch"), async (c) => {
    const body = await parseBody(c, FetchBodySchema);
    let refusal: string | undefined;
    try {
      const page = await fetchPage(body.url, {
        format: body.format,
        allowRedirects: body.allowRedirects,
        ...(body.schema ? { schema: body.schema } : {}),
        timeoutMs: config.fetchTimeoutMs,
        maxBytes: config.fetchMaxBytes,
        signal: c.req.raw.signal,
        ...(policy
          ? {
              refuseHost: (host: string, addresses: string[], port?: number) => {
                refusal = policy.refusal(host, addresses, port);
                return refusal;
              },
            }
          : {}),
      });
      const { id, content, contentType, encoding, headers, statusCode } = page;
      return c.json({ id, content, contentType, encoding, headers, statusCode });
    } catch (e) {
      // The first URL or a redirect target was refused by the policy: the request asked for it (the
      // library says so with ServiceInvalidArgumentError, a 400 naming the URL, which passes as it is).
      if (refusal && !(e instanceof ServiceInvalidArgumentError)) throw new HttpError(400, `url: ${refusal}`);
      // The library's message suggests a CLI flag; over HTTP the deadline is the operator's (fetchTimeoutMs).
      if (e instanceof ServiceTimeoutError) throw new HttpError(504, `fetching ${body.url} did not finish within the server's limit of ${config.fetchTimeoutMs} ms`);
      // DNS failure, refused connection, TLS error: the target is unreachable from here.
      if (e instanceof ServiceNavigationError) throw new HttpError(502, e.message);
      throw e;
    }
  });

  return app;
}
