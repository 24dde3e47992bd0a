/**
 * Deterministic act() against real Chrome: every fixture page, every method, every way a selector can cross
 * iframes (same-origin and OOPIF) and shadow roots (open and closed). Each test checks the effect the page
 * shows (fixtures/pages/README.md), not just that act() returned.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { useFixtureServer } from "../support/use-resource.js";
import { action, textIn, useService, waitFor, waitForValue } from "../support/browser.js";
import type { Page } from "../../src/browser/page.js";

const server = useFixtureServer();

const env = useService();
const page = (): Page => env.svc.page;

async function open(path: string): Promise<void> {
  await page().goto(server.url(path));
}

/** Runs one action and checks the ActResult shape: success, and the action recorded as given. */
async function act(method: string, selector: string, args: string[] = []): Promise<void> {
  const a = action(method, selector, args);
  const res = await env.svc.act(a);
  expect(res.success).toBe(true);
  expect(res.actions).toHaveLength(1);
  expect(res.actions[0]).toEqual(a);
  expect(res.actionDescription).toBe(a.description);
}

/** Polls an element's text (in any frame) until it equals `expected`. */
async function expectText(selector: string, expected: string, frames: string[] = []): Promise<void> {
  expect(await waitForValue(() => textIn(page(), selector, frames), expected)).toBe(expected);
}

describe("forms.html", () => {
  beforeAll(() => open("forms.html"));

  it("fills text, email, password, textarea and contenteditable fields", async () => {
    await act("fill", "#name", ["Ada Lovelace"]);
    await expectText("#log", "name: Ada Lovelace");
    await act("fill", "#email", ["ada@example.com"]);
    await expectText("#log", "email: ada@example.com");
    await act("fill", "/html/body/form/p[3]/input", ["s3cret"]);
    await expectText("#log", "password: s3cret");
    await act("fill", "textarea#bio", ["Line one\nLine two"]);
    await act("fill", "#notes", ["Some notes"]);
    await expectText("#log", "notes: Some notes");
    // fill replaces, it does not append
    await act("fill", "#name", ["Ada King"]);
    expect(await page().locator("#name").inputValue()).toBe("Ada King");
  });

  it("checks a checkbox and a radio by clicking, picks a native option, submits", async () => {
    await act("click", "#subscribe");
    await expectText("#log", "subscribe: true");
    await act("click", "#plan-pro");
    await expectText("#log", "plan-pro: true");
    await act("selectOptionFromDropdown", "#country", ["France"]);
    await expectText("#log", "country: fr");
    await act("click", "#submit");
    const json = await waitFor(async () => (await textIn(page(), "#result")) || undefined);
    expect(JSON.parse(json)).toEqual({
      name: "Ada King",
      email: "ada@example.com",
      password: "s3cret",
      bio: "Line one\nLine two",
      subscribe: true,
      plan: "pro",
      country: "fr",
      notes: "Some notes",
    });
  });

  it("type appends key by key; press sends Enter, Tab and combinations", async () => {
    await open("forms.html");
    await act("type", "#name", ["Bob"]);
    await expectText("#log", "name: Bob");
    await act("press", "#name", ["!"]);
    expect(await page().locator("#name").inputValue()).toBe("Bob!");
    await act("press", "#name", ["Tab"]);
    expect(await waitForValue(() => page().evaluate(() => document.activeElement?.id), "email")).toBe("email");
    await act("press", "", ["Shift+Tab"]);
    expect(await waitForValue(() => page().evaluate(() => document.activeElement?.id), "name")).toBe("name");
    await act("press", "#name", ["Control+A"]);
    await act("press", "", ["Backspace"]);
    expect(await page().locator("#name").inputValue()).toBe("");
    await act("type", "#name", ["Eve"]);
    // Enter in a text field submits its form (implicit submission)
    await act("press", "#name", ["Enter"]);
    const json = await waitFor(async () => (await textIn(page(), "#result")) || undefined);
    expect(JSON.parse(json)).toMatchObject({ name: "Eve" });
  });
});

describe("dropdown.html", () => {
  beforeAll(() => open("dropdown.html"));

  it("selects a native option by visible text and by value", async () => {
    await act("selectOptionFromDropdown", "#color", ["Blue"]);
    await expectText("#result", "color: blue");
    await act("selectOptionFromDropdown", "#color", ["green"]);
    await expectText("#result", "color: green");
  });

  it("opens a custom listbox and clicks an option (two steps)", async () => {
    await act("click", "#custom-trigger");
    expect(await page().locator("#opt-banana").isVisible()).toBe(true);
    await act("click", "//li[@role='option'][normalize-space()='Banana']");
    await expectText("#result", "fruit: Banana");
    await expectText("#custom-value", "Banana");
  });
});

