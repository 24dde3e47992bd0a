/**
 * The dialog rate gate (src/browser/dialogs.ts): a page's first STORM_BURST dialogs in a row are answered at
 * once, each further one STORM_SPACING_MS after it opened, until the page pauses for a second.
 */
import { describe, expect, it } from "vitest";
import { DialogStorm, STORM_BURST, STORM_SPACING_MS } from "../../src/browser/dialogs.js";

describe("DialogStorm", () => {
  it("answers a burst at once, then spaces the rest until the page pauses", () => {
    const storm = new DialogStorm();
    let t = 0;
    const delays = Array.from({ length: STORM_BURST }, () => storm.delay((t += 10)));
    expect(delays.every((d) => d === 0)).toBe(true);
    expect(storm.delay((t += 10))).toBe(STORM_SPACING_MS);
    // Answered late, the page asks again right after: still a storm.
    expect(storm.delay((t += STORM_SPACING_MS + 5))).toBe(STORM_SPACING_MS);
    // A pause longer than a second: a dialog after it is answered at once again.
    expect(storm.delay((t += 1500))).toBe(0);
  });

  it("a page that asks now and then is never held", () => {
    const storm = new DialogStorm();
    for (let i = 1; i <= 100; i++) expect(storm.delay(i * 1100)).toBe(0);
  });
});
