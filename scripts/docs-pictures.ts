/**
 * The pictures of docs/server.md and the README, from a real run: `svc serve` in-process, a session on the fixture
 * shop, then docs/images/live-view.png, replay.png and dashboard.png. Run: `npx tsx scripts/docs-pictures.ts` (not in
 * `npm test`; CHROME_PATH overrides /usr/bin/chromium). Each step waits on what it needs to see and fails naming the
 * step.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { startServer, type RunningServer } from "../src/server/index.js";
import { CHROMIUM } from "../test/support/browser.js";
import { startFixtureServer } from "../test/support/server.js";

const KEY = "docs-pictures-key-0001";
const OUT = fileURLToPath(new URL("../docs/images/", import.meta.url));
const VIEWPORT = { width: 1100, height: 750 };
/** Each picture must stay small enough for a README. */
const MAX_BYTES = 200 * 1024;
const STEP_MS = 30_000;

type Json = Record<string, any>;

async function api(server: RunningServer, method: string, path: string, body?: unknown): Promise<Json> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { "x-bb-api-key": KEY, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json()) as Json;
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}

async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
  process.stderr.write(`${name}…\n`);
  try {
    return await fn();
  } catch (e) {
    throw new Error(`${name}: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`);
  }
}

async function shoot(page: Page, name: string): Promise<void> {
  const path = join(OUT, name);
  await page.screenshot({ path, type: "png", animations: "disabled", caret: "hide" });
  const bytes = statSync(path).size;
  process.stderr.write(`  wrote docs/images/${name} (${Math.round(bytes / 1024)} KB)\n`);
  if (bytes > MAX_BYTES) throw new Error(`docs/images/${name} is ${Math.round(bytes / 1024)} KB, over ${MAX_BYTES / 1024} KB`);
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const base = mkdtempSync(join(tmpdir(), "svc-docs-pictures-"));
  const fixtures = await startFixtureServer();
  let server: RunningServer | undefined;
  let viewer: Browser | undefined;
  const running: string[] = [];
  try {
    server = await startServer({
      port: 0,
      apiKeys: [KEY],
      cacheDir: join(base, "cache"),
      launch: { executablePath: CHROMIUM, headless: true },
      allowNet: [`localhost:${fixtures.port}`, `127.0.0.1:${fixtures.port}`],
      log: () => {},
    });
    const srv = server;
    viewer = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });

    const session = await api(srv, "POST", "/v1/sessions", { userMetadata: { task: "find a rose" } });
    running.push(session.id as string);
    const cdp = await chromium.connectOverCDP(session.connectUrl as string);
    const page = cdp.contexts()[0]!.pages()[0] ?? (await cdp.contexts()[0]!.newPage());
    await step("open the shop in the session", async () => {
      await page.goto(fixtures.url("site/index.html"));
      await page.fill("#q", "rose");
      await page.click("#search-button");
      await page.waitForFunction(() => document.getElementById("count")?.textContent?.startsWith("1 "), undefined, { timeout: STEP_MS });
    });
    const debug = await api(srv, "GET", `/v1/sessions/${session.id}/debug`);
    const liveUrl = debug.debuggerFullscreenUrl as string;

    const view = await viewer.newPage({ viewport: VIEWPORT });
    await step("live view: a painted frame", async () => {
      await view.goto(liveUrl);
      await view.waitForSelector("img[data-svc-live][data-frames]", { timeout: STEP_MS });
      await view.waitForFunction(() => (document.getElementById("url") as HTMLInputElement | null)?.value.includes("site/index.html"), undefined, { timeout: STEP_MS });
      // The frame showing the search's result (a frame is painted once its image has decoded).
      await view.waitForFunction(() => {
        const img = document.querySelector("img[data-svc-live]") as HTMLImageElement | null;
        return !!img && img.complete && img.naturalWidth > 0;
      }, undefined, { timeout: STEP_MS });
    });
    await shoot(view, "live-view.png");
    await view.close();
    await cdp.close();

    await api(srv, "POST", `/v1/sessions/${session.id}`, { status: "REQUEST_RELEASE" });
    running.splice(running.indexOf(session.id as string), 1);
    const replay = await viewer.newPage({ viewport: VIEWPORT });
    await step("replay: the player, played to the end", async () => {
      await replay.goto(`${liveUrl}/replay`);
      await replay.waitForSelector("body[data-ready] [data-svc-replay] iframe", { timeout: STEP_MS });
      await replay.waitForSelector("#log li", { timeout: STEP_MS });
      await replay.click("#play");
      // "#time" reads "<now> s / <total> s"; the player stops at the end.
      await replay.waitForFunction(() => {
        const m = /^([\d.]+) s \/ ([\d.]+) s$/.exec(document.getElementById("time")?.textContent ?? "");
        return !!m && Number(m[1]) >= Number(m[2]);
      }, undefined, { timeout: STEP_MS * 2 });
      await replay.frameLocator("[data-svc-replay] iframe").locator("#count").filter({ hasText: "1 plant" }).waitFor({ timeout: STEP_MS });
    });
    await shoot(replay, "replay.png");
    await replay.close();

    const second = await api(srv, "POST", "/v1/sessions", { userMetadata: { task: "place an order" } });
    running.push(second.id as string);
    const context = await viewer.newContext({ viewport: VIEWPORT });
    const ui = await context.newPage();
    await step("dashboard: signed in, both sessions listed", async () => {
      await ui.goto(`${srv.url}/ui`);
      await ui.fill("input[name=key]", KEY);
      await ui.click("button[type=submit]");
      await ui.waitForSelector(`tr[data-session="${second.id as string}"]`, { timeout: STEP_MS });
      await ui.waitForSelector(`tr[data-session="${session.id as string}"]`, { timeout: STEP_MS });
    });
    await shoot(ui, "dashboard.png");
    await context.close();
  } finally {
    for (const id of running) if (server) await api(server, "POST", `/v1/sessions/${id}`, { status: "REQUEST_RELEASE" }).catch(() => {});
    await viewer?.close();
    await server?.close();
    await fixtures.close();
    rmSync(base, { recursive: true, force: true, maxRetries: 3 });
  }
}

await main();
