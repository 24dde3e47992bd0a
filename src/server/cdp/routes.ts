/**
 * The CDP proxy's HTTP side (`GET /v1/connect/{id}/{token}/…`: json/… and devtools/…, cdp/proxy.ts); app.ts
 * exempts /v1/connect/ from the API key (the token authorises).
 */
import { Hono } from "hono";
import type { Env, ServerDeps } from "../app.js";
import { proxyCdpHttp } from "./proxy.js";

export function cdpRoutes(deps: Pick<ServerDeps, "platform">): Hono<Env> {
  const app = new Hono<Env>();
  app.get("/connect/:id/:token/*", (c) => {
    const { id, token } = c.req.param();
    const prefix = `/v1/connect/${encodeURIComponent(id)}/${encodeURIComponent(token)}`;
    const url = new URL(c.req.url);
    const path = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : "/";
    return proxyCdpHttp(deps.platform, id, token, `${path || "/"}${url.search}`);
  });
  return app;
}
