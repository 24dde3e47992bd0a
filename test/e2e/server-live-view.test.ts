/**
 * The live view of a two-key `svc serve` in real Chrome, its debug URL opened in a Playwright-driven Chromium: frames
 * arrive, a click and typing reach the session's page, a view-only socket's input is ignored, the session's end
 * reaches the view, and wrong tokens, unknown and other keys' sessions are refused.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { WebSocket } from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM, waitFor } from "../support/browser.js";
import { startFixtureServer, type FixtureServer } from "../support/server.js";
import { viewPointOf } from "../support/live-view.js";

const KEY = "live-key-one-0001";
const OTHER_KEY = "live-key-two-0002";
const base = mkdtempSync(join(tmpdir(), "svc-live-view-"));

type Json = Record<string, any>;

let fixtures: FixtureServer;
let server: RunningServer;
let viewerBrowser: Browser;

beforeAll(async () => {
  fixtures = await startFixtureServer();
  server = await startServer({
    port: 0,
    apiKeys: [KEY, OTHER_KEY],
    cacheDir: join(base, "cache"),
    launch: { executablePath: CHROMIUM, headless: true },
    allowNet: [`localhost:${fixtures.port}`, `127.0.0.1:${fixtures.port}`],
  });
  viewerBrowser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
});

afterAll(async () => {
  await viewerBrowser?.close();
  await server?.close();
  await fixtures?.close();
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

async function api(method: string, path: string, body?: unknown, key = KEY): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { "x-bb-api-key": key, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: await res.json() };
}

/** A session (of `key`) with forms.html open; its page as Playwright sees it over connectUrl. */
async function sessionWithForm(key = KEY): Promise<{ session: Json; page: Page; cdp: Browser; debug: Json }> {
  const created = await api("POST", "/v1/sessions", {}, key);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const session = created.body as Json;
  const cdp = await chromium.connectOverCDP(session.connectUrl);
  const page = cdp.contexts()[0]!.pages()[0] ?? (await cdp.contexts()[0]!.newPage());
  await page.goto(fixtures.url("forms.html"));
  const debug = (await api("GET", `/v1/sessions/${session.id}/debug`, undefined, key)).body as Json;
  return { session, page, cdp, debug };
}

/** Opens a live view URL and waits for its first painted frame. */
async function openView(url: string): Promise<Page> {
  const view = await viewerBrowser.newPage({ viewport: { width: 1000, height: 700 } });
  await view.goto(url);
  await view.waitForSelector("img[data-svc-live][data-frames]", { timeout: 20_000 });
  return view;
}

/** The viewer-page point showing the centre of the session page's element `selector` (the view's own scale). */
async function viewPoint(view: Page, page: Page, selector: string): Promise<{ x: number; y: number }> {
  return viewPointOf(view, (await page.locator(selector).boundingBox())!);
}

/** A raw viewer socket: its messages as they come, and promises of its close code and reason. */
function rawSocket(pageUrl: string): Promise<{ ws: WebSocket; messages: Json[]; closed: Promise<number>; reason: Promise<string> }> {
  const u = new URL(pageUrl);
  const ws = new WebSocket(`${u.origin.replace(/^http/, "ws")}${u.pathname}/socket${u.search}`);
  const messages: Json[] = [];
  ws.on("message", (data, isBinary) => {
    if (!isBinary) messages.push(JSON.parse(String(data)) as Json);
  });
  const closing = new Promise<[number, string]>((resolve) => ws.on("close", (code, reason) => resolve([code, String(reason)])));
  const closed = closing.then(([code]) => code);
  const reason = closing.then(([, why]) => why);
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve({ ws, messages, closed, reason }));
    ws.once("error", reject);
  });
}

