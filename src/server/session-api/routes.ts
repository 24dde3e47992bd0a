/**
 * Session API routes (docs/wire-formats.md "Session API"): start, act, extract, observe, navigate,
 * agentExecute, end, replay. Bodies are validated before anything runs (400 naming the field), the
 * session is looked up before any stream starts (404), so a stream only ever reports the operation's own
 * outcome: `finished`, or `error` with the message a JSON response would carry.
 */
import { randomUUID } from "node:crypto";
import { type Context, Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { ZodType } from "zod";
import { AgentExecuteRequestSchema } from "../../index.js";
import type { ApiSession, Operation, OperationOutcome } from "./session.js";
import type { Env, ServerDeps } from "../app.js";
import { parseBody } from "../http/body.js";
import { describeFailure, errorResponse, HttpError, isDeliberate, safePath } from "../http/errors.js";
import { ActBodySchema, cacheBypassed, ExtractBodySchema, NavigateBodySchema, ObserveBodySchema, StartBodySchema } from "./bodies.js";
import { actOperation, agentOperation, extractOperation, navigateOperation, observeOperation, type RequestModel } from "./ops.js";
import { EventStream, logForm, namedEvents, wantsStream } from "../http/sse.js";

type Build<B> = (session: ApiSession, body: B, rm: RequestModel) => Operation;

/** `data` of a JSON response; agentExecute's is exactly AgentExecuteResultOutput (docs/wire-formats.md "Agent result", no actionId). */
type Shape = (outcome: OperationOutcome, actionId: string) => Record<string, unknown>;
const withActionId: Shape = (o, actionId) => ({ result: o.result, actionId });
const agentShape: Shape = (o) => ({ result: o.result, ...o.extra });

export function sessionRoutes(deps: ServerDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.post("/sessions/start", async (c) => {
    const body = await parseBody(c, StartBodySchema);
    // A cluster starts a session on an existing browser session where that browser runs.
    const elsewhere = body.browserbaseSessionID && body.browser?.type !== "local" ? await deps.cluster?.forwarder.startElsewhere(c, body.browserbaseSessionID) : undefined;
    if (elsewhere) return elsewhere;
    const data = await deps.api.start(c.get("owner"), body, c.req.header("x-model-api-key"), c.req.raw.signal);
    return c.json({ success: true, data });
  });

  app.post("/sessions/:id/act", (c) => operate(c, deps, ActBodySchema, actOperation, withActionId));
  app.post("/sessions/:id/extract", (c) => operate(c, deps, ExtractBodySchema, extractOperation, withActionId));
  app.post("/sessions/:id/observe", (c) => operate(c, deps, ObserveBodySchema, observeOperation, withActionId));
  app.post("/sessions/:id/navigate", (c) => operate(c, deps, NavigateBodySchema, (s, b) => navigateOperation(s, b), withActionId));
  app.post("/sessions/:id/agentExecute", (c) => operate(c, deps, AgentExecuteRequestSchema, (s, b, rm) => agentOperation(s, b, rm, deps.config.cacheDir), agentShape));

  app.post("/sessions/:id/end", async (c) => {
    const session = deps.api.get(c.get("owner"), c.req.param("id"));
    await deps.api.end(session, "ended by the client");
    return c.json({ success: true, data: {} });
  });

  app.get("/sessions/:id/replay", (c) => {
    const session = deps.api.get(c.get("owner"), c.req.param("id"));
    return c.json({ success: true, data: session.replay.toWire() });
  });

  return app;
}

async function operate<B extends { streamResponse?: boolean | null | undefined }>(c: Context<Env>, deps: ServerDeps, schema: ZodType<B>, build: Build<B>, shape: Shape): Promise<Response> {
  const body = await parseBody(c, schema);
  const session = deps.api.get(c.get("owner"), c.req.param("id")!);
  const rm: RequestModel = { key: c.req.header("x-model-api-key"), bypassCache: cacheBypassed(c.req.header("browserbase-cache-bypass")), endpoints: deps.api.models.policy };
  const op = build(session, body, rm);
  const actionId = randomUUID();
  // Aborted by the server when the client's connection closes before the response is done.
  const gone = c.req.raw.signal;

  if (!wantsStream(c, body.streamResponse)) {
    const outcome = await session.perform(op, gone);
    if (outcome.cacheStatus) c.header("browserbase-cache-status", outcome.cacheStatus);
    return c.json({ success: true, data: shape(outcome, actionId) });
  }

  return streamSSE(c, async (stream) => {
    const events = new EventStream(stream, namedEvents(c), logForm(c));
    const left = new AbortController();
    stream.onAbort(() => left.abort());
    // Everything after the headers is inside this try: whatever throws, the stream ends with `error`.
    try {
      await events.system("starting");
      await events.system("connected");
      const outcome = await session.perform(op, AbortSignal.any([gone, left.signal]), (line) => void events.log(line));
      // Headers left before the outcome was known: the cache verdict rides in the event (Stagehand reads both).
      const cache = outcome.cacheStatus ? { cacheHit: outcome.cacheStatus === "HIT" } : {};
      await events.finished(outcome.result, { ...outcome.extra, ...cache, actionId });
    } catch (e) {
      const r = errorResponse(e);
      // A JSON 500 is logged by the app's error handler; a stream's never reaches it.
      if (r.status >= 500 && !isDeliberate(e)) deps.log(`error ${c.req.method} ${safePath(c.req.path)} (stream): ${describeFailure(e)}`);
      await events.error(r.message, r.code);
    }
    await events.flush();
  });
}
