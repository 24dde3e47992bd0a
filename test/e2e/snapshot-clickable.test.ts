/**
 * Role-less clickables (clickable.html): a span or div with only a listener and `cursor: pointer` gets a `clickable`
 * ref, in open and closed shadow roots and a cross-origin frame too, acted on like any other ref (by ref,
 * instruction, observe and its replay). Nested spans give one ref; plain text stays text.
 */
import { describe, expect, it } from "vitest";
import { waitFor } from "../support/browser.js";
import { expectText, useModelService, useModelWorld, WIRES } from "../support/models.js";

const world = useModelWorld();
const wire = WIRES[0]!;

describe("clickable elements without a role", () => {
  const env = useModelService(() => ({ model: wire.model(world.fake) }));
  const page = () => env.svc.page;

  /** Opens clickable.html and returns its outline once the cross-origin frame's content is in it. */
  async function open(): Promise<string> {
    await page().goto(world.server.url("clickable.html"));
    return waitFor(async () => {
      const { pageText } = await env.svc.extract();
      return pageText.includes("clickable Frame link") && pageText.includes("Closed shadow link") ? pageText : "";
    });
  }

  const refFor = (text: string, name: string): string => {
    const m = new RegExp(`^\\s*(e\\d+) clickable ${name}$`, "m").exec(text);
    if (!m) throw new Error(`no clickable "${name}" in:\n${text}`);
    return m[1]!;
  };

  it("shows each clickable once, by its text; nested and inherited-pointer spans get no ref; plain text stays text", async () => {
    const text = await open();
    const refLines = text.split("\n").map((l) => l.trim()).filter((l) => /^e\d+ /.test(l)).map((l) => l.replace(/^e\d+ /, ""));
    expect(refLines).toEqual([
      "clickable terms",
      "clickable Submit",
      "clickable Open the card",
      "clickable Inner pointer row",
      "clickable Press on mousedown",
      "clickable Touch on pointerdown",
      "clickable Pointer only",
      "button App button",
      "clickable Shadow link",
      "clickable Closed shadow link",
      "clickable Frame link",
    ]);
    expect(text).toMatch(/^I accept the\ne\d+ clickable terms\nof use\.$/m);
    expect(text).toMatch(/^Plain text$/m);
  });

  it("act(action) clicks by ref: a span, a div, a mousedown div, a pointer-only div, in shadow roots and a cross-origin frame", async () => {
    const text = await open();
    const click = (ref: string) => env.svc.act({ selector: ref, method: "click", description: "", arguments: [] });
    for (const [name, id] of [
      ["terms", "terms"],
      ["Submit", "submit-div"],
      ["Open the card", "open-card"],
      ["Press on mousedown", "press"],
      ["Touch on pointerdown", "touch"],
      ["Pointer only", "styled"],
      ["Shadow link", "open-shadow-link"],
      ["Closed shadow link", "closed-shadow-link"],
    ] as const) {
      const res = await click(refFor(text, name));
      expect(res.success, name).toBe(true);
      await expectText(page(), "#result", `clicked: ${id}`);
    }
    expect((await click(refFor(text, "Frame link"))).success).toBe(true);
    await expectText(page(), "#child-result", "clicked: frame-link", ["#cross-frame"]);
  });

  it("act(instruction) names them through the model; observe finds them and its Action replays", async () => {
    await open();
    const terms = await env.svc.act("please click the terms link");
    expect(terms.success).toBe(true);
    await expectText(page(), "#result", "clicked: terms");
    const sent = world.fake.requestsFor("act").at(-1)!;
    expect(sent.snapshot).toMatch(/e\d+ clickable terms/);

    await env.svc.act("please click the Submit button");
    await expectText(page(), "#result", "clicked: submit-div");

    const found = await env.svc.observe("find the Closed shadow link");
    expect(found[0]).toMatchObject({ method: "click", description: expect.stringContaining("Closed shadow link") });
    expect((await env.svc.act(found[0]!)).success).toBe(true);
    await expectText(page(), "#result", "clicked: closed-shadow-link");
  });
});
