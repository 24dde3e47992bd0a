/**
 * Self-healing act(): while the model "thinks", the page replaces, hides or removes the chosen element, so the step
 * fails. With selfHeal (default) a fresh snapshot goes to the model with a note of the failure and the second choice
 * runs; with `selfHeal: false` the element error surfaces. Through each wire format.
 */
import { describe, expect, it } from "vitest";
import { ServiceError } from "../../src/errors.js";
import type { FakeReplyFn, FakeRequest } from "../support/fake-model.js";
import type { Page } from "../../src/browser/page.js";
import { waitFor } from "../support/browser.js";
import { expectText, inPage, refOf, useModelService, useModelWorld, WIRES } from "../support/models.js";

const world = useModelWorld();

/** Errors that mean "the chosen element is not there any more". */
const ELEMENT_ERRORS = ["XPATH_UNRESOLVED", "ELEMENT_NOT_FOUND", "STALE_REF"];

// A fresh Submit button (type=submit, same form) stands in for the one that is removed.
const REPLACE_SUBMIT = `(() => {
  document.querySelector("#submit").remove();
  const b = document.createElement("button");
  b.type = "submit"; b.id = "submit-new"; b.textContent = "Submit";
  document.querySelector("#signup").append(b);
  return true;
})()`;

/**
 * A scripted first reply: answer as the model would (auto), check it chose `role name`, then run `mutation`
 * in the page before the reply reaches the library.
 */
function chooseThenMutate(page: () => Page, role: string, name: string, mutation: string): FakeReplyFn {
  return async (req: FakeRequest, auto) => {
    const answer = auto() as { ref: string };
    expect(answer.ref).toBe(refOf(req, role, name));
    await inPage(page(), mutation);
    return answer;
  };
}

describe.each(WIRES)("$label", (wire) => {
  const env = useModelService(() => ({ model: wire.model(world.fake) }));
  const page = () => env.svc.page;

  it("the chosen button is replaced before the action runs: a second model call picks the new one", async () => {
    await page().goto(world.server.url("forms.html"));
    await inPage(page(), `document.querySelector("#name").value = "Heal"; true`);
    world.fake.script(chooseThenMutate(page, "button", "Submit", REPLACE_SUBMIT));
    const res = await env.svc.act("please click the Submit button");
    expect(res.success).toBe(true);
    expect(res.actions).toEqual([expect.objectContaining({ method: "click", selector: "xpath=/html/body/form/button" })]);
    // The replacement button submitted the form.
    const json = await expectResult(page());
    expect(JSON.parse(json)).toMatchObject({ name: "Heal" });

    const [first, second] = world.fake.requestsFor("act");
    expect(world.fake.requests).toHaveLength(2);
    expect(first!.note).toBeUndefined();
    expect(second!.note).toMatch(/previous attempt \(click on "[^"]*Submit[^"]*"\) failed/);
    expect(second!.userText).toMatch(/failed: .+The page has been read again; choose again\./);
    expect(second!.format).toBe(wire.format);
    // The second look at the page is a fresh snapshot: the new button is in it.
    expect(second!.snapshot).toMatch(/e\d+ button Submit/);
    expect(world.fake.queued).toBe(0);
  });

  it("the chosen button is hidden (not clickable) and a visible one appears: healed", async () => {
    await page().goto(world.server.url("forms.html"));
    const hide = `(() => {
      document.querySelector("#submit").style.display = "none";
      const b = document.createElement("button");
      b.type = "button"; b.id = "help-2"; b.textContent = "Help me";
      b.addEventListener("click", () => { document.querySelector("#log").textContent = "clicked: help-2"; });
      document.querySelector("#signup").append(b);
      document.querySelector("#help-link").remove();
      return true;
    })()`;
    world.fake.script(chooseThenMutate(page, "button", "Submit", hide));
    // The second reply: whatever the model now thinks the help button is.
    world.fake.script((req) => ({ ref: refOf(req, "button", "Help me"), method: "click", arguments: [], description: "the Help me button", twoStep: false }));
    const res = await env.svc.act("please click the Submit button");
    expect(res.success).toBe(true);
    await expectText(page(), "#log", "clicked: help-2");
    expect(await inPage(page(), `document.querySelector("#result").textContent`)).toBe("");
    expect(world.fake.requests).toHaveLength(2);
    expect(world.fake.requests[1]!.note).toMatch(/failed: .*not visible/);
  });

  it("inside an open shadow root: the replaced button is found again", async () => {
    await page().goto(world.server.url("shadow.html"));
    const replace = `(() => {
      const root = document.querySelector("#open-host").shadowRoot;
      root.querySelector("#open-button").remove();
      const b = document.createElement("button");
      b.type = "button"; b.id = "open-button-2"; b.textContent = "Open button";
      b.addEventListener("click", () => report("clicked: " + b.id));
      root.prepend(b);
      return true;
    })()`;
    world.fake.script(chooseThenMutate(page, "button", "Open button", replace));
    const res = await env.svc.act("please click the Open button");
    expect(res.success).toBe(true);
    expect(res.actions[0]!.selector).toBe("xpath=/html/body/open-widget/#shadow-root/button");
    await expectText(page(), "#result", "clicked: open-button-2");
    expect(world.fake.requests).toHaveLength(2);
  });

  it("heals once only: when the second choice fails too, the element error surfaces", async () => {
    await page().goto(world.server.url("forms.html"));
    const again = `(() => { document.querySelector("#submit-new").remove(); return true; })()`;
    world.fake.script(chooseThenMutate(page, "button", "Submit", REPLACE_SUBMIT), chooseThenMutate(page, "button", "Submit", again));
    const err = await env.svc.act("please click the Submit button").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(ELEMENT_ERRORS).toContain((err as ServiceError).code);
    expect(world.fake.requests).toHaveLength(2);
    expect(await inPage(page(), `document.querySelector("#result").textContent`)).toBe("");
  });
});

describe("selfHeal: false", () => {
  const env = useModelService(() => ({ selfHeal: false, model: WIRES[0]!.model(world.fake) }));
  const page = () => env.svc.page;

  it.each(WIRES)("$label: the element error is thrown after one model call", async (wire) => {
    await page().goto(world.server.url("forms.html"));
    world.fake.script(chooseThenMutate(page, "button", "Submit", REPLACE_SUBMIT));
    const err = await env.svc.act("please click the Submit button", { model: wire.model(world.fake) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(ELEMENT_ERRORS).toContain((err as ServiceError).code);
    expect((err as Error).message).toMatch(/no element|removed/);
    expect(world.fake.requests).toHaveLength(1);
    expect(world.fake.requests[0]!.format).toBe(wire.format);
    // Nothing was clicked: the form was not submitted.
    expect(await inPage(page(), `document.querySelector("#result").textContent`)).toBe("");
    // The act is not in history as a success.
    const history = await env.svc.history;
    expect(history.filter((h) => h.method === "act")).toHaveLength(0);
  });
});

/** Waits for forms.html's #result (the submitted form's JSON) and returns it. */
async function expectResult(page: Page): Promise<string> {
  return waitFor(async () => (await inPage<string>(page, `document.querySelector("#result").textContent`)) || undefined);
}
