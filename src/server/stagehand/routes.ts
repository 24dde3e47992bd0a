/**
 * The Stagehand API calls a Stagehand 4 client makes through `apiUrl`: the Model Gateway (`/v1/llm/responses`, the
 * operator's model for the key's own session; the client's Bearer not passed on, the operator's key never echoed) and
 * the cache (`/v1/cache/*`); anything else there is 501. The Gateway spends the operator's budget, so each key is
 * bounded by size, rate and concurrency.
 */
import { type Context, Hono } from "hono";
import { z } from "zod";
import { MissingLLMConfigurationError } from "../../index.js";
import { gatewayTarget } from "../../internal.js";
import type { Env, ServerDeps } from "../app.js";
import type { Owner } from "../tenant.js";
import { limitBody, parseBody } from "../http/body.js";
import { HttpError } from "../http/errors.js";
import { NotFoundError } from "../failures.js";
import { InFlightLimiter, RateLimiter, rateLimit, tooManyInFlight } from "../http/rate-limit.js";
import { CacheGetSchema, CacheSetSchema, type StagehandCache } from "./cache.js";
import { clip } from "../../util/zod.js";

/** What an OpenAI Responses request must have; the rest goes upstream as the client wrote it. */
const ResponsesBodySchema = z.looseObject({
  model: z.string().min(1).max(200).optional(),
  input: z.unknown().refine((v) => v !== undefined, "required"),
  stream: z.boolean().optional(),
});

/** How long the upstream model may take to answer (headers; a stream then flows as long as it lasts). */
const UPSTREAM_TIMEOUT_MS = 300_000;

export function stagehandRoutes(deps: ServerDeps, cache: StagehandCache): Hono<Env> {
  const { platform, config } = deps;
  const app = new Hono<Env>();

  /** 404 unless `id` is a session of `owner` (here, or on another replica of the cluster); 409 when it ended. */
  async function checkSession(owner: Owner, id: string | undefined, field: string): Promise<void> {
    if (!id) throw new HttpError(400, `${field}: required (the session the call is made for)`);
    try {
      const s = platform.get(owner, id);
      if (s.status !== "RUNNING") throw new HttpError(409, `${field}: session ${s.id} is not running (${s.status})`);
      return;
    } catch (e) {
      if (!(e instanceof NotFoundError) || !deps.cluster) throw e;
    }
    const where = await deps.cluster.cluster.locate("platform", id);
    if (where.at === "peer" && where.stored.record.keyFingerprint === owner) return;
    throw new HttpError(404, `${field}: session ${clip(id)} not found`);
  }

  const gatewayRate = new RateLimiter(config.gatewayRateLimitPerMinute);
  const gatewayInFlight = new InFlightLimiter(config.gatewayConcurrencyPerKey);

  app.post("/llm/responses", limitBody(config.gatewayBodyLimitBytes, "--gateway-body-limit"), rateLimit(gatewayRate, "Model Gateway", "--gateway-rate"), async (c) => {
    const owner = c.get("owner");
    const release = gatewayInFlight.take(owner);
    if (!release) throw tooManyInFlight(gatewayInFlight, "Model Gateway", "--gateway-concurrency");
    try {
      const res = await forward(c, owner);
      return res.body ? new Response(releasing(res.body, release), { status: res.status, headers: res.headers }) : (release(), res);
    } catch (e) {
      release();
      throw e;
    }
  });

  async function forward(c: Context<Env>, owner: Owner): Promise<Response> {
    await checkSession(owner, c.req.header("x-bb-session-id"), "x-bb-session-id");
    const body = await parseBody(c, ResponsesBodySchema);
    const target = await gatewayTarget(body.model, config.modelBaseURL).catch((e: unknown) => {
      // No key on the server for that provider: the operator's setup, not the request (the library says 400).
      if (e instanceof MissingLLMConfigurationError) throw new HttpError(501, `the server's Model Gateway cannot serve ${clip(body.model ?? "its default model")}: ${e.message.replace(/, pass model\.apiKey.*$/, "")} on the server`);
      throw e;
    });
    const upstream = await (target.fetch ?? fetch)(target.url, {
      method: "POST",
      headers: { ...target.headers, "content-type": "application/json", accept: c.req.header("accept") ?? "application/json" },
      body: JSON.stringify({ ...body, model: target.model }),
      signal: AbortSignal.any([c.req.raw.signal, AbortSignal.timeout(UPSTREAM_TIMEOUT_MS)]),
    }).catch((e: unknown) => {
      if (c.req.raw.signal.aborted) throw new HttpError(499, "the client disconnected");
      deps.log(`gateway: the model endpoint did not answer (${(e as Error).name})`);
      throw new HttpError(502, "the server's model endpoint did not answer");
    });
    const type = upstream.headers.get("content-type") ?? "application/json";
    if (upstream.ok) return new Response(upstream.body, { status: upstream.status, headers: { "content-type": type } });
    // The operator's credential or configuration failing is the operator's business: logged, a 502 to the client.
    if (upstream.status === 401 || upstream.status === 403 || upstream.status === 404) {
      await upstream.body?.cancel();
      deps.log(`gateway: the model endpoint answered ${upstream.status} for model ${clip(target.model)}`);
      throw new HttpError(502, `the server's model endpoint refused the request (${upstream.status}); the server's log says so`);
    }
    // The request's own faults (400, 429 …) go back as the endpoint gave them, any secret masked.
    let text = await upstream.text();
    for (const s of target.secrets) text = text.split(s).join("***");
    const retry = upstream.headers.get("retry-after");
    return new Response(text, { status: upstream.status, headers: { "content-type": type, ...(retry ? { "retry-after": retry } : {}) } });
  }

  app.post("/cache/get", async (c) => {
    const body = await parseBody(c, CacheGetSchema);
    await checkSession(c.get("owner"), body.sessionId, "sessionId");
    return c.json({ success: true, data: await cache.get(c.get("owner"), body) });
  });

  app.post("/cache/set", async (c) => {
    const body = await parseBody(c, CacheSetSchema);
    await checkSession(c.get("owner"), body.sessionId, "sessionId");
    return c.json({ success: true, data: await cache.set(c.get("owner"), body) });
  });

  const notHere = (what: string) => (c: { req: { method: string; path: string } }) => {
    throw new HttpError(501, `${c.req.method} ${clip(c.req.path)}: this Stagehand API call is not offered by svc (${what})`);
  };
  app.all("/llm/*", notHere("its Model Gateway answers POST /v1/llm/responses only"));
  app.all("/cache/*", notHere("its cache answers POST /v1/cache/get and /v1/cache/set only"));
  return app;
}

/** `body` passed through; `done` is called once it ended, failed or was cancelled (the client left). */
function releasing(body: ReadableStream<Uint8Array>, done: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done: ended } = await reader.read();
        if (ended) {
          done();
          controller.close();
        } else controller.enqueue(value);
      } catch (e) {
        done();
        controller.error(e);
      }
    },
    async cancel(reason) {
      done();
      await reader.cancel(reason).catch(() => {});
    },
  });
}
