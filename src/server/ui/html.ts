/**
 * The dashboard's pages (routes.ts), rendered on the server: plain HTML with one inline style sheet and no
 * script, so the page's Content-Security-Policy allows nothing else. Every value from a session (its
 * metadata, an error) is escaped.
 */

/** The dashboard's CSP: no script, no frame, forms only to this origin. */
export const UI_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

const STYLE = `body{font:14px system-ui,sans-serif;margin:2rem;color:#222}table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.35rem .6rem;border-bottom:1px solid #ddd;vertical-align:top}th{background:#f4f4f4}
code{font-size:12px}.RUNNING{color:#06722f;font-weight:600}.ERROR,.TIMED_OUT{color:#a4000f}form.inline{display:inline}
.err{color:#a4000f}header{display:flex;justify-content:space-between;align-items:baseline}`;

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

/** The form asking for the API key (once: it is kept in an HttpOnly cookie). */
export function loginPage(error?: string): string {
  return layout(
    "svc — sign in",
    `<h1>svc sessions</h1>${error ? `<p class="err" role="alert">${escapeHtml(error)}</p>` : ""}
<form method="post" action="/ui/login"><label>API key <input type="password" name="key" autocomplete="current-password" required maxlength="512" autofocus></label> <button type="submit">Sign in</button></form>
<p>The key is kept in a cookie for this server only (HttpOnly, SameSite=Strict) until you sign out.</p>`,
  );
}

/** What the dashboard shows of one session (the platform API's wire object). */
export interface UiSession {
  id: string;
  status: string;
  createdAt?: string;
  startedAt?: string;
  endedAt?: string;
  region?: string;
  userMetadata?: Record<string, unknown>;
  endedReason?: string;
}

function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "—";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

function row(s: UiSession, now: number): string {
  const started = Date.parse(s.startedAt ?? s.createdAt ?? "");
  const ended = s.endedAt ? Date.parse(s.endedAt) : now;
  const id = encodeURIComponent(s.id);
  const links = [s.status === "RUNNING" ? `<a href="/ui/sessions/${id}/live">live view</a>` : "", `<a href="/ui/sessions/${id}/replay">replay</a>`].filter(Boolean).join(" · ");
  const meta = s.userMetadata && Object.keys(s.userMetadata).length ? `<code>${escapeHtml(JSON.stringify(s.userMetadata).slice(0, 200))}</code>` : "";
  return `<tr data-session="${escapeHtml(s.id)}"><td><code>${escapeHtml(s.id)}</code></td><td class="${escapeHtml(s.status)}">${escapeHtml(s.status)}${s.endedReason ? `<br><small>${escapeHtml(s.endedReason.slice(0, 200))}</small>` : ""}</td>
<td>${Number.isFinite(started) ? escapeHtml(new Date(started).toISOString().replace("T", " ").slice(0, 19)) : "—"}</td><td>${duration(now - started)}</td><td>${duration(ended - started)}</td><td>${meta}</td><td>${links}</td></tr>`;
}

/** The key's sessions, newest first, with the key's usage. */
export function sessionsPage(options: { sessions: UiSession[]; browserMinutes: number | undefined; shown: number; now: number }): string {
  const { sessions, now } = options;
  const running = sessions.filter((s) => s.status === "RUNNING").length;
  const usage = options.browserMinutes === undefined ? "" : ` · ${options.browserMinutes.toFixed(1)} browser minutes on this server`;
  const more = sessions.length > options.shown ? `<p>${sessions.length - options.shown} older sessions not shown.</p>` : "";
  const rows = sessions.slice(0, options.shown).map((s) => row(s, now)).join("\n");
  return layout(
    "svc — sessions",
    `<header><h1>svc sessions</h1><form class="inline" method="post" action="/ui/logout"><button type="submit">Sign out</button></form></header>
<p>${sessions.length} session${sessions.length === 1 ? "" : "s"}, ${running} running${usage}.</p>
<table><thead><tr><th>id</th><th>status</th><th>started (UTC)</th><th>age</th><th>browser time</th><th>metadata</th><th></th></tr></thead>
<tbody>${rows || `<tr><td colspan="7">no sessions yet</td></tr>`}</tbody></table>${more}`,
  );
}
