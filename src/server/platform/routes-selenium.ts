/**
 * `seleniumRemoteUrl` (platform/wire.ts) lands here: svc drives Chrome over CDP only, so every WebDriver
 * call answers 501 naming itself and what to use instead. Mounted before the API key check: a Selenium
 * client sends only its signingKey, and the answer reveals nothing a key would guard.
 */
import { Hono } from "hono";
import type { Env } from "../app.js";
import { HttpError, safePath } from "../http/errors.js";

export function seleniumRoutes(): Hono<Env> {
  const app = new Hono<Env>();
  app.all("/selenium/*", (c) => {
    throw new HttpError(501, `${c.req.method} ${safePath(c.req.path)}: svc offers no Selenium (WebDriver) endpoint; connect over CDP with the session's connectUrl`);
  });
  return app;
}
