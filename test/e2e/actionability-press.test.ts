/**
 * A press verified where it lands, and a covered element clicked where a person can see it (press.ts,
 * actionability-page.ts). The fixture pages count what each element received, so a press that went to the
 * wrong element shows on the page, not only in what act() returned.
 */
import { describe, expect, it } from "vitest";
import { ServiceClickError } from "../../src/errors.js";
import { action } from "../support/browser.js";
import { inPage, useModelService, useModelWorld, useTempDirs, WIRES } from "../support/models.js";
import { rejection } from "../support/rejection.js";

const world = useModelWorld();
const tempDir = useTempDirs();
const env = useModelService(() => ({ model: WIRES[0]!.model(world.fake), cacheDir: tempDir() }));
const open = (path: string) => env.svc.page.goto(world.server.url(path));
const text = (id: string) => inPage<string>(env.svc.page, `document.getElementById(${JSON.stringify(id)}).textContent`);
const click = (selector: string) => action("click", selector);

describe("a press verified where it lands", () => {
  it("an accordion animating in timer steps: every success is a click on the button, no press lands on a header", async () => {
    await open("accordion.html");
    let successes = 0;
    let runs = 0;
    // Until the race has happened (a press reached header 3) five times, at most 30 rounds: what is
    // checked is every round in which it did, and that it did.
    for (; runs < 30 && Number(await text("h3-presses")) < 5; runs++) {
      await inPage(env.svc.page, "reset()");
      expect((await env.svc.act(click("#h2"))).success).toBe(true);
      // Right after the header opened its panel: the button slides up with it, in 13 ms steps.
      const res = await env.svc.act(click("#submit"), { timeout: 5000 }).catch(() => null);
      if (res?.success) successes++;
      expect([await text("submit-count"), await text("header-count"), await text("header-last")]).toEqual([String(successes), "0", "none"]);
    }
    expect(successes).toBe(runs);
    // The race happened (presses reached header 3, seen by the page's own earlier listener) and each was cancelled.
    expect(Number(await text("h3-presses"))).toBeGreaterThan(0);
  }, 120_000);

  it("a link click that navigates is a success (the press may be read back from a document already gone)", async () => {
    await open("cover.html?case=navigate");
    expect((await env.svc.act(click("#next"))).success).toBe(true);
    expect(env.svc.page.url()).toMatch(/\/veil\.html$/);
  });
});

describe("click what a person can see", () => {
  it("a button whose centre is covered and whose ends are not: clicked at a visible point", async () => {
    await open("cover.html?case=partly");
    // The cover never goes: a success is a click at a point a person can see, not a wait for the cover.
    expect((await env.svc.act(click("#partly"), { timeout: 30_000 })).success).toBe(true);
    expect([await text("partly-count"), await text("badge-count")]).toEqual(["1", "0"]);
    await env.svc.page.locator("#partly").click({ timeout: 5000 });
    expect(await text("partly-count")).toBe("2");
  });

  it("a button under a static overlay: fails once the page has stayed still a second (long before the deadline), naming it", async () => {
    await open("cover.html?case=covered");
    const t0 = Date.now();
    const e = await rejection(env.svc.act(click("#covered"), { timeout: 30_000 }));
    const took = Date.now() - t0;
    expect(e).toBeInstanceOf(ServiceClickError);
    // It gave up on the still cover (not at its 30 s deadline, which would say "waited N ms").
    const still = /^cannot click <button id="covered">: <div id="cookie-wall"> intercepts pointer events \(nothing on the page changed for (\d+) ms\)/.exec(e.message);
    expect(still, e.message).not.toBeNull();
    expect(Number(still![1])).toBeGreaterThanOrEqual(1000);
    expect(e.hint).toMatch(/<div id="cookie-wall"> covers it/);
    expect(took).toBeGreaterThan(900);
    expect(took).toBeLessThan(30_000);
    expect([await text("covered-count"), await text("overlay-count")]).toEqual(["0", "0"]);
  });
});
