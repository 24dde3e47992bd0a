/**
 * fill and type report success only when the field holds the text afterwards (issue 22): a page that
 * refuses or undoes the text makes the action fail, naming what the field holds; a field that formats it
 * (letters and digits kept) and a label standing for its field still succeed. focus succeeds only when the
 * element has the focus afterwards.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { useFixtureServer } from "../support/use-resource.js";
import { action, useService } from "../support/browser.js";

const server = useFixtureServer();

const env = useService();
const act = (method: string, selector: string, args: string[] = []) => env.svc.act(action(method, selector, args));
const valueOf = (id: string) => env.svc.page.evaluate((i: string) => (document.getElementById(i) as HTMLInputElement).value, id);

describe("fill and type read the field back", () => {
  beforeEach(() => env.svc.page.goto(server.url("forms.html")));

  it("a field a script empties on input: fill and type fail and say what the field holds", async () => {
    await env.svc.page.evaluate(() => {
      const f = document.getElementById("name") as HTMLInputElement;
      f.addEventListener("input", () => (f.value = ""));
    });
    await expect(act("fill", "#name", ["Ada Lovelace"])).rejects.toMatchObject({ code: "CLICK_FAILED", message: expect.stringContaining('filled "Ada Lovelace" but the field now holds ""') });
    await expect(act("type", "#name", ["Ada"])).rejects.toMatchObject({ code: "CLICK_FAILED", message: expect.stringContaining('typed "Ada" but the field now holds ""') });
  });

  it("a field that formats what it gets, a label for its field, a plain field: success, and the value is there", async () => {
    await env.svc.page.evaluate(() => {
      const f = document.getElementById("email") as HTMLInputElement;
      f.addEventListener("input", () => (f.value = f.value.replace(/^(\d{3})(\d{3})(\d{4})$/, "($1) $2-$3")));
    });
    expect((await act("fill", "#email", ["5551234567"])).success).toBe(true);
    expect(await valueOf("email")).toBe("(555) 123-4567");
    expect((await act("fill", "label[for=name]", ["Ada"])).success).toBe(true);
    expect(await valueOf("name")).toBe("Ada");
    expect((await act("type", "#bio", ["hello"])).success).toBe(true);
    expect(await valueOf("bio")).toBe("hello");
  });
});

describe("focus reads the page back", () => {
  beforeEach(() => env.svc.page.goto(server.url("controls.html")));

  it("focus on an element that cannot take it, or that gives it away, fails; on a field it succeeds", async () => {
    await env.svc.page.evaluate(() => {
      const p = document.createElement("p");
      p.id = "plain";
      p.textContent = "not focusable";
      const b = document.createElement("button");
      b.id = "shy";
      b.textContent = "shy";
      b.addEventListener("focus", () => b.blur());
      document.body.append(p, b);
    });
    // A click first, as a person's visit has: the document has the focus, so focus() fires `focus`.
    await act("click", "#focus-me");
    await expect(act("focus", "#plain")).rejects.toMatchObject({ code: "CLICK_FAILED", message: expect.stringContaining("the focus is elsewhere") });
    await expect(act("focus", "#shy")).rejects.toMatchObject({ code: "CLICK_FAILED" });
    expect((await act("focus", "#focus-me")).success).toBe(true);
  });
});
