/**
 * `/ui`: a dashboard of an API key's sessions with links to live view and replay. The key is kept in an HttpOnly,
 * SameSite=Strict cookie, never in a page. Each page asks the app itself for the API's routes with that key, so key
 * check, tenancy, rate limits and forwarding are the API's own: this file decides nothing about who sees what.
 */
import { type Context, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { HttpError } from "../http/errors.js";
import { limitBody } from "../http/body.js";
import { UI_CSP, type UiSession, loginPage, sessionsPage } from "./html.js";

export const UI_COOKIE = "svc_ui_key";
/** How long the cookie lasts without a new sign-in. */
const COOKIE_MAX_AGE_S = 7 * 24 * 3600;
/** The most sessions one page lists (newest first). */
export const UI_MAX_ROWS = 200;
const MAX_FORM_BYTES = 4096;

interface SelfRequester {
  request(path: string, init?: RequestInit): Response | Promise<Response>;
}

/** `replayUrl`: the replay page of the key's session run here, or undefined (another replica's, or none). */
export function uiRoutes(options: { self: SelfRequester; publicUrl(): string; replayUrl(key: string, id: string): string | undefined }): Hono {
  const app = new Hono();
  const secure = () => options.publicUrl().startsWith("https:");
  const api = (key: string, path: string) => options.self.request(path, { headers: { "x-bb-api-key": key } });
  const html = (c: Context, body: string, status: 200 | 401 = 200) =>
    c.body(body, status, { "content-type": "text/html; charset=utf-8", "content-security-policy": UI_CSP, "x-frame-options": "DENY", "cache-control": "no-store", "referrer-policy": "same-origin" });

  app.use("*", limitBody(MAX_FORM_BYTES));
  // A form posted from another site: refused (the cookie is SameSite=Strict; this covers signing in too).
  app.use("*", async (c, next) => {
    const origin = c.req.header("origin");
    if (c.req.method === "POST" && origin !== undefined && origin !== new URL(c.req.url).origin && origin !== new URL(options.publicUrl()).origin) {
      throw new HttpError(403, "origin: a dashboard form must come from the dashboard's own origin");
    }
    await next();
  });

  app.get("/", async (c) => {
    const key = getCookie(c, UI_COOKIE);
    if (!key) return html(c, loginPage());
    const res = await api(key, "/v1/sessions");
    if (res.status === 401) {
      deleteCookie(c, UI_COOKIE, { path: "/ui", httpOnly: true, sameSite: "Strict", secure: secure() });
      return html(c, loginPage("That API key is not (or no longer) known to this server."), 401);
    }
    if (!res.ok) throw new HttpError(502, `the session list answered ${res.status}`);
    const sessions = ((await res.json()) as UiSession[]).sort((a, b) => Date.parse(b.createdAt ?? "") - Date.parse(a.createdAt ?? "") || a.id.localeCompare(b.id));
    const projects = (await (await api(key, "/v1/projects")).json().catch(() => [])) as Array<{ id?: string }>;
    const project = Array.isArray(projects) ? projects[0]?.id : undefined;
    const usage = project ? ((await (await api(key, `/v1/projects/${encodeURIComponent(project)}/usage`)).json().catch(() => ({}))) as { browserMinutes?: unknown }) : {};
    return html(c, sessionsPage({ sessions, shown: UI_MAX_ROWS, now: Date.now(), browserMinutes: typeof usage.browserMinutes === "number" ? usage.browserMinutes : undefined }));
  });

  app.post("/login", async (c) => {
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const key = typeof form.key === "string" ? form.key.trim() : "";
    if (!key || key.length > 512) return html(c, loginPage("key: enter the API key (at most 512 characters)."), 401);
    const res = await api(key, "/v1/projects");
    if (res.status === 401) return html(c, loginPage("That API key is not known to this server."), 401);
    setCookie(c, UI_COOKIE, key, { path: "/ui", httpOnly: true, sameSite: "Strict", secure: secure(), maxAge: COOKIE_MAX_AGE_S });
    return c.redirect("/ui", 303);
  });

  app.post("/logout", (c) => {
    deleteCookie(c, UI_COOKIE, { path: "/ui", httpOnly: true, sameSite: "Strict", secure: secure() });
    return c.redirect("/ui", 303);
  });

  // A session's live view: its debuggerFullscreenUrl, asked of the API when followed (it carries a token).
  app.get("/sessions/:id/live", async (c) => {
    const key = getCookie(c, UI_COOKIE);
    if (!key) return c.redirect("/ui", 303);
    const res = await api(key, `/v1/sessions/${encodeURIComponent(c.req.param("id"))}/debug`);
    if (!res.ok) return passError(res);
    const body = (await res.json()) as { debuggerFullscreenUrl?: unknown };
    if (typeof body.debuggerFullscreenUrl !== "string") throw new HttpError(502, "the session's debug URLs have no debuggerFullscreenUrl");
    return c.redirect(body.debuggerFullscreenUrl, 303);
  });

  // A session's replay: the replay page beside its live view (same token). The API says whether the key owns the
  // session (in a cluster it answers for every replica); its URL is made where the session ran.
  app.get("/sessions/:id/replay", async (c) => {
    const key = getCookie(c, UI_COOKIE);
    if (!key) return c.redirect("/ui", 303);
    const id = c.req.param("id");
    const res = await api(key, `/v1/sessions/${encodeURIComponent(id)}`);
    if (!res.ok) return passError(res);
    const url = options.replayUrl(key, id);
    if (url === undefined) throw new HttpError(404, `session ${id.slice(0, 100)} ran on another replica: open its replay from there`);
    return c.redirect(url, 303);
  });

  return app;
}

/** The API's error answer, passed on as it is (its status and JSON body with a code). */
function passError(res: Response): Response {
  return new Response(res.body, { status: res.status, headers: { "content-type": res.headers.get("content-type") ?? "application/json" } });
}
