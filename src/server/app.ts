/**
 * The HTTP surface of `svc serve` (docs/wire-formats.md): one Hono app, two route families on one origin; auth, body
 * limits, the error envelope and request logs here, routes in routes-*.ts. A route's exception answers that request
 * only (onError). Requests Node's parser refuses before the app (bad chunking, bad headers) and CONNECT (405) are
 * answered by handleClientErrors.
 */
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Admission } from "./platform/admission.js";
import type { ApiSessions } from "./session-api/service-sessions.js";
import { apiKeyAuth } from "./http/auth.js";
import { keyFingerprint, type Owner } from "./tenant.js";
import { limitBody } from "./http/body.js";
import type { ClusterParts } from "./cluster/index.js";
import type { ServerConfig } from "./config.js";
import type { Contexts } from "./features/contexts.js";
import type { ExtensionStore } from "./features/extensions.js";
import { describeFailure, errorBody, errorResponse, HttpError, isDeliberate, safePath, statusCode } from "./http/errors.js";
import type { PlatformSessions } from "./platform/chrome-sessions.js";
import { contextRoutes, CONTEXT_UPLOAD_PATH } from "./features/routes-contexts.js";
import { extensionRoutes } from "./features/routes-extensions.js";
import { pressureRoutes, readinessRoutes } from "./platform/routes-health.js";
import { platformRoutes } from "./platform/routes.js";
import { projectRoutes, type UsageMeter } from "./platform/routes-projects.js";
import { seleniumRoutes } from "./platform/routes-selenium.js";
import { stagehandRoutes } from "./stagehand/routes.js";
import type { StagehandCache } from "./stagehand/cache.js";
import { sessionRoutes } from "./session-api/routes.js";
import { sessionArtifactRoutes } from "./features/routes-artifacts.js";
import type { SessionRecorders } from "./features/recorder-feature.js";
import { webRoutes } from "./platform/routes-web.js";
import { uiRoutes } from "./ui/routes.js";
import { liveRoutes, liveViewUrl } from "./live/routes-live.js";
import { liveDebugRoutes } from "./live/routes-debug.js";
import { cdpRoutes } from "./cdp/routes.js";
import { replayRoutes } from "./live/routes-replay.js";
import { clip } from "../util/zod.js";

export type Env = { Variables: { owner: Owner } };

/** The methods some route of the API answers (the Allow header of a 405). */
const ALLOWED_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE";

/** Longest query string (after `?`) a route accepts; every query of the API is a few short fields. */
export const MAX_QUERY_LENGTH = 4096;

export interface ServerDeps {
  config: ServerConfig;
  platform: PlatformSessions;
  api: ApiSessions;
  /** Session slots, queue, load limits and draining (platform/admission.ts). */
  admission: Admission;
  /** The origin clients reach this server at (publicUrl, or http://host:port once listening). */
  publicUrl(): string;
  log(line: string): void;
  /** True once shutdown began: new work is refused with 503. */
  shuttingDown(): boolean;
  /** Cluster mode: the shared session store and the forwarding to other replicas. */
  cluster?: ClusterParts | undefined;
  /** Saved contexts (features/contexts.ts), behind /v1/contexts and `browserSettings.context`. */
  contexts?: Contexts | undefined;
  /** Uploaded extensions (`/v1/extensions`, features/extensions.ts). */
  extensions?: ExtensionStore | undefined;
  /** Browser minutes per key, for GET /v1/projects/{id}/usage (a session feature: platform/routes-projects.ts). */
  usage: UsageMeter;
  /** Stagehand 4's server-side cache (POST /v1/cache/get|set: stagehand/routes.ts). */
  stagehandCache: StagehandCache;
  /** Platform sessions' logs, recordings and downloads (features/recorder-feature.ts). */
  recorders?: SessionRecorders | undefined;
}

