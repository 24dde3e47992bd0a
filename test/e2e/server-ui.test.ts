/**
 * `/ui` in real Chrome: signing in keeps the key in an HttpOnly, SameSite=Strict cookie, never in the page; the page
 * lists that key's sessions only, with live-view and replay links that lead there; a wrong key, a cross-origin form
 * post and a signed-out visitor get nothing of the sessions.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM } from "../support/browser.js";

const KEY = "ui-key-one-00000001";
const OTHER = "ui-key-two-00000002";
const base = mkdtempSync(join(tmpdir(), "svc-server-ui-"));
let server: RunningServer;
let browser: Browser;

async function create(key: string, userMetadata: Record<string, string>): Promise<{ id: string }> {
  const res = await fetch(`${server.url}/v1/sessions`, { method: "POST", headers: { "x-bb-api-key": key, "content-type": "application/json" }, body: JSON.stringify({ userMetadata }) });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string };
}

async function release(key: string, id: string): Promise<void> {
  const res = await fetch(`${server.url}/v1/sessions/${id}`, { method: "POST", headers: { "x-bb-api-key": key, "content-type": "application/json" }, body: JSON.stringify({ status: "REQUEST_RELEASE" }) });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  server = await startServer({ port: 0, apiKeys: [KEY, OTHER], cacheDir: join(base, "cache"), launch: { executablePath: CHROMIUM, headless: true }, log: () => {} });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

describe("svc serve /ui", () => {
  it("signs in once with a key kept in an HttpOnly SameSite=Strict cookie, lists only that key's sessions, links to live views, signs out", async () => {
    const mine = await create(KEY, { owner: "<b>mine</b>" });
    const ended = await create(KEY, { owner: "ended" });
    await release(KEY, ended.id);
    const theirs = await create(OTHER, { owner: "theirs" });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/ui`);
      // A wrong key: the form again, with the reason, and no cookie.
      await page.fill("input[name=key]", "not-a-key-at-all");
      await page.click("button[type=submit]");
      await page.waitForSelector("[role=alert]");
      expect(await page.textContent("[role=alert]")).toMatch(/not known/);
      expect(await context.cookies()).toEqual([]);

      await page.fill("input[name=key]", KEY);
      await page.click("button[type=submit]");
      await page.waitForSelector(`tr[data-session="${mine.id}"]`);
      const cookies = await context.cookies();
      expect(cookies).toHaveLength(1);
      expect(cookies[0]).toMatchObject({ name: "svc_ui_key", httpOnly: true, sameSite: "Strict", path: "/ui" });
      // The key is in no page the dashboard serves, and not readable by a script of the page.
      expect(await page.content()).not.toContain(KEY);
      expect(await page.evaluate(() => document.cookie)).toBe("");

      const rows = await page.$$eval("tbody tr[data-session]", (trs) => trs.map((tr) => ({ id: tr.getAttribute("data-session"), text: (tr as HTMLElement).innerText })));
      expect(rows.map((r) => r.id).sort()).toEqual([mine.id, ended.id].sort());
      expect(rows.find((r) => r.id === mine.id)?.text).toMatch(/RUNNING[\s\S]*\{"owner":"<b>mine<\/b>"\}[\s\S]*live view/); // escaped, shown as text
      expect(rows.find((r) => r.id === ended.id)?.text).toMatch(/COMPLETED/);
      expect(rows.find((r) => r.id === ended.id)?.text).not.toMatch(/live view/);
      expect(await page.textContent("body")).not.toContain(theirs.id);

      // The live-view link leads to the session's debuggerFullscreenUrl, as GET /debug gives it.
      const debug = (await (await fetch(`${server.url}/v1/sessions/${mine.id}/debug`, { headers: { "x-bb-api-key": KEY } })).json()) as { debuggerFullscreenUrl: string };
      const hop = await context.request.get(`${server.url}/ui/sessions/${mine.id}/live`, { maxRedirects: 0 });
      expect(hop.status()).toBe(303);
      expect(hop.headers().location).toBe(debug.debuggerFullscreenUrl);
      // The replay link of the ended session leads to its replay page (the player).
      const replay = await context.request.get(`${server.url}/ui/sessions/${ended.id}/replay`, { maxRedirects: 0 });
      expect(replay.status()).toBe(303);
      expect(replay.headers().location).toMatch(new RegExp(`/v1/live/${ended.id}/[^/]+/replay$`));
      const player = await context.newPage();
      await player.goto(`${server.url}/ui/sessions/${ended.id}/replay`);
      await player.waitForSelector("[data-svc-replay]");
      await player.close();
      // Another key's session: the API's own 404.
      const foreign = await context.request.get(`${server.url}/ui/sessions/${theirs.id}/live`, { maxRedirects: 0 });
      expect(foreign.status()).toBe(404);

      // A form posted from another origin is refused; the cookie stays.
      const forged = await fetch(`${server.url}/ui/logout`, { method: "POST", headers: { origin: "https://evil.example" } });
      expect(forged.status).toBe(403);
      expect(((await forged.json()) as { code?: string }).code).toBeTruthy();

      await page.click("text=Sign out");
      await page.waitForSelector("input[name=key]");
      expect(await context.cookies()).toEqual([]);
      // Signed out: no session of anyone.
      expect(await page.content()).not.toContain(mine.id);
    } finally {
      await context.close();
      await Promise.all([release(KEY, mine.id), release(OTHER, theirs.id)]);
    }
  }, 120_000);
});
