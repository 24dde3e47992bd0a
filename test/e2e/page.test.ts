/**
 * The page and context API (docs/wire-formats.md "Library operations"), history and metrics records, and the browser
 * lifecycle of close(): default (kill Chrome, delete the profile) and keepAlive (leave it for a reattach).
 */
import { pidAlive } from "../support/process.js";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useFixtureServer } from "../support/use-resource.js";
import { action, launchedOf, makeService, textIn, useService, waitFor } from "../support/browser.js";
import { ServiceElementNotFoundError, ServiceEvalError } from "../../src/errors.js";
import { devtoolsJson } from "../../src/util/devtools-socket.js";
import type { Service } from "../../src/service.js";
import type { InitResult } from "../../src/backend.js";

const server = useFixtureServer();

const env = useService();

describe("context", () => {
  it("newPage / pages / activePage / setActivePage", async () => {
    const ctx = env.svc.context;
    const first = ctx.activePage()!;
    expect(ctx.pages()).toContain(first);
    const before = ctx.pages().length;
    const second = await ctx.newPage(server.url("forms.html"));
    expect(ctx.pages()).toHaveLength(before + 1);
    expect(ctx.activePage()).toBe(second);
    expect(env.svc.page).toBe(second);
    expect(await second.title()).toBe("Forms");
    ctx.setActivePage(first);
    expect(env.svc.page).toBe(first);
    // act() runs on the active page
    await first.goto(server.url("iframes.html"));
    await env.svc.act(action("click", "#main-button"));
    expect(await textIn(first, "#result")).toBe("clicked: main-button");
    expect(await textIn(second, "#result")).toBe("");
    // …or on the page it is given
    await env.svc.act(action("fill", "#name", ["Given page"]), { page: second });
    expect(await second.locator("#name").inputValue()).toBe("Given page");
    await second.close();
    await waitFor(() => ctx.pages().length === before);
    expect(second.isClosed).toBe(true);
    expect(ctx.pages()).not.toContain(second);
    expect(() => ctx.setActivePage(second)).toThrow();
    expect(env.svc.page).toBe(first);
  });
});

