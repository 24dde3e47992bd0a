/**
 * The live view page (`/v1/live/{id}/{token}`): self-contained HTML that shows a session's tab and forwards input
 * over its WebSocket (routes-live-socket.ts). Exempt from the API key like the CDP proxy: the token authorises.
 * Embeddable (`frame-ancestors *`), otherwise its CSP allows only its inline script and style, blob: frames and its
 * own origin.
 */
import { randomBytes } from "node:crypto";
import { Hono } from "hono";
import type { Env } from "../app.js";
import type { PlatformSessions, PlatformSession } from "../platform/chrome-sessions.js";
import { LIVE_PURPOSE } from "./routes-live-socket.js";
import { livePage, livePageHeaders } from "./page-html.js";

/** The live view URL of a session (of tab `tab` when given). */
export function liveViewUrl(platform: PlatformSessions, publicUrl: string, session: PlatformSession, tab?: string): string {
  const base = `${publicUrl.replace(/\/+$/, "")}/v1/live/${encodeURIComponent(session.id)}/${platform.derivedToken(session, LIVE_PURPOSE)}`;
  return tab === undefined ? base : `${base}?tab=${encodeURIComponent(tab)}`;
}

export function liveRoutes(platform: PlatformSessions): Hono<Env> {
  const app = new Hono<Env>();
  app.get("/live/:id/:token", (c) => {
    const session = platform.sessionByToken(c.req.param("id"), c.req.param("token"), LIVE_PURPOSE);
    if (session instanceof Error) throw session;
    // An ended session has a replay instead (live/routes-replay.ts).
    if (session.status !== "RUNNING") return c.redirect(`${new URL(c.req.url).pathname}/replay`, 302);
    const nonce = randomBytes(16).toString("base64");
    return c.html(livePage(nonce), 200, livePageHeaders(nonce));
  });
  return app;
}
