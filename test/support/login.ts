// A tiny cookie-login site for the saved-state tests: POST /login (user=NAME) sets a session-only, HttpOnly
// cookie naming an in-memory session; GET /login shows "signed in as NAME" while that cookie is sent, and
// what the page finds in localStorage ("theme") and sessionStorage ("draft"), which signing in sets.
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

const signedIn = new Map<string, string>();

function page(user: string | undefined): string {
  const body = user
    ? `<p id="status">signed in as ${user.replace(/[^\w -]/g, "")}</p>`
    : `<p id="status">signed out</p>
<form method="post" action="/login" id="form"><input id="user" name="user" aria-label="User"><button id="signin">Sign in</button></form>`;
  return `<!doctype html><html><head><meta charset="utf-8"><title>Login</title></head><body>
${body}
<p id="local"></p><p id="session"></p>
<script>
document.getElementById("local").textContent = "local theme: " + (localStorage.getItem("theme") ?? "none");
document.getElementById("session").textContent = "session draft: " + (sessionStorage.getItem("draft") ?? "none");
document.getElementById("form")?.addEventListener("submit", () => {
  localStorage.setItem("theme", "dark");
  sessionStorage.setItem("draft", "hello");
});
</script>
</body></html>
`;
}

/** Handles /login; false for any other path. */
export async function handleLogin(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<boolean> {
  if (pathname !== "/login") return false;
  if (req.method === "POST") {
    let body = "";
    for await (const chunk of req) body += String(chunk);
    const user = new URLSearchParams(body).get("user") || "nobody";
    const sid = randomBytes(12).toString("hex");
    signedIn.set(sid, user);
    // No Expires/Max-Age: a session-only cookie, the kind a plain cookie export would lose.
    res.writeHead(303, { location: "/login", "set-cookie": `sid=${sid}; Path=/; HttpOnly; SameSite=Lax`, "cache-control": "no-store" });
    res.end();
    return true;
  }
  const sid = /(?:^|;\s*)sid=(\w+)/.exec(req.headers.cookie ?? "")?.[1];
  res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  res.end(page(sid ? signedIn.get(sid) : undefined));
  return true;
}
