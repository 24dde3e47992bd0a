/**
 * The replay page of a platform session (`/v1/live/{id}/{token}/replay`, the live view's token): rrweb's player on
 * the recording with its log beside it (replay-page.ts), served as long as the recording is kept (then 404, or 410
 * when dropped for room). The recorded page's own resources are never fetched: the CSP allows images only from data:
 * and blob:, no script but the page's.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Hono, type Context } from "hono";
import type { Env } from "../app.js";
import { HttpError } from "../http/errors.js";
import type { PlatformSessions, PlatformSession } from "../platform/chrome-sessions.js";
import type { SessionRecorders } from "../features/recorder-feature.js";
import { LIVE_PURPOSE } from "./routes-live-socket.js";
import { replayPage } from "./replay-page.js";

let assets: { js: string; css: string } | undefined;
/** rrweb's UMD bundle and its player's stylesheet, read once. */
function rrwebAssets(): { js: string; css: string } {
  if (!assets) {
    const dir = dirname(createRequire(import.meta.url).resolve("rrweb"));
    assets = { js: readFileSync(join(dir, "rrweb.umd.min.cjs"), "utf8"), css: readFileSync(join(dir, "style.min.css"), "utf8") };
  }
  return assets;
}

export function replayRoutes(platform: PlatformSessions, recorders: SessionRecorders | undefined): Hono<Env> {
  const app = new Hono<Env>();
  const session = (c: Context<Env>): PlatformSession => {
    const s = platform.sessionByToken(c.req.param("id") ?? "", c.req.param("token") ?? "", LIVE_PURPOSE);
    if (s instanceof Error) throw s;
    return s;
  };

  app.get("/live/:id/:token/replay", (c) => {
    session(c);
    const nonce = randomBytes(16).toString("base64");
    return c.html(replayPage(nonce), 200, {
      "content-security-policy": `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'self' 'unsafe-inline'; img-src data: blob:; font-src data:; connect-src 'self'; frame-src 'self' about:; child-src 'self' about:; base-uri 'none'; form-action 'none'; frame-ancestors *`,
      "referrer-policy": "no-referrer",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    });
  });

  app.get("/live/:id/:token/replay/data", (c) => {
    const s = session(c);
    const a = recorders?.get(s.id);
    if (!a) throw new HttpError(404, `session ${s.id} has no recording on this server`);
    if (a.evicted) throw new HttpError(410, `the recording of session ${s.id} was dropped to make room for newer ones`);
    return c.json({ events: a.recorder.events(), logs: a.recorder.logs() }, 200, { "cache-control": "no-store" });
  });

  app.get("/live/:id/:token/replay/rrweb.js", (c) => {
    session(c);
    return c.body(rrwebAssets().js, 200, { "content-type": "text/javascript; charset=utf-8", "x-content-type-options": "nosniff" });
  });

  app.get("/live/:id/:token/replay/rrweb.css", (c) => {
    session(c);
    return c.body(rrwebAssets().css, 200, { "content-type": "text/css; charset=utf-8", "x-content-type-options": "nosniff" });
  });
  return app;
}