describe("iframes.html (same-origin and cross-origin)", () => {
  const same = ["iframe#same-frame"];
  const cross = ["iframe#cross-frame"];
  beforeAll(() => open("iframes.html"));

  it("clicks the main button", async () => {
    await act("click", "#main-button");
    await expectText("#result", "clicked: main-button");
  });

  it("reaches child button and input through XPath iframe steps", async () => {
    await act("click", "/html/body/iframe[1]/html/body/button");
    await expectText("#child-result", "clicked: child-button", same);
    await act("click", "/html/body/iframe[2]/html/body/button");
    await expectText("#child-result", "clicked: child-button", cross);
    await act("fill", "/html/body/iframe[2]/html/body/input", ["via xpath"]);
    await expectText("#child-result", "child-input: via xpath", cross);
    await act("fill", "xpath=//iframe[@id='same-frame']/html/body/input", ["same xpath"]);
    await expectText("#child-result", "child-input: same xpath", same);
  });

  it("reaches them through CSS >> hops", async () => {
    await act("fill", "iframe#same-frame >> #child-input", ["same css"]);
    await expectText("#child-result", "child-input: same css", same);
    await act("type", "#cross-frame >> #child-input", ["X"]);
    await expectText("#child-result", "child-input: via xpathX", cross);
    await act("click", "css=#cross-frame >> #child-button");
    await expectText("#child-result", "clicked: child-button", cross);
  });

  it("finds them by a deep CSS search (first frame in document order)", async () => {
    await act("fill", "#child-input", ["deep search"]);
    await expectText("#child-result", "child-input: deep search", same);
    expect(await textIn(page(), "#child-result", cross)).toBe("clicked: child-button");
    await page().deepLocator("#cross-frame >> input").fill("by locator");
    await expectText("#child-result", "child-input: by locator", cross);
  });
});

describe("nested.html (two cross-origin levels)", () => {
  const inner = ["#mid-frame", "#inner-frame"];
  beforeAll(() => open("nested.html"));

  it("acts in the top, middle and innermost frames", async () => {
    await act("click", "#top-button");
    await expectText("#result", "clicked: top-button");
    await act("click", "/html/body/iframe/html/body/button");
    await expectText("#mid-result", "clicked: mid-button", ["#mid-frame"]);
    await act("click", "/html/body/iframe/html/body/iframe/html/body/button");
    await expectText("#child-result", "clicked: child-button", inner);
    await act("fill", "#mid-frame >> #inner-frame >> #child-input", ["innermost"]);
    await expectText("#child-result", "child-input: innermost", inner);
    await act("fill", "#child-input", ["deep"]);
    await expectText("#child-result", "child-input: deep", inner);
  });
});

describe("OOPIF input after a layout shift", () => {
  it("clicks into a cross-origin frame right after a click that moved it", async () => {
    // #top-button writes its result inline before the iframe, pushing it right: input routed with the
    // geometry of the last rendered frame would miss the button.
    for (let i = 0; i < 5; i++) {
      await open("nested.html");
      await act("click", "#top-button");
      await act("click", "/html/body/iframe/html/body/button");
      await expectText("#mid-result", "clicked: mid-button", ["#mid-frame"]);
    }
  });
});

describe("shadow.html (open, closed, nested shadow roots)", () => {
  beforeAll(() => open("shadow.html"));

  it("uses #shadow-root XPath steps", async () => {
    await act("click", "/html/body/open-widget/#shadow-root/button");
    await expectText("#result", "clicked: open-button");
    await act("click", "/html/body/closed-widget/#shadow-root/button");
    await expectText("#result", "clicked: closed-button");
    await act("fill", "/html/body/closed-widget/#shadow-root/input", ["closed x"]);
    await expectText("#result", "closed-input: closed x");
    await act("click", "/html/body/deep-outer/#shadow-root/deep-inner/#shadow-root/button");
    await expectText("#result", "clicked: deep-button");
  });

  it("uses a deep CSS search and >> host hops", async () => {
    await act("click", "#deep-button");
    await expectText("#result", "clicked: deep-button");
    await act("click", "#closed-button");
    await expectText("#result", "clicked: closed-button");
    await act("fill", "#open-input", ["open y"]);
    await expectText("#result", "open-input: open y");
    await act("click", "#open-host >> #open-button");
    await expectText("#result", "clicked: open-button");
    await act("type", "#closed-host >> #closed-input", ["z"]);
    await expectText("#result", "closed-input: closed xz");
    await act("click", "#deep-outer-host >> #deep-inner-host >> button");
    await expectText("#result", "clicked: deep-button");
    await act("click", "#slotted-button");
    await expectText("#result", "clicked: slotted-button");
  });
});

