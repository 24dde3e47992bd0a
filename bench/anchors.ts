/**
 * The anchors svc is measured against: Stagehand 3.7.3 (same library API as svc), Playwright (aria snapshot and the AI
 * snapshot Playwright MCP sends), and raw CDP `Accessibility.getFullAXTree` (the floor for "read the page").
 */
import { Stagehand } from "@browserbasehq/stagehand";
import { chromium, type Browser, type Page as PwPage } from "playwright-core";
import * as chromeLauncher from "chrome-launcher";
import CDP from "chrome-remote-interface";
import { ARGS, CHROME, VIEWPORT, VIEWPORT_JS, type Tool } from "./tool.js";

type ShPage = ReturnType<Stagehand["context"]["pages"]>[number];

export function stagehandTool(): Tool {
  let sh: Stagehand | undefined;
  let page: ShPage | undefined;
  const need = () => {
    if (!sh || !page) throw new Error("stagehand: not launched");
    return { sh, page };
  };
  return {
    name: "stagehand",
    async launch() {
      // No model configured: extract() with no arguments and act(Action) never call one.
      sh = new Stagehand({ env: "LOCAL", verbose: 0, disablePino: true, localBrowserLaunchOptions: { executablePath: CHROME, args: ARGS, headless: true, viewport: VIEWPORT } });
      await sh.init();
      page = sh.context.pages()[0];
    },
    async goto(url) {
      await need().page.goto(url, { waitUntil: "load" });
    },
    snapshots: {
      // 3.7.3: extract() with no arguments → { pageText } = the hybrid snapshot's combinedTree (what act/extract prompts carry).
      extract: async () => (await need().sh.extract()).pageText,
    },
    async hover(selector) {
      const r = await need().sh.act({ selector, description: "bench hover", method: "hover", arguments: [] });
      // Stagehand reports failure in the result (and tries a model-driven self-heal first) rather than throwing.
      if (!r.success) throw new Error(`stagehand hover failed: ${r.message}`);
    },
    viewport: async () => String(await need().page.evaluate(VIEWPORT_JS)),
    async close() {
      await sh?.close();
    },
  };
}

export function playwrightTool(): Tool {
  let browser: Browser | undefined;
  let page: PwPage | undefined;
  const need = (): PwPage => {
    if (!page) throw new Error("playwright: not launched");
    return page;
  };
  return {
    name: "playwright",
    async launch() {
      browser = await chromium.launch({ executablePath: CHROME, args: ARGS, headless: true });
      page = await browser.newPage({ viewport: VIEWPORT });
    },
    async goto(url) {
      await need().goto(url, { waitUntil: "load" });
    },
    snapshots: {
      // What Playwright MCP (bundled in playwright-core 1.65, lib/tools) sends: page.ariaSnapshot({ mode: "ai" }),
      // refs included, iframes inlined. Counted without MCP's "### Page snapshot" wrapper lines.
      aiSnapshot: () => need().ariaSnapshot({ mode: "ai" }),
      ariaSnapshot: () => need().locator("body").ariaSnapshot(),
    },
    async hover(selector) {
      await need().locator(selector).hover();
    },
    viewport: async () => String(await need().evaluate(VIEWPORT_JS)),
    async close() {
      await browser?.close();
    },
  };
}

/** chrome-remote-interface straight to the page target: no library in between. */
export function rawCdpTool(): Tool {
  let chrome: chromeLauncher.LaunchedChrome | undefined;
  let client: CDP.Client | undefined;
  const need = (): CDP.Client => {
    if (!client) throw new Error("raw cdp: not launched");
    return client;
  };
  return {
    name: "cdp",
    async launch() {
      chrome = await chromeLauncher.launch({ chromePath: CHROME, chromeFlags: ["--headless=new", ...ARGS] });
      client = await CDP({ port: chrome.port, host: "127.0.0.1" });
      await client.Page.enable();
      await client.Emulation.setDeviceMetricsOverride({ ...VIEWPORT, deviceScaleFactor: 1, mobile: false });
    },
    async goto(url) {
      const c = need();
      const loaded = c.Page.loadEventFired();
      await c.Page.navigate({ url });
      await loaded;
    },
    snapshots: {
      // Main frame only, as a model-free floor: the JSON is received and parsed, nothing is built from it.
      getFullAXTree: async () => {
        await need().Accessibility.getFullAXTree({});
        return null;
      },
    },
    viewport: async () => String((await need().Runtime.evaluate({ expression: VIEWPORT_JS, returnByValue: true })).result.value),
    async close() {
      await client?.close().catch(() => {});
      chrome?.kill();
    },
  };
}
