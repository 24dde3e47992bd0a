/**
 * act(instruction), observe(instruction) and extract(instruction) with a model, through each wire format
 * (real openai / @anthropic-ai/sdk clients against the fake model server): on forms.html, inside
 * cross-origin iframes (iframes.html, nested.html), inside open and closed shadow roots (shadow.html), and
 * the two-step custom dropdown (dropdown.html). Every act is checked by what the page shows.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Action } from "../../src/operations/action.js";
import { textIn } from "../support/browser.js";
import { expectText, useModelService, useModelWorld, WIRES } from "../support/models.js";

const world = useModelWorld();

describe.each(WIRES)("$label", (wire) => {
  const env = useModelService(() => ({ model: wire.model(world.fake) }));
  const page = () => env.svc.page;
  const open = (path: string) => page().goto(world.server.url(path));

  afterEach(() => {
    // Every call went out in this wire format, and nothing scripted was left unused.
    for (const r of world.fake.requests) expect(r.format).toBe(wire.format);
    expect(world.fake.queued).toBe(0);
  });

  describe("forms.html", () => {
    it("act fills a field, ticks a checkbox and picks a native option, one model call each", async () => {
      await open("forms.html");
      const fill = await env.svc.act('please type "Ada Lovelace" into the Full name field');
      expect(fill).toMatchObject({ success: true, actionDescription: 'please type "Ada Lovelace" into the Full name field' });
      expect(fill.actions).toEqual([{ selector: "xpath=/html/body/form/p[1]/input", description: expect.any(String), method: "fill", arguments: ["Ada Lovelace"] }]);
      expect(fill.cacheStatus).toBeUndefined();
      await expectText(page(), "#log", "name: Ada Lovelace");

      await env.svc.act("please check the Subscribe to newsletter checkbox");
      await expectText(page(), "#log", "subscribe: true");

      const select = await env.svc.act("select France from the Country dropdown");
      expect(select.actions[0]).toMatchObject({ method: "selectOptionFromDropdown", arguments: ["France"] });
      await expectText(page(), "#log", "country: fr");

      const acts = world.fake.requestsFor("act");
      expect(acts).toHaveLength(3);
      expect(world.fake.requests).toHaveLength(3);
      expect(acts[0]!.instruction).toBe('please type "Ada Lovelace" into the Full name field');
      expect(acts[0]!.url).toBe(world.server.url("forms.html"));
      expect(acts[0]!.snapshot).toMatch(/e\d+ textbox Full name/);
    });

    it("observe returns replayable Actions; extract(instruction) answers from the page", async () => {
      await open("forms.html");
      const found = await env.svc.observe("find the Email field");
      expect(found.length).toBeGreaterThan(0);
      expect(found[0]).toEqual({ selector: "xpath=/html/body/form/p[2]/input", description: expect.stringContaining("Email"), method: "click", arguments: [] });
      expect(world.fake.requestsFor("observe")).toHaveLength(1);

      // An observed Action runs deterministically (no model call).
      const before = world.fake.requests.length;
      const res = await env.svc.act({ ...found[0]!, method: "fill", arguments: ["ada@example.com"] });
      expect(res.success).toBe(true);
      await expectText(page(), "#log", "email: ada@example.com");
      expect(world.fake.requests.length).toBe(before);

      const { extraction } = await env.svc.extract("what does the help text say");
      expect(extraction).toContain("Help: fill in the form and press Submit.");
      expect(world.fake.requestsFor("extract")).toHaveLength(1);
    });
  });

  describe("cross-origin iframes", () => {
    it("iframes.html: act clicks and types inside the cross-origin frame", async () => {
      await open("iframes.html");
      const click = await env.svc.act("click the Child button in the Cross-origin frame");
      expect(click.success).toBe(true);
      expect(click.actions[0]!.selector).toBe("xpath=/html/body/iframe[2]/html/body/button");
      await expectText(page(), "#child-result", "clicked: child-button", ["#cross-frame"]);
      // The same-origin frame was not touched.
      await expectText(page(), "#child-result", "", ["#same-frame"]);

      await env.svc.act('type "hello oopif" into the Child input in the Cross-origin frame');
      await expectText(page(), "#child-result", "child-input: hello oopif", ["#cross-frame"]);
      expect(world.fake.requestsFor("act")).toHaveLength(2);
      // The model saw the frame's content in the outline.
      expect(world.fake.requests[0]!.snapshot).toMatch(/iframe Cross-origin frame\n\s+Child frame on http:\/\/127\.0\.0\.1:\d+/);
    });

    it("iframes.html: observe finds elements in both frames; extract reads the cross-origin frame", async () => {
      await open("iframes.html");
      const found = await env.svc.observe("find the child button");
      const selectors = found.map((a) => a.selector);
      expect(selectors).toContain("xpath=/html/body/iframe[1]/html/body/button");
      expect(selectors).toContain("xpath=/html/body/iframe[2]/html/body/button");
      const cross = found.find((a) => a.selector.includes("iframe[2]"))!;
      await env.svc.act(cross);
      await expectText(page(), "#child-result", "clicked: child-button", ["#cross-frame"]);

      const { extraction } = await env.svc.extract("which host is the child frame on");
      const port = new URL(world.server.url("/")).port;
      expect(extraction).toContain(`Child frame on http://127.0.0.1:${port}`);
    });

    it("nested.html: act reaches the middle and the innermost cross-origin frames", async () => {
      await open("nested.html");
      await env.svc.act("click the Middle button");
      await expectText(page(), "#mid-result", "clicked: mid-button", ["#mid-frame"]);
      const res = await env.svc.act("please click the Child button");
      expect(res.actions[0]!.selector).toBe("xpath=/html/body/iframe/html/body/iframe/html/body/button");
      await expectText(page(), "#child-result", "clicked: child-button", ["#mid-frame", "#inner-frame"]);
      await env.svc.act('please type "deep" into the Child input');
      await expectText(page(), "#child-result", "child-input: deep", ["#mid-frame", "#inner-frame"]);
      expect(await textIn(page(), "#result")).toBe("");
    });
  });

  describe("shadow roots", () => {
    it("shadow.html: act clicks and types in open, closed and nested shadow roots", async () => {
      await open("shadow.html");
      await env.svc.act("please click the Open button");
      await expectText(page(), "#result", "clicked: open-button");
      const closed = await env.svc.act("please click the Closed button");
      expect(closed.actions[0]!.selector).toBe("xpath=/html/body/closed-widget/#shadow-root/button");
      await expectText(page(), "#result", "clicked: closed-button");
      await env.svc.act('please type "secret room" into the Closed input');
      await expectText(page(), "#result", "closed-input: secret room");
      await env.svc.act("please click the Deep button");
      await expectText(page(), "#result", "clicked: deep-button");
      expect(world.fake.requestsFor("act")).toHaveLength(4);
    });

    it("shadow.html: observe returns shadow-piercing selectors that replay; extract reads shadow content", async () => {
      await open("shadow.html");
      const found: Action[] = await env.svc.observe("find the closed input");
      expect(found[0]!.selector).toBe("xpath=/html/body/closed-widget/#shadow-root/input");
      await env.svc.act({ ...found[0]!, method: "fill", arguments: ["via observe"] });
      await expectText(page(), "#result", "closed-input: via observe");

      const { extraction } = await env.svc.extract("what does the outer shadow root say");
      expect(extraction).toContain("Outer shadow root");
    });
  });

  describe("dropdown.html", () => {
    it("a custom dropdown takes two model calls: open it, then pick the option", async () => {
      await open("dropdown.html");
      const res = await env.svc.act("choose Banana from the fruit dropdown");
      expect(res.success).toBe(true);
      await expectText(page(), "#custom-value", "Banana");
      await expectText(page(), "#result", "fruit: Banana");
      expect(res.actions.map((a) => [a.method, a.selector])).toEqual([
        ["click", "xpath=/html/body/p[2]/button"],
        ["click", "xpath=/html/body/ul/li[2]"],
      ]);
      const [first, second] = world.fake.requestsFor("act");
      expect(world.fake.requests).toHaveLength(2);
      expect(first!.note).toBeUndefined();
      expect(first!.snapshot).not.toContain("option Banana");
      expect(second!.note).toMatch(/opened a dropdown/);
      expect(second!.snapshot).toMatch(/e\d+ option Banana/);
    });

    it("a native select is one call with selectOptionFromDropdown", async () => {
      await open("dropdown.html");
      const res = await env.svc.act("select Blue from the Color dropdown");
      expect(res.actions).toEqual([expect.objectContaining({ method: "selectOptionFromDropdown", arguments: ["Blue"] })]);
      await expectText(page(), "#result", "color: blue");
      expect(world.fake.requests).toHaveLength(1);
    });
  });
});
