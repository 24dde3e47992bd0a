/**
 * selectOptionFromDropdown chooses like a user (issue 22): the option is set, `input` and `change` bubble, the
 * select is never focused, so a dropdown plugin that opens its own list on focus leaves it closed and the
 * button below stays clickable. The choice is read back: a page that undoes it makes the action fail.
 */
import { describe, expect, it } from "vitest";
import { useFixtureServer } from "../support/use-resource.js";
import { action, textIn, useService } from "../support/browser.js";

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
