/**
 * The live view page, `/v1/live/{id}/{token}[?tab=…&interactive=false]`: a self-contained HTML page (its
 * script inline, no outside resource) that shows a session's tab and forwards a person's input over its
 * WebSocket (live/routes-live-socket.ts). Exempt from the API key like the CDP proxy: the token authorises
 * (401 when wrong, 404 for an unknown session). It is made to be embedded: no
 * X-Frame-Options, `frame-ancestors *`; its CSP otherwise allows only its own inline script and style
 * (by nonce), its frames (blob:) and its own origin's socket; no referrer leaves it (the URL holds the token).
 * Once the session ended the URL redirects to its replay.
 */
import { randomBytes } from "node:crypto";
import { Hono } from "hono";
import type { Env } from "../app.js";
import type { PlatformSessions, PlatformSession } from "../platform/chrome-sessions.js";
import { LIVE_PURPOSE } from "./routes-live-socket.js";
import { LIVE_SCRIPT } from "./page-script.js";

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
    return c.html(page(nonce), 200, {
      "content-security-policy": `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors *`,
      "referrer-policy": "no-referrer",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    });
  });
  return app;
}

function page(nonce: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>live view</title>
<style nonce="${nonce}">
html,body{margin:0;height:100%;background:#1e1e1e;color:#ddd;font:13px system-ui,sans-serif;overflow:hidden}
body{display:flex;flex-direction:column}
#bar{display:flex;gap:4px;align-items:center;padding:4px;background:#2b2b2b}
#bar button{background:#3a3a3a;color:#ddd;border:0;border-radius:3px;padding:3px 8px;cursor:pointer}
#nav{flex:1;display:flex}#url{flex:1;background:#111;color:#eee;border:1px solid #444;border-radius:3px;padding:3px 6px}
#tabs{display:flex;gap:2px;padding:2px 4px;background:#252525;overflow-x:auto}
#tabs button{max-width:200px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;background:#333;color:#bbb;border:0;padding:3px 8px;border-radius:3px 3px 0 0}
#tabs button[aria-current]{background:#555;color:#fff}
#title{padding:0 6px;max-width:30%;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
#box{flex:1;position:relative;outline:none;min-height:0}
#screen{position:absolute;inset:0;width:100%;height:100%;object-fit:contain;cursor:default;user-select:none}
#status{position:absolute;left:50%;top:12px;transform:translateX(-50%);background:#000c;padding:6px 12px;border-radius:4px}
body[data-interactive=false] #bar button,body[data-interactive=false] #url{display:none}
</style></head>
<body>
<div id="bar"><button id="back" type="button" title="Back" data-input>&#8592;</button><button id="forward" type="button" title="Forward" data-input>&#8594;</button><button id="reload" type="button" title="Reload" data-input>&#8635;</button>
<form id="nav"><input id="url" type="text" spellcheck="false" autocomplete="off" aria-label="Address" data-input></form><span id="title"></span></div>
<div id="tabs" role="tablist"></div>
<div id="box" tabindex="0"><img id="screen" data-svc-live alt="the session's screen"><div id="status">Connecting…</div></div>
<script nonce="${nonce}">${LIVE_SCRIPT}</script>
</body></html>`;
}
