/**
 * A click is verified where it lands (browser/press.ts). When the element's document is gone at read-back, the press
 * counts only if the page reported, through svc's binding, that it reached the element: a click that navigates
 * succeeds; a press after the page replaced its document by itself does not, nor one whose release never reached the
 * page.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actionable } from "../../src/browser/actionability.js";
import { armPress, PRESS_BINDING, pressOutcome, watchPress } from "../../src/browser/press.js";
import { resolveSelector } from "../../src/browser/resolve.js";
import { startFixtureServer, type FixtureServer } from "../support/server.js";
import { action, useService } from "../support/browser.js";

let server: FixtureServer;
beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(async () => {
  await server?.close();
});

const env = useService();

/** Arms the press listener on `selector` of the current page, as a click does; returns where to press. */
async function arm(selector: string) {
  const page = env.svc.page;
  const handle = await resolveSelector(page.frames, selector, { deep: false });
  const watch = watchPress(handle.frame.session);
  const at = await actionable<string>("click", handle, {}, { frames: page.frames, then: { fn: armPress, args: [watch.token, PRESS_BINDING] } });
  return { at, watch };
}

describe("a press whose document is gone", () => {
  it("the page replaced its document by itself before the press: not received", async () => {
    const page = env.svc.page;
    await page.goto(server.url("clickable.html"));
    const { at, watch } = await arm("#submit-div");
    try {
      // The page moves on by itself between svc's check and the press (a self-navigating page).
      await page.goto(server.url("controls.html"));
      await page.input.buttons(at.point);
      expect(await pressOutcome(at.handle, watch)).toMatchObject({ ok: false, gone: true, reason: expect.stringMatching(/its document was gone before the press reached it/) });
    } finally {
      watch.stop();
    }
  });

  it("the click itself navigated: received", async () => {
    const page = env.svc.page;
    await page.goto(server.url("clickable.html"));
    // A link-like element whose click leaves the page at once.
    await env.svc.page.evaluate(`document.getElementById("submit-div").addEventListener("click", () => location.assign(${JSON.stringify(server.url("controls.html"))}))`);
    const { at, watch } = await arm("#submit-div");
    try {
      await page.input.buttons(at.point);
      await expect.poll(() => page.url()).toBe(server.url("controls.html"));
      expect(await pressOutcome(at.handle, watch)).toEqual({ ok: true });
    } finally {
      watch.stop();
    }
  });

  it("through act: a click that navigates succeeds", async () => {
    const page = env.svc.page;
    await page.goto(server.url("clickable.html"));
    await env.svc.page.evaluate(`document.getElementById("submit-div").addEventListener("click", () => location.assign(${JSON.stringify(server.url("controls.html"))}))`);
    const result = await env.svc.act(action("click", "#submit-div"));
    expect(result.success).toBe(true);
    await expect.poll(() => page.url()).toBe(server.url("controls.html"));
  });
});

describe("a press whose release never reaches the page", () => {
  it("the button went down on the element and never came up (a dialog swallowed the release): not received", async () => {
    const page = env.svc.page;
    await page.goto(server.url("clickable.html"));
    const { at, watch } = await arm("#submit-div");
    const session = at.handle.frame.session;
    try {
      // What a confirm() opened by a timer between the two events does: the page gets the press, never its release.
      await session.send("Input.dispatchMouseEvent", { type: "mousePressed", x: at.point.x, y: at.point.y, button: "left", buttons: 1, clickCount: 1 });
      expect(await pressOutcome(at.handle, watch)).toMatchObject({ ok: false, reason: expect.stringMatching(/its release never reached the page/) });
    } finally {
      watch.stop();
      await session.send("Input.dispatchMouseEvent", { type: "mouseReleased", x: at.point.x, y: at.point.y, button: "left", buttons: 0, clickCount: 1 });
    }
  });

  it("a whole press on the element: received", async () => {
    const page = env.svc.page;
    await page.goto(server.url("clickable.html"));
    const { at, watch } = await arm("#submit-div");
    try {
      await page.input.buttons(at.point);
      expect(await pressOutcome(at.handle, watch)).toEqual({ ok: true });
    } finally {
      watch.stop();
    }
  });
});
