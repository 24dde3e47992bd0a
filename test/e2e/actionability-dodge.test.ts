/**
 * A press that never settles: a button drifting for ever that jumps away on every pointerdown, so every release lands
 * elsewhere and is cancelled. The click fails after MAX_PRESSES, long before the act's timeout, naming what kept moving;
 * the page counts that many presses, no click. The drift starts at load, or once the pointer is over it (the check after
 * the move must then give up after SETTLE_MS).
 */
import { describe, expect, it } from "vitest";
import { MAX_PRESSES } from "../../src/browser/element.js";
import { ServiceClickError } from "../../src/errors.js";
import { action } from "../support/browser.js";
import { inPage, useModelService, useModelWorld, useTempDirs, WIRES } from "../support/models.js";

const world = useModelWorld();
const tempDir = useTempDirs();
const env = useModelService(() => ({ model: WIRES[0]!.model(world.fake), cacheDir: tempDir() }));
const text = (id: string) => inPage<string>(env.svc.page, `document.getElementById(${JSON.stringify(id)}).textContent`);

/** The act's own timeout: the failure must come long before it. */
const TIMEOUT_MS = 15_000;

describe("a press that never settles", () => {
  for (const start of ["load", "hover"]) {
    it(`a button that jumps on every press, its track drifting from the ${start}: fails after ${MAX_PRESSES} presses naming the track, no click`, async () => {
      await env.svc.page.goto(world.server.url(`dodge.html?start=${start}`));
      if (start === "hover") {
        // svc's first check in a document never finds it quiet: one elsewhere first, then the 50 ms of quiet that
        // let the click's first check skip the stability frame (a wait for that condition, not for a result).
        expect((await env.svc.act(action("hover", "#other"))).success).toBe(true);
        await inPage(env.svc.page, "new Promise((r) => setTimeout(r, 100))");
      }
      const t0 = Date.now();
      const err = await env.svc.act(action("click", "#dodge"), { timeout: TIMEOUT_MS }).then(
        (r) => new Error(`the click reported ${r.success ? "success" : "failure"}: ${r.message}`),
        (e: unknown) => e as Error,
      );
      const took = Date.now() - t0;
      expect(err, err.message).toBeInstanceOf(ServiceClickError);
      expect(err.message).toContain(`pressed ${MAX_PRESSES} times, cancelled each`);
      expect(err.message).toMatch(/the press landed elsewhere: pointerup on /);
      expect(err.message).toContain(`<div id="track"> kept moving`);
      expect([await text("presses"), await text("clicks")]).toEqual([String(MAX_PRESSES), "0"]);
      expect(took, err.message).toBeLessThan(TIMEOUT_MS / 3); // two settle waits of 1 s and the presses
    }, 40_000);
  }
});
