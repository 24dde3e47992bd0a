/**
 * selectOptionFromDropdown chooses like a user (issue 22): the option set, `input` and `change` bubbled, the select
 * never focused, so a plugin's own list stays closed. The choice is read back: a page undoing it fails the action.
 * Several options (issue 40): a multiple select holds each, the result says what it holds; several for a single
 * select, or a missing one, fail naming it.
 */
import { describe, expect, it } from "vitest";
import { useFixtureServer } from "../support/use-resource.js";
import { action, textIn, useService } from "../support/browser.js";
import { rejection } from "../support/rejection.js";

const server = useFixtureServer();

const env = useService();
const act = (method: string, selector: string, args: string[] = []) => env.svc.act(action(method, selector, args));
const inPage = <T>(fn: () => T) => env.svc.page.evaluate(fn);

describe("a <select> behind a plugin that opens its list on focus", () => {
  it("choosing an option leaves the plugin's list closed; the button below is clicked", async () => {
    await env.svc.page.goto(server.url("select-plugin.html"));
    // A click first, as a person's visit has: the document has the focus, so a focus() fires `focus`.
    await act("click", "#title");
    const chosen = await act("selectOptionFromDropdown", "#color", ["Blue"]);
    expect(chosen.success).toBe(true);
    expect(await inPage(() => (document.getElementById("color") as HTMLSelectElement).value)).toBe("b");
    expect((await textIn(env.svc.page, "#log")).trim()).toBe("input: b; change: b;");
    expect(await inPage(() => document.getElementById("plugin-list")!.classList.contains("open"))).toBe(false);
    expect(await inPage(() => document.activeElement?.id ?? "")).not.toBe("color");

    const clicked = await act("click", "#go");
    expect(clicked.success).toBe(true);
    expect(await textIn(env.svc.page, "#result")).toBe("clicked: go with b");
    expect(await inPage(() => document.getElementById("plugin-list")!.classList.contains("open"))).toBe(false);
  });

  it("a page that undoes the choice on change: the action fails, naming what the dropdown shows", async () => {
    await env.svc.page.goto(server.url("select-plugin.html"));
    await inPage(() => {
      const s = document.getElementById("color") as HTMLSelectElement;
      s.addEventListener("change", () => (s.value = "r"));
    });
    await expect(act("selectOptionFromDropdown", "#color", ["Green"])).rejects.toThrow(/chose "Green" but the dropdown now shows "Red"/);
  });
});

describe("several options (issue 40)", () => {
  const held = (id: string) => env.svc.page.evaluate((sel: string) => Array.from((document.getElementById(sel) as HTMLSelectElement).selectedOptions, (o) => o.value), id);

  it("a <select multiple> holds every option given, the others deselected; input and change fire once; the result names both", async () => {
    await env.svc.page.goto(server.url("select-multiple.html"));
    const res = await act("selectOptionFromDropdown", "#toppings", ["Ham", "basil"]);
    expect(res.success).toBe(true);
    expect(await held("toppings")).toEqual(["ham", "basil"]);
    expect(res.message).toMatch(/the dropdown now holds "Ham" \(ham\), "Basil" \(basil\)\)$/);
    expect((await textIn(env.svc.page, "#log")).trim()).toBe("toppings input: ham,basil; toppings change: ham,basil;");
    // The locator door returns the values the select holds, as Playwright's does.
    expect(await env.svc.page.locator("#toppings").selectOption(["pepper", "Olives"])).toEqual(["olives", "pepper"]);
    expect(await held("toppings")).toEqual(["olives", "pepper"]);
  });

  it("two options for a single select: INVALID_ARGUMENT naming the select; nothing chosen, no event", async () => {
    await env.svc.page.goto(server.url("select-multiple.html"));
    const e = await rejection(act("selectOptionFromDropdown", "#size", ["Small", "Large"]));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.message).toMatch(/^the dropdown <select id="size"> takes one option, got 2: "Small", "Large" \(hint: /);
    expect(await held("size")).toEqual(["s"]);
    expect(await textIn(env.svc.page, "#log")).toBe("");
  });

  it("an option that is not there: ELEMENT_NOT_FOUND naming it (and only it); nothing chosen", async () => {
    await env.svc.page.goto(server.url("select-multiple.html"));
    const e = await rejection(act("selectOptionFromDropdown", "#toppings", ["Ham", "Anchovies"]));
    expect(e.code).toBe("ELEMENT_NOT_FOUND");
    expect(e.message).toMatch(/^no option "Anchovies" in the dropdown <select id="toppings"> \(hint: /);
    expect(e.hint).toBe("options are: Ham, Olives, Pepper, Basil");
    expect(await held("toppings")).toEqual(["olives"]);
    expect(await textIn(env.svc.page, "#log")).toBe("");
  });
});
