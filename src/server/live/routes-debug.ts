/**
 * `GET /v1/sessions/{id}/debug` (docs/wire-formats.md "Platform API"): a platform session's debug URLs, the
 * live view (routes-live.ts) of its first tab and of each tab. The live view serves them, as it alone knows
 * its URLs; the platform's routes know nothing of it.
 */
import { Hono } from "hono";
import { devtoolsJson } from "../../util/devtools-socket.js";
import type { Env, ServerDeps } from "../app.js";
import { HttpError } from "../http/errors.js";
import { liveViewUrl } from "./routes-live.js";

interface ChromeTarget {
  id: string;
  type: string;
  url: string;
  title: string;
  faviconUrl?: string;
}

export function liveDebugRoutes(deps: Pick<ServerDeps, "platform" | "publicUrl">): Hono<Env> {
  const { platform } = deps;
  const app = new Hono<Env>();
  app.get("/sessions/:id/debug", async (c) => {
    const owner = c.get("owner");
    const session = platform.get(owner, c.req.param("id"));
    const socketPath = platform.chromeSocket(owner, session.id);
    let targets: ChromeTarget[];
    try {
      const list = await devtoolsJson(socketPath, "/json/list");
      if (!Array.isArray(list.body)) throw new Error("not a list");
      targets = list.body as ChromeTarget[];
    } catch {
      throw new HttpError(502, "the session's browser did not answer");
    }
    const publicUrl = deps.publicUrl();
    const pages = targets
      .filter((t) => t.type === "page")
      .map((t) => {
        const url = liveViewUrl(platform, publicUrl, session, t.id);
        return { id: t.id, url: t.url, title: t.title, faviconUrl: t.faviconUrl ?? "", debuggerUrl: url, debuggerFullscreenUrl: url };
      });
    const debuggerUrl = liveViewUrl(platform, publicUrl, session);
    return c.json({ debuggerUrl, debuggerFullscreenUrl: debuggerUrl, wsUrl: platform.connectUrl(session), pages });
  });
  return app;
}