export function createApp(deps: ServerDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.use("*", async (c, next) => {
    const t0 = performance.now();
    await next();
    const key = c.req.header("x-bb-api-key");
    // The CDP proxy's path holds the session's capability token: never in a log line.
    deps.log(`${c.req.method} ${safePath(c.req.path)} ${c.res.status} ${Math.round(performance.now() - t0)}ms${key ? ` key=${keyFingerprint(key)}` : ""}`);
  });

  // TRACE echoes a request back (credentials included, with a cross-site trick): no route answers it.
  app.on("TRACE", "*", () => {
    throw new HttpError(405, "method TRACE: not allowed here (the API uses GET, POST, PUT, PATCH and DELETE)", { allow: ALLOWED_METHODS });
  });

  app.get("/healthz", (c) => c.json({ status: deps.shuttingDown() ? "shutting-down" : "ok" }, deps.shuttingDown() ? 503 : 200));

  app.route("/", readinessRoutes(deps));
  // Before the key check: a Selenium client sends none, and the 501 guards nothing (platform/routes-selenium.ts).
  app.route("/v1", seleniumRoutes());

  // Draining: nothing new starts here (GET /v1/pressure still answers, for the autoscaler watching).
  app.use("/v1/*", async (c, next) => {
    if (deps.shuttingDown() && c.req.path !== "/v1/pressure") throw new HttpError(503, "the server is shutting down (draining): it takes no new requests; retry on another replica", { "retry-after": "5" }, "DRAINING");
    await next();
  });
  // The CDP proxy's HTTP side (/v1/connect/{id}/{token}/…) is authorised by its per-session token: CDP
  // clients (Playwright, Puppeteer, DevTools) cannot send our header.
  const auth = apiKeyAuth(deps.config.apiKeys);
  // The contexts' placeholder upload URL answers 501 to anyone (an uploader sends no key, as to a presigned URL).
  // The live view (/v1/live/{id}/{token}) is authorised by a token derived from the session's, the same way.
  app.use("/v1/*", (c, next) => (c.req.path.startsWith("/v1/connect/") || c.req.path.startsWith("/v1/live/") || CONTEXT_UPLOAD_PATH.test(c.req.path) ? next() : auth(c, next)));
  app.use("/v1/*", async (c, next) => {
    const q = c.req.url.indexOf("?");
    if (q >= 0 && c.req.url.length - q - 1 > MAX_QUERY_LENGTH) throw new HttpError(414, `query: longer than ${MAX_QUERY_LENGTH} characters`);
    await next();
  });
  // Requests for another replica's session go there, body unread (the owner applies the limits).
  if (deps.cluster) app.use("/v1/*", deps.cluster.forwarder.middleware());
  app.use("/v1/*", limitBody(deps.config.bodyLimitBytes));

  // Session API first: its static `/sessions/start` must win over the platform's `/sessions/:id`.
  app.route("/v1", sessionRoutes(deps));
  app.route("/v1", platformRoutes(deps));
  app.route("/v1", liveDebugRoutes(deps));
  app.route("/v1", cdpRoutes(deps));
  app.route("/v1", liveRoutes(deps.platform));
  app.route("/v1", replayRoutes(deps.platform, deps.recorders));
  app.route("/v1", sessionArtifactRoutes(deps));
  app.route("/v1", webRoutes(deps));
  app.route("/v1", pressureRoutes(deps));
  if (deps.contexts) app.route("/v1", contextRoutes({ ...deps, contexts: deps.contexts }));
  if (deps.extensions) app.route("/v1", extensionRoutes(deps.extensions));
  app.route("/v1", projectRoutes(deps, deps.usage));
  app.route("/v1", stagehandRoutes(deps, deps.stagehandCache));

  // The dashboard asks this app itself, with the key its cookie holds (ui/routes.ts).
  const replayUrl = (key: string, id: string) => {
    try {
      return `${liveViewUrl(deps.platform, deps.publicUrl(), deps.platform.get(keyFingerprint(key), id))}/replay`;
    } catch {
      return undefined;
    }
  };
  app.route("/ui", uiRoutes({ self: app, publicUrl: deps.publicUrl, replayUrl }));

  app.notFound((c) => c.json(errorBody({ message: `no route ${c.req.method} ${clip(c.req.path)}`, code: statusCode(404) }), 404));
  app.onError((e, c) => {
    const r = errorResponse(e);
    // Only the error's name and where it was thrown: its message may quote the request (or a secret in it).
    if (r.status >= 500 && !isDeliberate(e)) deps.log(`error ${c.req.method} ${safePath(c.req.path)}: ${describeFailure(e)}`);
    for (const [k, v] of Object.entries(r.headers)) c.header(k, v);
    return c.json(errorBody(r), r.status as ContentfulStatusCode);
  });
  return app;
}

/**
 * Requests Node's HTTP parser refuses before the app sees them (malformed chunked encoding, invalid
 * headers, a header section too large, a request that timed out) get the status Node would send — 400,
 * 431 or 408 — and a log line saying so, instead of the default silent answer. A socket already
 * answering (headers sent) or gone is only closed.
 */
export function handleClientErrors(server: Server, log: (line: string) => void): void {
  // Node hands CONNECT to 'connect' listeners only and drops the socket when there is none: answer it (this
  // server is no forward proxy; the session's egress proxy is another server).
  server.on("connect", (req: IncomingMessage, socket: Duplex) => {
    log(`CONNECT ${clip(req.url ?? "", 80)} 405`);
    const body = JSON.stringify(errorBody({ message: "method CONNECT: not allowed (this server is no proxy)", code: statusCode(405) }));
    socket.on("error", () => socket.destroy());
    socket.end(
      `HTTP/1.1 405 Method Not Allowed\r\nAllow: ${ALLOWED_METHODS}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      () => socket.destroy(),
    );
  });
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const status = err.code === "HPE_HEADER_OVERFLOW" ? 431 : err.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
    const reason = { 400: "Bad Request", 408: "Request Timeout", 431: "Request Header Fields Too Large" }[status];
    log(`client error: ${status} (${err.code ?? err.name})`);
    const message = status === 400 ? "malformed HTTP request" : status === 431 ? "request headers too large" : "request timed out";
    const body = JSON.stringify(errorBody({ message, code: statusCode(status) }));
    const headersSent = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent ?? false;
    if (headersSent) {
      socket.destroy();
      return;
    }
    socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`, () => socket.destroy());
  });
}
