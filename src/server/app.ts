/**
 * The HTTP surface of `svc serve` (spec/http-api.md): one Hono app, two route families on one origin.
 * Auth, body limits, the error envelope and request logs live here; the routes live in routes-*.ts.
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiSessions } from "./api-sessions.js";
import { apiKeyAuth, keyFingerprint, type Owner } from "./auth.js";
import type { ServerConfig } from "./config.js";
import { errorResponse, HttpError } from "./http-error.js";
import type { PlatformSessions } from "./platform-sessions.js";
import { platformRoutes } from "./routes-platform.js";
import { sessionRoutes } from "./routes-session.js";
import { webRoutes } from "./routes-web.js";

export type Env = { Variables: { owner: Owner } };

export interface ServerDeps {
  config: ServerConfig;
  platform: PlatformSessions;
  api: ApiSessions;
  /** The origin clients reach this server at (publicUrl, or http://host:port once listening). */
  publicUrl(): string;
  log(line: string): void;
  /** True once shutdown began: new work is refused with 503. */
  shuttingDown(): boolean;
}

export function createApp(deps: ServerDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.use("*", async (c, next) => {
    const t0 = performance.now();
    await next();
    const key = c.req.header("x-bb-api-key");
    // The CDP proxy's path holds the session's capability token: never in a log line.
    const path = c.req.path.replace(/^(\/v1\/connect\/[^/]+\/)[^/]+/, "$1***");
    deps.log(`${c.req.method} ${path} ${c.res.status} ${Math.round(performance.now() - t0)}ms${key ? ` key=${keyFingerprint(key)}` : ""}`);
  });

  app.get("/healthz", (c) => c.json({ status: deps.shuttingDown() ? "shutting-down" : "ok" }, deps.shuttingDown() ? 503 : 200));

  app.use("/v1/*", async (_c, next) => {
    if (deps.shuttingDown()) throw new HttpError(503, "the server is shutting down", { "retry-after": "5" });
    await next();
  });
  // The CDP proxy's HTTP side (/v1/connect/{id}/{token}/…) is authorised by its per-session token: CDP
  // clients (Playwright, Puppeteer, DevTools) cannot send our header.
  const auth = apiKeyAuth(deps.config.apiKeys);
  app.use("/v1/*", (c, next) => (c.req.path.startsWith("/v1/connect/") ? next() : auth(c, next)));
  app.use(
    "/v1/*",
    bodyLimit({
      maxSize: deps.config.bodyLimitBytes,
      onError: () => {
        throw new HttpError(413, `body: larger than the limit of ${deps.config.bodyLimitBytes} bytes`);
      },
    }),
  );

  // Session API first: its static `/sessions/start` must win over the platform's `/sessions/:id`.
  app.route("/v1", sessionRoutes(deps));
  app.route("/v1", platformRoutes(deps));
  app.route("/v1", webRoutes(deps));

  app.notFound((c) => c.json({ success: false, message: `no route ${c.req.method} ${c.req.path}` }, 404));
  app.onError((e, c) => {
    const r = errorResponse(e);
    if (r.status >= 500 && !(e instanceof HttpError)) deps.log(`error ${c.req.method} ${c.req.path}: ${e instanceof Error ? e.name : "unknown"}`);
    for (const [k, v] of Object.entries(r.headers)) c.header(k, v);
    return c.json({ success: false, message: r.message, ...(r.code ? { code: r.code } : {}) }, r.status as ContentfulStatusCode);
  });
  return app;
}
