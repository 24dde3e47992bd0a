/**
 * fetchPage with a real Chrome: a page that builds itself with JavaScript after load has its content
 * only when rendered; the one-shot Chrome of `browser: true` is gone afterwards, also on abort and
 * timeout; a page you hold renders through `pageRenderer`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ServiceAbortedError, ServiceFetchError, ServiceInvalidArgumentError, ServiceTimeoutError } from "../../src/errors.js";
import { fetchPage, pageRenderer, renderInBrowser } from "../../src/fetch/index.js";
import { CHROMIUM, useService } from "../support/browser.js";
import { chromeProcessesOf, expectNoChrome, markTmpdir } from "../support/process.js";
import { type FixtureServer, startFixtureServer } from "../support/server.js";

let server: FixtureServer;
beforeAll(async () => {
  process.env.CHROME_PATH ??= CHROMIUM;
  server = await startFixtureServer();
});
afterAll(async () => {
  await server?.close();
});

/** Each test's one-shot Chrome is marked with a TMPDIR of its own: what is left is findable. */
let tmp: string;
let restoreTmp = (): void => {};
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), "svc-fetch-e2e-"));
  restoreTmp = markTmpdir(tmp);
});
afterEach(async () => {
  restoreTmp();
  await expectNoChrome(tmp);
  rmSync(tmp, { recursive: true, force: true });
});

describe("browser: true (a one-shot Chrome)", () => {
  it("gets the content a script renders after load, which a plain fetch does not see", async () => {
    const url = server.url("fetch/js-rendered.html");
    const plain = await fetchPage(url);
    expect(plain.content).toContain("Loading…");
    expect(plain.content).not.toContain("Rendered headline");

    const rendered = await fetchPage(url, { browser: true });
    expect(rendered.content).toContain("## Rendered headline");
    expect(rendered.content).toContain("The script rendered this paragraph after load, with data from the server: hello from data.json.");
    expect(rendered.content).toContain("- first item\n- second item\n- third item");
    expect(rendered.content).not.toContain("Loading…");
    expect(rendered).toMatchObject({ url, statusCode: 200, encoding: "utf-8", headers: {}, title: "Rendered by script" });
    expect(rendered.contentType).toMatch(/^text\/html/);

    const html = await fetchPage(url, { browser: true, format: "html" });
    expect(html.content).toMatch(/^<!DOCTYPE html>\n<html/);
    expect(html.content).toContain("<h1>Rendered headline</h1>");
  });

  it("refuses a non-HTML document (and closes Chrome)", async () => {
    const e = await fetchPage(server.url("fetch/data.json"), { browser: true, format: "raw" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServiceFetchError);
    expect((e as Error).message).toMatch(/data\.json is application\/json, not HTML/);
  });

  it("closes Chrome when aborted mid-render", async () => {
    const controller = new AbortController();
    const pending = fetchPage(server.url("/slow?ms=20000"), { browser: true, signal: controller.signal });
    // Abort once Chrome is up (marked with this test's TMPDIR).
    const deadline = Date.now() + 20_000;
    while (chromeProcessesOf(tmp).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(chromeProcessesOf(tmp).length).toBeGreaterThan(0);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(ServiceAbortedError);
  });

  it("times out with ServiceTimeoutError and closes Chrome", async () => {
    const t0 = Date.now();
    const e = await fetchPage(server.url("/slow?ms=20000"), { browser: true, timeoutMs: 4000 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServiceTimeoutError);
    expect(Date.now() - t0).toBeLessThan(15_000);
  });

  it("the host policy is asked before Chrome starts", async () => {
    const e = await fetchPage(server.url("fetch/js-rendered.html"), { browser: true, refuseHost: (host) => `not ${host}` }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServiceInvalidArgumentError);
    expect((e as Error).message).toMatch(/refused: not localhost/);
    expect(chromeProcessesOf(tmp)).toEqual([]);
  });

  it("renderInBrowser alone gives the serialized document", async () => {
    const page = await renderInBrowser(server.url("fetch/js-rendered.html"), { timeoutMs: 30_000 });
    expect(page.html).toContain("Rendered headline");
    expect(page.statusCode).toBe(200);
  });
});

describe("pageRenderer (a page you hold)", () => {
  const s = useService();

  it("renders through the page, which stays open and usable", async () => {
    const url = server.url("fetch/js-rendered.html");
    const r = await fetchPage(url, { browser: pageRenderer(s.svc.page), format: "text" });
    expect(r.content).toContain("Rendered headline\n\nThe script rendered this paragraph");
    expect(r.content).toContain("- second item");
    expect(s.svc.page.url()).toBe(url);
    expect(await s.svc.page.evaluate(() => document.querySelectorAll("li").length)).toBe(3);
  });

  it("a browser follows redirects itself: allowRedirects false is refused", async () => {
    await expect(fetchPage(server.url("fetch/article.html"), { browser: pageRenderer(s.svc.page), allowRedirects: false })).rejects.toThrow(/a browser always follows redirects/);
  });
});
