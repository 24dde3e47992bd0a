/**
 * A press on an element that never stops moving (a pie menu whose group turns forever): at most a few
 * presses, each at a freshly checked point, then a success or an error naming what kept moving; and a
 * target that slides for 500 ms is clicked once, after it stopped. The page counts every press it saw.
 */
import { describe, expect, it } from "vitest";
import { ServiceClickError } from "../../src/errors.js";
import { action } from "../support/browser.js";
import { inPage, useModelService, useModelWorld, useTempDirs, WIRES } from "../support/models.js";

const world = useModelWorld();
const tempDir = useTempDirs();
const env = useModelService(() => ({ model: WIRES[0]!.model(world.fake), cacheDir: tempDir() }));
const text = (id: string) => inPage<string>(env.svc.page, `document.getElementById(${JSON.stringify(id)}).textContent`);

describe("a press on a target that keeps moving", () => {
  for (const spin of ["css", "smil", "timer"]) {
    it(`a pie menu turning forever (${spin}): one click on the item or an error naming what moves; at most 3 presses`, async () => {
      await env.svc.page.goto(world.server.url(`pie.html?spin=${spin}`));
      const t0 = Date.now();
      const res = await env.svc.act(action("click", "#east"), { timeout: 10_000 }).then(
        (r) => ({ ok: r.success, message: r.message }),
        (e: unknown) => ({ ok: false, message: (e as Error).message, error: e }),
      );
      const took = Date.now() - t0;
      const [clicks, presses] = [await text("clicks"), Number(await text("presses"))];
      if (res.ok) expect(clicks).toBe("east");
      else {
        expect((res as { error?: unknown }).error, res.message).toBeInstanceOf(ServiceClickError);
        expect(res.message).toMatch(/<g id="pie">.* kept moving|kept moving.*<g id="pie">/);
        expect(clicks).toBe("");
      }
      expect(presses).toBeLessThanOrEqual(3);
      expect(took, res.message).toBeLessThan(4000); // a hang guard
    }, 30_000);
  }

  it("a button sliding for 500 ms is clicked once, where it stopped", async () => {
    await env.svc.page.goto(world.server.url("pie.html"));
    await inPage(env.svc.page, "slide()");
    expect((await env.svc.act(action("click", "#late"), { timeout: 10_000 })).success).toBe(true);
    expect([await text("clicks"), await text("presses")]).toEqual(["late", "1"]);
  });
});