describe("shadow-in-iframe.html (shadow roots inside an OOPIF)", () => {
  const frame = ["#shadow-page-frame"];
  beforeAll(() => open("shadow-in-iframe.html"));

  it("reaches open, closed and nested shadow content in the frame", async () => {
    await act("click", "/html/body/iframe/html/body/closed-widget/#shadow-root/button");
    await expectText("#result", "clicked: closed-button", frame);
    await act("click", "/html/body/iframe/html/body/deep-outer/#shadow-root/deep-inner/#shadow-root/button");
    await expectText("#result", "clicked: deep-button", frame);
    await act("fill", "#shadow-page-frame >> #open-host >> #open-input", ["framed"]);
    await expectText("#result", "open-input: framed", frame);
    await act("fill", "#closed-input", ["deep closed"]);
    await expectText("#result", "closed-input: deep closed", frame);
    await act("click", "#main-button");
    await expectText("#result", "clicked: main-button");
  });
});

describe("iframe-in-shadow.html (iframes inside open and closed shadow roots)", () => {
  const openFrame = ["#open-host", "#shadow-frame"];
  const closedFrame = ["#closed-host", "#closed-shadow-frame"];
  beforeAll(() => open("iframe-in-shadow.html"));

  it("reaches the iframe in the open shadow root", async () => {
    await act("click", "/html/body/div[1]/#shadow-root/iframe/html/body/button");
    await expectText("#child-result", "clicked: child-button", openFrame);
    await act("fill", "#open-host >> #shadow-frame >> #child-input", ["open shadow frame"]);
    await expectText("#child-result", "child-input: open shadow frame", openFrame);
  });

  it("reaches the cross-origin iframe in the CLOSED shadow root", async () => {
    await act("click", "/html/body/div[2]/#shadow-root/iframe/html/body/button");
    await expectText("#child-result", "clicked: child-button", closedFrame);
    await act("fill", "#closed-host >> iframe >> #child-input", ["closed shadow frame"]);
    await expectText("#child-result", "child-input: closed shadow frame", closedFrame);
  });
});

describe("popup.html (new tabs become pages)", () => {
  async function openedBy(selector: string): Promise<void> {
    await open("popup.html");
    const ctx = env.svc.context;
    const opener = page();
    const before = ctx.pages().length;
    await act("click", selector);
    await waitFor(() => ctx.pages().length === before + 1);
    const popup = ctx.pages().find((p) => !p.isClosed && p !== opener)!;
    expect(ctx.activePage()).toBe(popup);
    expect(page()).toBe(popup);
    await waitFor(() => popup.locator("#popup-button").isVisible());
    expect(popup.url()).toBe(server.url("popup-target.html"));
    await act("click", "#popup-button");
    expect(await waitForValue(() => popup.locator("#result").textContent(), "clicked: popup-button")).toBe("clicked: popup-button");
    expect(await opener.locator("#result").textContent()).toBe(`clicked: ${selector.slice(1)}`);
    await popup.close();
    await waitFor(() => ctx.pages().length === before);
    ctx.setActivePage(opener);
    expect(page()).toBe(opener);
  }

  it("a target=_blank link opens a page that becomes active", () => openedBy("#open-tab"));
  it("window.open opens a page that becomes active", () => openedBy("#open-popup"));
});

describe("settle.html", () => {
  beforeAll(() => open("settle.html"));

  it("act returns only after the request the click started has finished", async () => {
    await act("click", "#load-data");
    // Read once, no polling: settle must already have waited for /slow?ms=400.
    expect(await textIn(page(), "#result")).toBe("loaded");
  });

  it("act returns only after the request a hover started has finished (the read-back after the move flushes its events)", async () => {
    await act("hover", "#hover-load");
    expect(await textIn(page(), "#result")).toBe("hover loaded");
  });

  it("acts on an element that appears later", async () => {
    await act("click", "#add-later");
    await waitFor(() => page().locator("#added-button").isVisible());
    await act("click", "#added-button");
    await expectText("#result", "clicked: added-button");
  });
});

