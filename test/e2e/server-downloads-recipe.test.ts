/**
 * Browserbase's documented download recipe on a one-key and a two-key `svc serve`: Playwright over CDP,
 * `Browser.setDownloadBehavior {allow, downloadPath: "downloads"}`, a click, then `sessions.downloads.list`. The file
 * is in the session's zip, and nothing is written where the client's path would have put it.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Browserbase from "@browserbasehq/sdk";
import { unzipSync } from "fflate";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM, waitFor } from "../support/browser.js";
import { DOWNLOAD_BODY, startFixtureServer, type FixtureServer } from "../support/server.js";
import { EVENT_WAIT_MS } from "../support/timing.js";

const base = mkdtempSync(join(tmpdir(), "svc-downloads-recipe-"));
const clientPath = join(process.cwd(), "downloads");
let site: FixtureServer;

beforeAll(async () => {
  site = await startFixtureServer();
});

afterAll(async () => {
  await site?.close();
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

describe.each([
  { name: "one key", keys: ["recipe-key-aaaaaaaa"] },
  { name: "two keys (isolated)", keys: ["recipe-key-aaaaaaaa", "recipe-key-bbbbbbbb"] },
])("the documented download recipe on a $name server", ({ name, keys }) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({
      port: 0,
      apiKeys: keys,
      cacheDir: join(base, name, "cache"),
      dataDir: join(base, name, "data"),
      launch: { executablePath: CHROMIUM, headless: true },
      allowNet: [`localhost:${site.port}`, `127.0.0.1:${site.port}`],
    });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it("the file lands in the session's zip, never in the client's folder on the server's disk", async () => {
    const existedBefore = existsSync(join(clientPath, "report.txt"));
    const bb = new Browserbase({ apiKey: keys[0]!, baseURL: server.url });
    const session = await bb.sessions.create({ projectId: "p" });
    const browser = await chromium.connectOverCDP(session.connectUrl);
    try {
      const context = browser.contexts()[0]!;
      const page = context.pages()[0] ?? (await context.newPage());
      const cdp = await context.newCDPSession(page);
      await cdp.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: "downloads", eventsEnabled: true });
      await page.goto(site.url("downloads.html"));
      const done = new Promise<void>((resolve) => cdp.on("Browser.downloadProgress", (e) => e.state === "completed" && resolve()));
      await page.click("#report");
      await done;
      const files = await waitFor(async () => {
        const z = unzipSync(new Uint8Array(await (await bb.sessions.downloads.list(session.id)).arrayBuffer()));
        return z["report.txt"] ? z : undefined;
      }, EVENT_WAIT_MS, 200);
      expect(new TextDecoder().decode(files["report.txt"])).toBe(DOWNLOAD_BODY);
      if (!existedBefore) expect(existsSync(join(clientPath, "report.txt"))).toBe(false);
    } finally {
      await browser.close().catch(() => {});
      await bb.sessions.update(session.id, { status: "REQUEST_RELEASE" }).catch(() => {});
      if (!existedBefore) rmSync(clientPath, { recursive: true, force: true });
    }
  }, 90_000);
});
