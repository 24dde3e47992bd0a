/**
 * `svc agent --record`: each step-N.png shows the page as step N left it. steps.html paints a new background on every
 * click of "Next" and every key, so a screenshot taken late shows the next step's colour. The fake model clicks,
 * presses a key four times and finishes; the run is then replayed from the agent cache, steps back to back.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { step } from "../e2e/agent-support.js";
import { refOf } from "../support/models.js";
import { decodePng } from "../support/png.js";
import { type ModelWorld, svc, startModelWorld } from "./helpers.js";

// steps.html's COLORS: the background after 0, 1, 2, … clicks.
const COLORS: Array<[number, number, number]> = [
  [0, 0, 0],
  [255, 0, 0],
  [0, 255, 0],
  [0, 0, 255],
  [255, 255, 0],
  [0, 255, 255],
];

let world: ModelWorld;
beforeAll(async () => {
  world = await startModelWorld();
});
afterAll(async () => {
  await world?.close();
});

describe("svc agent --record", () => {
  it("each step's screenshot shows the page when that step ended, in a run and in a cached replay", async () => {
    const { fake, server, sb } = world;
    // A click, then key presses: a key press changes the page at once, with no wait for the element.
    const click = (req: Parameters<typeof refOf>[0]) => step("perform", { ref: refOf(req, "button", "Next"), method: "click", arguments: [] });
    const key = step("keys", { key: "n" });
    const cache = join(sb.tmp, "..", "steps-cache");
    // The replay runs its steps back to back (no model call between them): a late screenshot shows the next step.
    for (const [i, record] of [join(sb.tmp, "..", "steps-record"), join(sb.tmp, "..", "steps-replay")].entries()) {
      fake.reset();
      fake.script(...(i === 0 ? [click, key, key, key, key] : []), step("done", { message: "clicked five times", success: true }));
      const r = await svc(["--json", "agent", "move the page on five steps", "--url", server.url("steps.html"), "--record", record, "--cache-dir", cache], sb.env, { timeoutMs: 90_000 });
      expect(r.code, r.stdout.slice(-2000) + r.stderr).toBe(0);
      expect(readdirSync(record).filter((f) => f.endsWith(".png")).sort()).toEqual(["step-001.png", "step-002.png", "step-003.png", "step-004.png", "step-005.png", "step-006.png"]);
      // Step N leaves colour N; step 6 (done) leaves the page as step 5 did.
      const seen = [1, 2, 3, 4, 5, 6].map((n) => {
        const png = decodePng(readFileSync(join(record, `step-00${n}.png`)));
        return png.rgb(png.width - 4, png.height - 4);
      });
      expect(seen, record).toEqual([COLORS[1], COLORS[2], COLORS[3], COLORS[4], COLORS[5], COLORS[5]]);
      // The report embeds the same pictures.
      const html = readFileSync(join(record, "report.html"), "utf8");
      expect(html).toContain(`src="data:image/png;base64,${readFileSync(join(record, "step-004.png")).toString("base64")}"`);
    }
  });
});
