/**
 * The test helpers' shared Chrome (test/support/shared-chrome.ts): a Service that attaches after another
 * finds none of its state (tabs, cookies, web storage, permissions) and the viewport a launched headless
 * Chrome gets, and the Chrome outlives both (they only disconnect).
 */
import { pidAlive } from "../support/process.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchedOf } from "../support/browser.js";
import { withService } from "../support/models.js";
import { startFixtureServer, type FixtureServer } from "../support/server.js";

let server: FixtureServer;
beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(async () => {
  await server?.close();
});

describe("a Service on the worker's shared Chrome", () => {
  it("gets one blank tab, no cookies, storage or permissions of the Service before it, and 1280×720", async () => {
    const page = server.url("forms.html");
    const origin = new URL(page).origin;
    const shared = inject("sharedChromes")[Number(process.env.VITEST_POOL_ID) - 1]!;

    await withService({}, async (svc) => {
      expect(() => launchedOf(svc)).toThrow(/did not launch/);
      await svc.page.goto(page);
      await svc.page.evaluate(() => {
        document.cookie = "left=behind; max-age=3600";
        localStorage.setItem("left", "behind");
        sessionStorage.setItem("left", "behind");
      });
      await svc.context.connection.root.send("Browser.grantPermissions", { permissions: ["geolocation"], origin });
      expect(await svc.page.evaluate(async () => (await navigator.permissions.query({ name: "geolocation" })).state)).toBe("granted");
      await svc.context.newPage(page);
      expect(svc.context.pages()).toHaveLength(2);
    });
    expect(pidAlive(shared.pid)).toBe(true);

    await withService({}, async (svc) => {
      expect(svc.context.pages()).toHaveLength(1);
      expect(svc.page.url()).toBe("about:blank");
      await svc.page.goto(page);
      const seen = await svc.page.evaluate(async () => ({
        cookie: document.cookie,
        local: localStorage.length,
        session: sessionStorage.length,
        geolocation: (await navigator.permissions.query({ name: "geolocation" })).state,
        viewport: [innerWidth, innerHeight],
      }));
      expect(seen).toEqual({ cookie: "", local: 0, session: 0, geolocation: "prompt", viewport: [1280, 720] });
    });
    expect(pidAlive(shared.pid)).toBe(true);
  });

  it("clears an origin again when a Service after a reset comes back to it (the port a later file's server may get)", async () => {
    const page = server.url("forms.html");
    await withService({}, async (svc) => {
      await svc.page.goto(page);
    });
    await withService({}, async (svc) => {
      await svc.page.goto(page);
      await svc.page.evaluate(() => localStorage.setItem("left", "behind"));
    });
    await withService({}, async (svc) => {
      await svc.page.goto(page);
      expect(await svc.page.evaluate(() => localStorage.length)).toBe(0);
    });
  });
});