describe("navigation and inspection", () => {
  it("goto returns the final URL and status; url() and title()", async () => {
    const page = env.svc.page;
    expect(await page.goto(server.url("forms.html"))).toEqual({ url: server.url("forms.html"), status: 200 });
    expect(page.url()).toBe(server.url("forms.html"));
    expect(await page.title()).toBe("Forms");
    const redirected = await page.goto(server.url("/redirect?to=/dropdown.html"));
    expect(redirected.url).toBe(server.url("dropdown.html"));
    expect(await page.title()).toBe("Dropdowns");
    const missing = await page.goto(server.url("no-such-page.html"));
    expect(missing.status).toBe(404);
    // a bare host is accepted
    await page.goto(`localhost:${server.port}/forms.html`);
    expect(page.url()).toBe(server.url("forms.html"));
  });

  it("the frame tree follows navigations (no frames of the previous document linger)", async () => {
    const page = env.svc.page;
    const urls = () => page.frames.ordered().map((f) => f.url);
    await page.goto(server.url("iframes.html"));
    expect(urls()).toEqual([server.url("iframes.html"), server.url("frame-child.html"), server.url("frame-child.html", "127.0.0.1")]);
    await page.goto(server.url("nested.html"));
    expect(urls()).toEqual([server.url("nested.html"), server.url("nested-mid.html", "127.0.0.1"), server.url("frame-child.html")]);
    await page.goto(server.url("forms.html"));
    expect(urls()).toEqual([server.url("forms.html")]);
    expect(page.frames.ordered().every((f) => !f.session.closed)).toBe(true);
  });

  it("goto waits for load: a slow page is there when it returns", async () => {
    const page = env.svc.page;
    await page.goto(server.url("/slow?ms=300"));
    expect(await page.evaluate(() => document.getElementById("slow")?.textContent)).toBe("waited 300 ms");
  });

  it("reload, goBack, goForward", async () => {
    const page = env.svc.page;
    await page.goto(server.url("forms.html"));
    await page.goto(server.url("dropdown.html"));
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    await page.reload();
    expect(page.url()).toBe(server.url("dropdown.html"));
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker ?? null)).toBeNull();
    expect(await page.goBack()).toBe(true);
    expect(page.url()).toBe(server.url("forms.html"));
    expect(await page.title()).toBe("Forms");
    expect(await page.goForward()).toBe(true);
    expect(page.url()).toBe(server.url("dropdown.html"));
    expect(await page.title()).toBe("Dropdowns");
    expect(await page.goForward()).toBe(false);
  });

  it("screenshot returns a PNG; fullPage covers the whole scrollable page", async () => {
    const page = env.svc.page;
    await page.goto(server.url("scroll.html"));
    const png = await page.screenshot();
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const size = (b: Buffer) => ({ width: b.readUInt32BE(16), height: b.readUInt32BE(20) });
    const { innerWidth, innerHeight, scrollHeight } = await page.evaluate(() => ({
      innerWidth: window.innerWidth,
      innerHeight: window.innerHeight,
      scrollHeight: document.documentElement.scrollHeight,
    }));
    expect(size(png)).toEqual({ width: innerWidth, height: innerHeight });
    const full = await page.screenshot({ fullPage: true });
    expect([...full.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect(size(full).height).toBeGreaterThan(innerHeight);
    expect(size(full).height).toBe(scrollHeight);
    const jpeg = await page.screenshot({ type: "jpeg", quality: 50 });
    expect([...jpeg.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
  });

  it("capture: a full page 3000 px tall is 2000 px long with its scale (maxSize 0: full size); ifChanged answers unchanged until the page changes", async () => {
    const page = env.svc.page;
    await page.goto(server.url("tall.html"));
    const shot = await page.capture({ fullPage: true });
    if (shot.unchanged) throw new Error("expected a picture");
    const real = { width: shot.data.readUInt32BE(16), height: shot.data.readUInt32BE(20) };
    expect(real).toEqual({ width: shot.width, height: shot.height });
    expect(Math.max(real.width, real.height)).toBeLessThanOrEqual(2000);
    expect(real.height).toBeGreaterThanOrEqual(1999);
    expect(shot).toMatchObject({ scale: 0.6667, scaled: true });
    expect(await page.capture({ fullPage: true, ifChanged: true })).toEqual({ unchanged: true });
    await page.evaluate(() => void (document.getElementById("band")!.style.background = "red"));
    expect((await page.capture({ fullPage: true, ifChanged: true })).unchanged).toBe(false);
    const full = await page.capture({ fullPage: true, maxSize: 0 });
    expect(full).toMatchObject({ height: 3000, scale: 1, scaled: false });
    await expect(page.capture({ maxSize: 99 })).rejects.toThrow(/invalid maxSize: expected 0 \(full size\)/);
  });

  it("evaluate: expressions, functions with an argument, promises; a throw → ServiceEvalError", async () => {
    const page = env.svc.page;
    await page.goto(server.url("forms.html"));
    expect(await page.evaluate("1 + 2")).toBe(3);
    expect(await page.evaluate((arg: { a: number; s: string }) => `${arg.s}:${arg.a * 2}`, { a: 21, s: "x" })).toBe("x:42");
    expect(await page.evaluate(async () => new Promise((r) => setTimeout(() => r(document.title), 10)))).toBe("Forms");
    expect(await page.evaluate(() => ({ list: [1, "two", null], nested: { ok: true } }))).toEqual({ list: [1, "two", null], nested: { ok: true } });
    await expect(page.evaluate(() => { throw new Error("boom in page"); })).rejects.toThrow(ServiceEvalError);
    await expect(page.evaluate(() => { throw new Error("boom in page"); })).rejects.toThrow(/boom in page/);
    await expect(page.evaluate("no_such_variable.x")).rejects.toThrow(ServiceEvalError);
    await expect(page.evaluate(async () => Promise.reject(new Error("async boom")))).rejects.toThrow(/async boom/);
  });
});

describe("input and locators", () => {
  it("click(x, y), type, keyPress", async () => {
    const page = env.svc.page;
    await page.goto(server.url("forms.html"));
    const box = await page.evaluate(() => {
      const r = document.getElementById("name")!.getBoundingClientRect();
      return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
    });
    await page.click(box.x, box.y);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("name");
    await page.type("Typed text");
    expect(await page.locator("#name").inputValue()).toBe("Typed text");
    await page.keyPress("Backspace");
    expect(await page.locator("#name").inputValue()).toBe("Typed tex");
    await page.keyPress("Tab");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("email");
    await page.keyPress("Enter"); // implicit submission from the email field
    expect(JSON.parse(await textIn(page, "#result"))).toMatchObject({ name: "Typed tex" });
  });

  it("locator stays in the main document; deepLocator crosses iframes and shadow roots", async () => {
    const page = env.svc.page;
    await page.goto(server.url("iframes.html"));
    expect(await page.locator("#main-button").textContent()).toBe("Main button");
    expect(await page.locator("//button[@id='main-button']").isVisible()).toBe(true);
    await expect(page.locator("#child-button").textContent()).rejects.toThrow(ServiceElementNotFoundError);
    expect(await page.locator("/html/body/iframe[2]/html/body/button").textContent()).toBe("Child button");
    expect(await page.deepLocator("#child-button").textContent()).toBe("Child button");
    expect(await page.deepLocator("#cross-frame >> #child-button").textContent()).toBe("Child button");
    expect(await page.locator("#nope").isVisible()).toBe(false);
    await page.deepLocator("#cross-frame >> #child-input").fill("located");
    expect(await page.deepLocator("#cross-frame >> #child-input").inputValue()).toBe("located");
    await page.deepLocator("#cross-frame >> #child-button").click();
    expect(await textIn(page, "#child-result", ["#cross-frame"])).toBe("clicked: child-button");
  });

  it("locator.xpath() gives a deep XPath that replays through act()", async () => {
    const page = env.svc.page;
    const cases: Array<[string, string, string, string[]]> = [
      ["iframes.html", "#cross-frame >> #child-button", "#child-result", ["#cross-frame"]],
      ["shadow.html", "#closed-button", "#result", []],
      ["shadow.html", "#deep-button", "#result", []],
      ["shadow-in-iframe.html", "#shadow-page-frame >> #closed-host >> #closed-button", "#result", ["#shadow-page-frame"]],
      ["iframe-in-shadow.html", "#closed-host >> iframe >> #child-button", "#child-result", ["#closed-host", "iframe"]],
    ];
    for (const [file, css, out, frames] of cases) {
      await page.goto(server.url(file));
      const xpath = await page.deepLocator(css).xpath();
      expect(xpath, css).toMatch(/^xpath=\//);
      const res = await env.svc.act(action("click", xpath));
      expect(res.success).toBe(true);
      expect(await waitFor(async () => (await textIn(page, out, frames)).startsWith("clicked:"))).toBe(true);
    }
  });
});

describe("history and metrics", () => {
  it("metrics has the documented 25 counters, all zero with no model", async () => {
    const metrics = (await env.svc.metrics) as unknown as Record<string, number>;
    const keys = ["act", "extract", "observe", "agent", "total"].flatMap((op) =>
      ["PromptTokens", "CompletionTokens", "ReasoningTokens", "CachedInputTokens", "InferenceTimeMs"].map((f) => `${op}${f}`),
    );
    expect(Object.keys(metrics).sort()).toEqual(keys.sort());
    for (const k of keys) expect(metrics[k], k).toBe(0);
  });

  it("local runs have no cloud session ids", () => {
    expect(env.svc.browserbaseSessionID).toBeUndefined();
    expect(env.svc.browserbaseSessionURL).toBeUndefined();
    expect(env.svc.browserbaseDebugURL).toBeUndefined();
  });
});

describe("a new Service: history, then close()", () => {
  // One launched Service: its history starts empty (the file's shared one has a history of its own), and
  // closing it is what the second test checks.
  let svc: Service | undefined;
  let init: InitResult | undefined;
  beforeAll(async () => {
    svc = makeService();
    init = await svc.init();
  });
  afterAll(async () => {
    await svc?.close({ force: true });
  });

  it("history records navigate and act entries in order", async () => {
    const fresh = svc!;
    expect(await fresh.history).toEqual([]);
    await fresh.page.goto(server.url("iframes.html"));
    const a = action("click", "#main-button");
    const res = await fresh.act(a);
    await fresh.extract();
    const history = await fresh.history;
    expect(history.map((h) => h.method)).toEqual(["navigate", "act", "extract"]);
    expect(history[0]).toMatchObject({ method: "navigate", parameters: { url: server.url("iframes.html") } });
    expect(history[1]).toMatchObject({ method: "act", parameters: { action: a }, result: res });
    for (const h of history) expect(new Date(h.timestamp).toISOString()).toBe(h.timestamp);
    // a read-only copy: changing it changes nothing
    expect(() => (history as unknown as unknown[]).push({})).toThrow();
    expect(await fresh.history).toHaveLength(3);
  });

  it("close() ends Chrome and deletes the temporary profile", async () => {
    const closing = svc!;
    // Chrome has no TCP port: its endpoint is a unix socket only this user reaches.
    expect(init!.sessionUrl).toMatch(/^ws\+unix:\/\/\/.+\/devtools\.sock:\/devtools\/browser\//);
    expect(init!.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const { pid, userDataDir } = launchedOf(closing);
    expect(pidAlive(pid)).toBe(true);
    expect(existsSync(userDataDir)).toBe(true);
    await closing.close();
    await waitFor(() => !pidAlive(pid));
    expect(existsSync(userDataDir)).toBe(false);
    await closing.close(); // twice is fine
  });
});

describe("close() with keepAlive", () => {

  it("keepAlive leaves Chrome running for another Service to attach; close({force}) ends it", async () => {
    const first = makeService({ keepAlive: true });
    const { sessionUrl } = await first.init();
    const { pid, userDataDir } = launchedOf(first);
    try {
      await first.page.goto(server.url("forms.html"));
      await first.close();
      expect(pidAlive(pid)).toBe(true);
      expect((await devtoolsJson(launchedOf(first).socketPath, "/json/version")).status).toBe(200);

      // attach, act, and disconnect only (an attached browser is not ours to end)
      const second = makeService({ localBrowserLaunchOptions: { cdpUrl: sessionUrl } });
      await second.init();
      expect(second.page.url()).toBe(server.url("forms.html"));
      await second.act(action("fill", "#name", ["attached"]));
      expect(await second.page.locator("#name").inputValue()).toBe("attached");
      await second.close();
      expect(pidAlive(pid)).toBe(true);

      const third = makeService({ localBrowserLaunchOptions: { cdpUrl: sessionUrl } });
      await third.init();
      expect(await third.page.locator("#name").inputValue()).toBe("attached");
      await third.close({ force: true });
      await waitFor(() => !pidAlive(pid));
      // the reaper deletes the profile svc created once Chrome is gone
      await waitFor(() => !existsSync(userDataDir));
    } finally {
      if (pidAlive(pid)) process.kill(pid, "SIGKILL");
    }
  });
});
