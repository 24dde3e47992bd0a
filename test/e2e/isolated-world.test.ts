/**
 * svc's page scripts run in an isolated world per frame: patched-dom.html breaks querySelector, document.evaluate,
 * getBoundingClientRect, getClientRects and elementFromPoint (also in a cross-origin frame), and act by CSS, XPath,
 * ref and instruction and extract still work, while a user's page.evaluate sees the patched globals. svc's remote
 * objects are released after each operation.
 */
import { describe, expect, it } from "vitest";
import { action, waitFor } from "../support/browser.js";
import { inPage, useModelService, useModelWorld, WIRES } from "../support/models.js";
import type { Page } from "../../src/browser/page.js";
import { callOn } from "../../src/browser/element.js";

const world = useModelWorld();
const env = useModelService(() => ({ model: WIRES[0]!.model(world.fake) }));
const page = (): Page => env.svc.page;
let visits = 0;

/** Evaluates in the cross-origin frame's own main world (raw CDP: nothing of svc's selector work). */
async function inFrame<R>(expression: string): Promise<R> {
  const frame = page().frames.all().find((f) => f.parentId);
  if (!frame || frame.contextId === undefined) throw new Error("the inner frame is not ready");
  const res = await frame.session.send("Runtime.evaluate", { expression, contextId: frame.contextId, returnByValue: true });
  return res.result.value as R;
}

/** Opens the page (a fresh query each time: no act cache across tests) and waits for its frame to be patched too. */
async function open(): Promise<void> {
  await page().goto(world.server.url(`patched-dom.html?visit=${++visits}`));
  await waitFor(() => inFrame<boolean>("window.__patched === true"));
}

/** The result line, read with the page's own getElementById (untouched by the patches). */
const RESULT = `document.getElementById("result").textContent`;
const result = (frame?: "inner") => (frame ? inFrame<string>(RESULT) : inPage<string>(page(), RESULT));

describe("a page that breaks querySelector, evaluate and getBoundingClientRect", () => {
  it("the page's main world really is broken (what a user's page.evaluate sees)", async () => {
    await open();
    expect(await inPage(page(), "window.__patched")).toBe(true);
    expect(await inPage(page(), `document.querySelector("#save")`)).toBe(null);
    expect(await inPage(page(), `(() => { try { document.evaluate("//button", document); return "ok"; } catch (e) { return e.message; } })()`)).toBe("evaluate is disabled on this page");
    expect(await inPage(page(), `document.getElementById("save").getBoundingClientRect().x`)).toBe(-10000);
  });

  it("act(action) by CSS: fill and click", async () => {
    await open();
    expect((await env.svc.act(action("fill", "#name", ["Ada"]))).success).toBe(true);
    expect(await result()).toBe("name: Ada");
    await env.svc.act(action("click", "#save"));
    expect(await result()).toBe("clicked: save");
  });

  it("act(action) by XPath, in the page and in its cross-origin frame", async () => {
    await open();
    await env.svc.act(action("click", "/html/body/div/button"));
    expect(await result()).toBe("clicked: deep");
    await env.svc.act(action("click", "/html/body/p[5]/iframe/html/body/p[3]/button[1]"));
    expect(await result("inner")).toBe("clicked: save");
    await env.svc.act(action("click", "iframe#inner >> #deep"));
    expect(await result("inner")).toBe("clicked: deep");
  });

  it("act(action) by ref from extract()'s snapshot", async () => {
    await open();
    const { pageText } = (await env.svc.extract()) as { pageText: string };
    const ref = /^\s*\[?(e\d+)\]? button Deep action$/m.exec(pageText)?.[1];
    expect(ref, pageText).toBeDefined();
    const res = await env.svc.act(action("click", ref!));
    expect(res.success).toBe(true);
    expect(res.actions[0]!.selector).toBe("xpath=/html/body/div/button");
    expect(await result()).toBe("clicked: deep");
  });

  it("act(instruction) through the fake model, and extract(instruction)", async () => {
    await open();
    const res = await env.svc.act("please click the Save button");
    expect(res.success).toBe(true);
    expect(await result()).toBe("clicked: save");
    const { extraction } = (await env.svc.extract("what is the page's heading?")) as { extraction: unknown };
    expect(extraction).toBeDefined();
    expect(world.fake.requestsFor("extract")).toHaveLength(1);
    // Still the page's own world for page.evaluate, after svc did its work.
    expect(await inPage(page(), `document.querySelector("h1")`)).toBe(null);
  });

  it("locator reads (textContent, inputValue, isVisible) use the isolated world too", async () => {
    await open();
    await page().locator("#name").fill("Grace");
    expect(await page().locator("#name").inputValue()).toBe("Grace");
    expect(await page().locator("xpath=//h1").textContent()).toBe("Patched DOM");
    expect(await page().locator("#save").isVisible()).toBe(true);
  });
});

describe("remote objects", () => {
  it("the objects svc creates for an operation are released after it", async () => {
    await open();
    // Record every remote object svc's element work creates on the page's main session.
    const session = page().mainSession;
    const created: string[] = [];
    const send = session.send.bind(session);
    (session as { send: unknown }).send = async (method: string, params?: object) => {
      const res = (await (send as (m: string, p?: object) => Promise<unknown>)(method, params)) as Record<string, { objectId?: string } | undefined>;
      const id = method === "DOM.resolveNode" ? res.object?.objectId : method === "Runtime.callFunctionOn" ? res.result?.objectId : undefined;
      if (id) created.push(id);
      return res;
    };
    try {
      for (let i = 0; i < 5; i++) {
        await env.svc.act(action("click", i % 2 ? "#save" : "/html/body/div/button"));
        await page().locator("#name").fill(`n${i}`);
        expect(await page().locator("#more").textContent()).toBe("More info");
      }
    } finally {
      (session as { send: unknown }).send = send;
    }
    expect(created.length).toBeGreaterThanOrEqual(15);
    const alive = async (objectId: string) =>
      session.send("Runtime.getProperties", { objectId, ownProperties: true }).then(
        () => true,
        () => false,
      );
    await waitFor(async () => (await Promise.all(created.map(alive))).every((a) => !a));
  });

  it("a handle kept past the operation that made it is looked up again, not failed", async () => {
    await open();
    const kept = await page().locator("#more").resolve();
    await page().locator("#name").fill("released"); // ends an operation: the group, kept's object with it, is released
    await waitFor(async () =>
      page().mainSession.send("Runtime.getProperties", { objectId: kept.objectId }).then(
        () => false,
        () => true,
      ),
    );
    expect(await callOn<string>(kept, function (this: Element) {
      return this.textContent;
    })).toBe("More info");
  });
});