describe("live view", () => {
  it("streams the session's tab and forwards a click and typing to it", async () => {
    const { session, page, cdp, debug } = await sessionWithForm();
    try {
      expect(debug.debuggerFullscreenUrl).toMatch(new RegExp(`/v1/live/${session.id}/`));
      const res = await fetch(debug.debuggerFullscreenUrl as string);
      expect(res.status).toBe(200);
      const csp = res.headers.get("content-security-policy")!;
      expect(csp).toContain("frame-ancestors *");
      expect(csp).toMatch(/script-src 'nonce-[^']+'/);
      expect(res.headers.get("x-frame-options")).toBeNull();

      const view = await openView(debug.debuggerFullscreenUrl as string);
      // The tab strip and the address show the session's page.
      await view.waitForFunction(() => (document.getElementById("url") as HTMLInputElement).value.endsWith("/forms.html"));
      expect(await view.locator("#tabs button[aria-current]").textContent()).toBe("Forms");

      const field = await viewPoint(view, page, "#name");
      await view.mouse.click(field.x, field.y);
      await waitFor(() => page.evaluate(() => document.activeElement?.id === "name"));
      await view.keyboard.type("Ada Lovelace");
      await waitFor(async () => (await page.locator("#name").inputValue()) === "Ada Lovelace");
      // Keys that type nothing: Backspace edits, a shortcut (Shift+Home) selects, typing replaces the selection.
      await view.keyboard.press("Backspace");
      await waitFor(async () => (await page.locator("#name").inputValue()) === "Ada Lovelac");
      await view.keyboard.press("Shift+Home");
      await view.keyboard.type("Grace");
      await waitFor(async () => (await page.locator("#name").inputValue()) === "Grace");
      const button = await viewPoint(view, page, "#subscribe");
      await view.mouse.click(button.x, button.y);
      await waitFor(() => page.locator("#subscribe").isChecked());
      // Frames keep coming as the page changes (each acknowledged by the view).
      expect(Number(await view.locator("img[data-svc-live]").getAttribute("data-frames"))).toBeGreaterThan(1);

      // The address box navigates the tab, through the egress policy (the server's own port is refused) and the tenant filter.
      await view.fill("#url", fixtures.url("clickable.html"));
      await view.press("#url", "Enter");
      await waitFor(() => page.url() === fixtures.url("clickable.html"));
      await view.fill("#url", `${server.url}/healthz`);
      await view.press("#url", "Enter");
      // The egress proxy answers in the tab's place: the server's own port is no public address.
      await waitFor(async () => page.url() === `${server.url}/healthz` && /refused by svc/.test(await page.locator("body").textContent().catch(() => "") ?? ""));
      await view.fill("#url", "file:///etc/passwd");
      await view.press("#url", "Enter");
      await view.waitForFunction(() => /^INVALID_ARGUMENT: url: only http, https, data and about:blank URLs can be opened \(got file:\)/.test(document.getElementById("status")!.textContent ?? ""));
      expect(page.url()).toBe(`${server.url}/healthz`);

      // The view learns of the session's end.
      expect((await api("POST", `/v1/sessions/${session.id}`, { status: "REQUEST_RELEASE" })).body.status).toBe("COMPLETED");
      await view.waitForSelector("body[data-ended]");
      // The ended view links the replay: rrweb's player on the recording, the session's log beside it.
      await view.click("#replay");
      await view.waitForSelector("body[data-ready] [data-svc-replay] iframe", { timeout: 20_000 });
      await view.waitForFunction((u) => Array.from(document.querySelectorAll("#log li")).some((li) => li.textContent!.includes(`navigated to ${u}`)), fixtures.url("forms.html"));
      expect(view.url()).toBe(`${debug.debuggerFullscreenUrl as string}/replay`);
      // The live URL of an ended session leads there too.
      const ended = await fetch(debug.debuggerFullscreenUrl as string, { redirect: "manual" });
      expect(ended.status).toBe(302);
      expect(ended.headers.get("location")).toBe(new URL(`${debug.debuggerFullscreenUrl as string}/replay`).pathname);
      await view.close();
    } finally {
      await cdp.close().catch(() => {});
    }
  });

  it("a press's release always reaches the page: while the next frame loads, and off the picture", async () => {
    const { session, page, cdp, debug } = await sessionWithForm();
    try {
      await page.evaluate(() => {
        const w = window as unknown as { ups: string[] };
        w.ups = [];
        window.addEventListener("mouseup", (e) => w.ups.push(`${e.button} ${e.clientX},${e.clientY}`));
      });
      const ups = () => page.evaluate(() => (window as unknown as { ups: string[] }).ups);
      const view = await openView(debug.debuggerFullscreenUrl as string);
      const box = await viewPoint(view, page, "#subscribe");
      // Pressed, then a frame starts loading (the picture's own size reads 0 until it has), then released:
      // one task in the view, so no frame can come between.
      await view.evaluate(async ({ x, y }) => {
        const img = document.querySelector("img[data-svc-live]") as HTMLImageElement;
        const at = { clientX: x, clientY: y, button: 0, detail: 1, bubbles: true };
        img.dispatchEvent(new MouseEvent("mousedown", at));
        const loading = new Promise((r) => img.addEventListener("error", r, { once: true }));
        img.src = "data:,";
        await loading;
        img.dispatchEvent(new MouseEvent("mouseup", at));
      }, box);
      await waitFor(() => page.locator("#subscribe").isChecked());
      expect(await ups()).toHaveLength(1);
      // Pressed on the picture, released over the tab strip: the release reaches the page, at the picture's edge.
      await view.mouse.move(box.x, box.y);
      await view.mouse.down();
      const strip = (await view.locator("#tabs").boundingBox())!;
      await view.mouse.move(strip.x + 5, strip.y + 5);
      await view.mouse.up();
      await waitFor(async () => (await ups()).length === 2);
      expect(await page.locator("#subscribe").isChecked()).toBe(true);
      await view.close();
      await api("POST", `/v1/sessions/${session.id}`, { status: "REQUEST_RELEASE" });
    } finally {
      await cdp.close().catch(() => {});
    }
  });

  it("pages[].debuggerUrl shows that tab; the tab strip switches tabs", async () => {
    const { session, page, cdp } = await sessionWithForm();
    try {
      const second = await cdp.contexts()[0]!.newPage();
      await second.goto(fixtures.url("clickable.html"));
      const debug = (await api("GET", `/v1/sessions/${session.id}/debug`)).body as Json;
      const clickable = (debug.pages as Json[]).find((p) => p.title === "Clickable")!;
      const view = await openView(clickable.debuggerUrl as string);
      await view.waitForFunction(() => document.querySelector("#tabs button[aria-current]")?.textContent === "Clickable");
      expect(await view.locator("#tabs button").count()).toBe(2);
      const frames = Number(await view.locator("img[data-svc-live]").getAttribute("data-frames"));
      await view.locator("#tabs button", { hasText: "Forms" }).click();
      await view.waitForFunction(() => document.querySelector("#tabs button[aria-current]")?.textContent === "Forms");
      await view.waitForFunction((n) => Number(document.querySelector("img[data-svc-live]")!.getAttribute("data-frames")) > n, frames);
      // Input now goes to the selected tab.
      await view.waitForFunction(() => (document.getElementById("url") as HTMLInputElement).value.endsWith("/forms.html"));
      const box = await viewPoint(view, page, "#subscribe");
      await view.mouse.click(box.x, box.y);
      await waitFor(() => page.locator("#subscribe").isChecked());
      await view.close();
    } finally {
      await cdp.close().catch(() => {});
      await api("POST", `/v1/sessions/${session.id}`, { status: "REQUEST_RELEASE" });
    }
  });

  it("a view-only socket (?interactive=false) ignores input; the same messages on an interactive one act", async () => {
    const { session, page, cdp, debug } = await sessionWithForm();
    try {
      const box = (await page.locator("#subscribe").boundingBox())!;
      const x = box.x + box.width / 2;
      const y = box.y + box.height / 2;
      const input = [
        { type: "mouse", action: "down", x, y, button: "left", clickCount: 1 },
        { type: "mouse", action: "up", x, y, button: "left", clickCount: 1 },
        { type: "navigate", url: fixtures.url("clickable.html") },
      ];
      const viewOnly = await rawSocket(`${debug.debuggerUrl as string}?interactive=false`);
      // Attached to the tab (its input would reach it from now on).
      await waitFor(() => viewOnly.messages.some((m) => m.type === "tabs" && m.selected));
      expect(viewOnly.messages.find((m) => m.type === "hello")!.interactive).toBe(false);
      for (const m of input) viewOnly.ws.send(JSON.stringify(m));
      // The pong comes once whatever the messages before it sent the tab was answered by Chrome.
      viewOnly.ws.send(JSON.stringify({ type: "ping", n: 7 }));
      await waitFor(() => viewOnly.messages.some((m) => m.type === "pong" && m.n === 7));
      expect(await page.locator("#subscribe").isChecked()).toBe(false);
      expect(page.url()).toBe(fixtures.url("forms.html"));
      // A message the server refuses closes the socket, naming the field.
      viewOnly.ws.send(JSON.stringify({ type: "mouse", action: "teleport", x, y }));
      expect(await viewOnly.closed).toBe(1008);
      expect(viewOnly.messages.at(-1)!.message).toMatch(/^message\.action: /);

      const interactive = await rawSocket(debug.debuggerUrl as string);
      await waitFor(() => interactive.messages.some((m) => m.type === "tabs" && m.selected));
      for (const m of input.slice(0, 2)) interactive.ws.send(JSON.stringify(m));
      await waitFor(() => page.locator("#subscribe").isChecked());
      interactive.ws.close();

      // The view-only page hides its controls.
      const view = await openView(`${debug.debuggerFullscreenUrl as string}?interactive=false`);
      expect(await view.locator("#url").isVisible()).toBe(false);
      await view.close();
    } finally {
      await cdp.close().catch(() => {});
      await api("POST", `/v1/sessions/${session.id}`, { status: "REQUEST_RELEASE" });
    }
  });

  it("refuses a changed token, an unknown session and another key's session; bounds the viewers", async () => {
    const mine = await sessionWithForm();
    const theirs = await sessionWithForm(OTHER_KEY);
    try {
      const url = mine.debug.debuggerUrl as string;
      const token = url.slice(url.lastIndexOf("/") + 1);
      const changed = `${url.slice(0, url.lastIndexOf("/") + 1)}${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
      const bad = await fetch(changed);
      expect(bad.status).toBe(401);
      expect((await bad.json()).code).toBeTruthy();
      expect((await fetch(url.replace(mine.session.id, "00000000-0000-0000-0000-000000000000"))).status).toBe(404);
      // My token on their session, and their session's debug URLs through my key: refused.
      expect((await fetch(url.replace(mine.session.id, theirs.session.id))).status).toBe(401);
      expect((await api("GET", `/v1/sessions/${theirs.session.id}/debug`)).status).toBe(404);
      // The WebSocket too.
      await expect(rawSocket(changed)).rejects.toThrow(/401/);
      await expect(rawSocket(url.replace(mine.session.id, theirs.session.id))).rejects.toThrow(/401/);
      // The live token is no CDP token: the proxy refuses it.
      const connect = new URL(mine.session.connectUrl as string);
      const parts = connect.pathname.split("/");
      parts[4] = token;
      expect((await fetch(`${connect.origin.replace(/^ws/, "http")}${parts.slice(0, 5).join("/")}/json/version`)).status).toBe(401);

      const open = await Promise.all([1, 2, 3, 4].map(() => rawSocket(url)));
      await expect(rawSocket(url)).rejects.toThrow(/429/);
      for (const s of open) s.ws.close();
      await Promise.all(open.map((s) => s.closed));
      // Their own URL works for them.
      const theirsView = await rawSocket(theirs.debug.debuggerUrl as string);
      await waitFor(() => theirsView.messages.some((m) => m.type === "tabs" && m.selected));
      theirsView.ws.close();
      // Viewer messages are bounded: too large, binary, too many per second (1008, naming why).
      const large = await rawSocket(theirs.debug.debuggerUrl as string);
      const nine = JSON.stringify({ type: "navigate", url: `https://example.com/${"x".repeat(9 * 1024)}` });
      large.ws.send(nine);
      expect(await large.closed).toBe(1008);
      expect(await large.reason).toBe(`message: ${nine.length} bytes, more than the 8192 a message may have`);
      const binary = await rawSocket(theirs.debug.debuggerUrl as string);
      binary.ws.send(Buffer.from([1, 2, 3]));
      expect(await binary.closed).toBe(1008);
      expect(binary.messages.at(-1)!.message).toBe("message: binary messages are not accepted");
      const flood = await rawSocket(theirs.debug.debuggerUrl as string);
      for (let i = 0; i < 400; i++) flood.ws.send(JSON.stringify({ type: "ack" }));
      expect(await flood.closed).toBe(1008);
      expect(flood.messages.at(-1)!.message).toMatch(/more than 200 messages per second/);
    } finally {
      for (const s of [mine, theirs]) await s.cdp.close().catch(() => {});
      await api("POST", `/v1/sessions/${mine.session.id}`, { status: "REQUEST_RELEASE" });
      await api("POST", `/v1/sessions/${theirs.session.id}`, { status: "REQUEST_RELEASE" }, OTHER_KEY);
    }
  });
});
