/**
 * The `page` option with another library's page, and the older page.act/extract/observe (docs/wire-formats.md
 * "Library operations"). A Playwright page of svc's own browser is worked on through its CDP target even when not
 * svc's active page; a page of another browser, or a non-page, is a typed error naming what is accepted, never a
 * TypeError.
 */
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceInvalidArgumentError } from "../../src/errors.js";
import { CHROMIUM, action, launchedOf } from "../support/browser.js";
import { inPage, useModelService, useModelWorld, WIRES } from "../support/models.js";
import { launchOwnChrome } from "../support/shared-chrome.js";

// Playwright connects to this file's own Chrome (launchedOf), and a Playwright page is made the Service's.
launchOwnChrome();

const world = useModelWorld();
const env = useModelService(() => ({ model: WIRES[0]!.model(world.fake) }));

let pw: Browser;
beforeAll(async () => {
  pw = await chromium.connectOverCDP(launchedOf(env.svc).wsEndpoint);
});
afterAll(async () => {
  await pw?.close().catch(() => {});
});

describe("options.page with a Playwright page", () => {
  it("act, extract and observe run on that page's tab, not on svc's active page", async () => {
    const pwPage = await pw.contexts()[0]!.newPage();
    await pwPage.goto(world.server.url("forms.html"));
    // svc's active page is now another tab.
    const other = await env.svc.context.newPage(world.server.url("iframes.html"));
    expect(env.svc.page).toBe(other);

    const acted = await env.svc.act(action("fill", "#name", ["Ada"]), { page: pwPage });
    expect(acted.success).toBe(true);
    expect(await pwPage.inputValue("#name")).toBe("Ada");

    const text = (await env.svc.extract({ page: pwPage })) as { pageText: string };
    expect(text.pageText).toContain("Full name");

    await env.svc.observe("find the Email field", { page: pwPage });
    expect(world.fake.requestsFor("observe")[0]!.url).toBe(world.server.url("forms.html"));
    expect(env.svc.page).toBe(other);
    await pwPage.close();
  });

  it("a Playwright page of another browser: a typed error saying what is accepted", async () => {
    const elsewhere = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: process.getuid?.() === 0 ? ["--no-sandbox"] : [] });
    try {
      const foreign = await elsewhere.newPage();
      const err = await env.svc.act(action("click", "body"), { page: foreign }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServiceInvalidArgumentError);
      expect((err as Error).message).toMatch(/options\.page: that Playwright page is not a tab of this Service's browser/);
    } finally {
      await elsewhere.close();
    }
  });

  it("anything else is a typed error naming the accepted pages, never a TypeError", async () => {
    for (const bad of [{}, "page", { goto: () => {} }, 42]) {
      for (const call of [
        () => env.svc.act(action("click", "body"), { page: bad as object }),
        () => env.svc.extract("the title", { page: bad as object }),
        () => env.svc.observe("anything", { page: bad as object }),
      ]) {
        const err = await call().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ServiceInvalidArgumentError);
        expect((err as Error).message).toMatch(/^options\.page: expected svc's own page .*a Playwright page or a Puppeteer page/);
      }
    }
  });
});

describe("page.act / page.extract / page.observe (older generation)", () => {
  it("run the Service's operations on that page", async () => {
    const page = await env.svc.context.newPage(world.server.url("forms.html"));
    const other = await env.svc.context.newPage(world.server.url("iframes.html"));
    expect(env.svc.page).toBe(other);

    const acted = (await page.act(action("fill", "#email", ["ada@example.com"]))) as { success: boolean };
    expect(acted.success).toBe(true);
    expect(await inPage(page, `document.querySelector("#email").value`)).toBe("ada@example.com");

    const text = (await page.extract()) as { pageText: string };
    expect(text.pageText).toContain("Full name");

    world.fake.reset();
    const observed = (await page.observe("find the Email field")) as unknown[];
    expect(Array.isArray(observed)).toBe(true);
    expect(world.fake.requestsFor("observe")[0]!.url).toBe(world.server.url("forms.html"));

    world.fake.script(() => ({ extraction: "Forms" }));
    const answer = await page.extract("the page heading");
    expect(answer).toEqual({ extraction: "Forms" });
    expect(world.fake.requestsFor("extract")[0]!.url).toBe(world.server.url("forms.html"));
  });
});
