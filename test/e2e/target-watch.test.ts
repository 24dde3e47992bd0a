/**
 * svc's watch on an isolated session's Chrome (src/server/features/target-watch.ts) against a real Chrome:
 * however late svc's own reading runs (a busy server), caughtUp() resolves only once svc has read what
 * Chrome said of a tab before it, so a tenant message the CDP filter holds for it is decided knowing a
 * navigation to chrome:// that started first.
 */
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type LaunchedBrowser } from "../../src/browser/launch.js";
import { TargetWatch } from "../../src/server/features/target-watch.js";
import { CHROMIUM, waitFor } from "../support/browser.js";
import { rawCdp } from "../support/raw-cdp.js";
import { EVENT_WAIT_MS } from "../support/timing.js";

let browser: LaunchedBrowser;
let watch: TargetWatch;
const logs: string[] = [];

beforeAll(async () => {
  browser = await launchBrowser({ headless: true, executablePath: CHROMIUM });
  watch = await TargetWatch.start(browser.wsEndpoint, { sessionId: "watched", onLate: () => {}, ownExtensions: () => [], log: (l) => void logs.push(l) });
});

afterAll(async () => {
  await watch?.close();
  await browser?.close();
});

/**
 * Navigates tab `targetId` to `url` from another process while this one waits for it synchronously: svc's
 * reading of its socket waits meanwhile, as on a busy server. Returns once Chrome reported the navigation's start
 * (Chrome reported the navigation's start).
 */
function navigateWhileBusy(targetId: string, url: string): void {
  const script = `
    import { WebSocket } from "ws";
    const [endpoint, targetId, url] = process.argv.slice(1);
    const ws = new WebSocket(endpoint, { perMessageDeflate: false });
    const replies = new Map();
    let id = 0;
    ws.on("message", (d) => {
      const m = JSON.parse(String(d));
      if (m.id) replies.get(m.id)?.(m);
      // Chrome sent the navigation's start to every client watching the tab: svc's watch got it too.
      if (m.method === "Page.frameStartedNavigating" && m.params.url === url) process.exit(0);
    });
    const send = (method, params, sessionId) => new Promise((r) => { replies.set(++id, r); ws.send(JSON.stringify({ id, method, params, sessionId })); });
    ws.on("open", async () => {
      const { result } = await send("Target.attachToTarget", { targetId, flatten: true });
      await send("Page.enable", {}, result.sessionId);
      const nav = await send("Page.navigate", { url }, result.sessionId);
      if (nav.error) { console.error(nav.error.message); process.exit(1); }
    });`;
  execFileSync(process.execPath, ["--input-type=module", "-e", script, browser.wsEndpoint, targetId, url], { cwd: process.cwd(), timeout: 60_000, stdio: ["ignore", "ignore", "inherit"] });
}

describe("TargetWatch.caughtUp", () => {
  it("a navigation to chrome:// that started while svc read nothing is known once caughtUp resolves", async () => {
    const client = await rawCdp(browser.wsEndpoint);
    try {
      const { targetId } = (await client.send("Target.createTarget", { url: "about:blank" })).result as { targetId: string };
      const { sessionId } = (await client.send("Target.attachToTarget", { targetId, flatten: true })).result as { sessionId: string };
      // It answers once svc's watch let it run (Page.enable first): the watch follows its navigations.
      expect((await client.send("Runtime.evaluate", { expression: "1 + 1", returnByValue: true }, sessionId)).result.result.value).toBe(2);
      await waitFor(() => watch.refusal(targetId) === undefined, EVENT_WAIT_MS, 20);

      navigateWhileBusy(targetId, "chrome://version/");
      // Nothing was read meanwhile: on its own, svc does not know of the navigation yet.
      expect(watch.refusal(targetId)).toBeUndefined();
      const reading = watch.caughtUp(targetId);
      expect(reading).toBeDefined();
      await reading;
      expect(watch.refusal(targetId)).toMatch(/chrome:\/\/version/);
      // Refused for good: nothing left to catch up on.
      expect(watch.caughtUp(targetId)).toBeUndefined();
      await waitFor(() => logs.some((l) => l.includes(`closed tab ${targetId}`)), EVENT_WAIT_MS, 20);
    } finally {
      client.close();
    }
  });

  it("is undefined for a target that is not a tab and for one svc never saw", async () => {
    const client = await rawCdp(browser.wsEndpoint);
    try {
      const browserTarget = (await client.send("Target.getTargets")).result.targetInfos.find((t: { type: string }) => t.type === "browser");
      if (browserTarget) expect(watch.caughtUp(browserTarget.targetId as string)).toBeUndefined();
      expect(watch.caughtUp("no-such-target")).toBeUndefined();
    } finally {
      client.close();
    }
  });
});