describe("hover.html", () => {
  beforeAll(() => open("hover.html"));

  it("hovers, double-clicks, opens a hover menu and clicks in it", async () => {
    await act("hover", "#hover-target");
    await expectText("#result", "hovered: hover-target");
    // Before the menu: leaving it re-hides it, which moves everything below (a layout shift mid-click).
    await act("doubleClick", "#dbl-target");
    await expectText("#result", "double-clicked: dbl-target");
    await act("hover", "#menu-button");
    await expectText("#result", "hovered: menu-button");
    expect(await page().locator("#hover-menu-link").isVisible()).toBe(true);
    await act("click", "#hover-menu-link");
    await expectText("#result", "clicked: hover-menu-link");
  });
});

describe("drag.html", () => {
  beforeAll(() => open("drag.html"));

  it("drags with HTML5 drag and drop", async () => {
    await act("dragAndDrop", "#drag-source", ["#drop-zone"]);
    await expectText("#result", "dropped: drag-source");
    expect(await page().evaluate(() => document.getElementById("drag-source")!.parentElement!.id)).toBe("drop-zone");
  });

  it("drags a mouse-event slider", async () => {
    await act("dragAndDrop", "#slider", ["#slider-track"]);
    // The track's centre is value 50.
    const value = Number(await waitFor(async () => ((await textIn(page(), "#slider-value")) === "0" ? undefined : textIn(page(), "#slider-value"))));
    expect(value).toBeGreaterThanOrEqual(45);
    expect(value).toBeLessThanOrEqual(55);
  });

  it("moves the slider with arrow keys", async () => {
    const before = Number(await textIn(page(), "#slider-value"));
    await act("press", "#slider", ["ArrowRight"]);
    await expectText("#result", `slider: ${Math.min(100, before + 10)}`);
  });
});

describe("scroll.html", () => {
  beforeAll(() => open("scroll.html"));
  const scrollY = () => page().evaluate(() => Math.round(window.scrollY));

  it("scrollTo / nextChunk / prevChunk on the page", async () => {
    const { max, inner } = await page().evaluate(() => ({
      max: document.documentElement.scrollHeight - window.innerHeight,
      inner: window.innerHeight,
    }));
    await act("scrollTo", "", ["50%"]);
    expect(Math.abs((await scrollY()) - max / 2)).toBeLessThanOrEqual(1);
    await expectText("#result", `scrollY: ${await scrollY()}`);
    await act("scrollTo", "/html", ["0%"]);
    expect(await scrollY()).toBe(0);
    await act("nextChunk", "");
    expect(await scrollY()).toBe(inner);
    await act("nextChunk", "/html/body");
    expect(await scrollY()).toBe(2 * inner);
    await act("prevChunk", "");
    expect(await scrollY()).toBe(inner);
    await expectText("#result", `scrollY: ${inner}`);
    await act("scrollTo", "", ["100%"]);
    expect(await scrollY()).toBe(max);
  });

  it("scrolls inside a scrollable box", async () => {
    const boxTop = () => page().evaluate(() => Math.round(document.getElementById("scroll-box")!.scrollTop));
    const { max, client } = await page().evaluate(() => {
      const b = document.getElementById("scroll-box")!;
      return { max: b.scrollHeight - b.clientHeight, client: b.clientHeight };
    });
    await act("scrollTo", "#scroll-box", ["100%"]);
    expect(await boxTop()).toBe(max);
    await expectText("#box-result", `box scrollTop: ${max}`);
    await act("scrollTo", "#scroll-box", ["0"]);
    expect(await boxTop()).toBe(0);
    await act("nextChunk", "#scroll-box");
    expect(await boxTop()).toBe(client);
    await act("prevChunk", "#scroll-box");
    expect(await boxTop()).toBe(0);
  });

  it("clicks a button scrolled out of view", async () => {
    await act("scrollTo", "", ["0%"]);
    await act("click", "#bottom");
    await expectText("#log", "clicked: bottom");
    await act("click", "#box-bottom");
    await expectText("#log", "clicked: box-bottom");
  });
});

describe("large.html (≥ 5,000 elements)", () => {
  beforeAll(() => open("large.html"));

  it("clicks the very last button", async () => {
    expect(await page().evaluate(() => document.querySelectorAll("*").length)).toBeGreaterThanOrEqual(5000);
    await act("click", "#last-button");
    await expectText("#result", "clicked: last-button");
    await act("click", "//button[text()='Edit item 600']");
    await expectText("#result", "clicked: row-600-button");
  });
});
