/**
 * Navigation, waits, tabs and habits through the built CLI on one live session against the fixture pages:
 * goto (URLs as typed, --wait-until, the status of a 404 page), back/forward/reload, eval, wait (element,
 * ref, text, URL, load, ms; TIMEOUT exit 7), tabs with numbers that stay put and a selection later
 * commands follow, and screenshot without -o.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { closedPort } from "../support/search-stub.js";
import { BIN, collect, expectOneLine, json, svc, useCliWorld } from "./helpers.js";

/** `localhost:PORT`, as a person types it (no scheme). */
let hostPort: string;

const world = useCliWorld({ session: true });
beforeAll(async () => {
  hostPort = new URL(world.server.url("forms.html")).host;
});


const run = (args: readonly string[]) => svc(args, world.sb.env);

describe("svc goto", () => {
  it("takes localhost:PORT/path without a scheme, and --wait-until", async () => {
    const r = await run(["--json", "goto", `${hostPort}/forms.html`, "--wait-until", "domcontentloaded", "--timeout", "20000"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(json(r.stdout)).toMatchObject({ schemaVersion: 1, ok: true, url: world.server.url("forms.html"), title: "Forms", status: 200 });
  });

  it("a 404 page loads (exit 0) and the text output says its status", async () => {
    const r = await run(["goto", world.server.url("no-such-page.html")]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/no-such-page\.html.*\(HTTP 404\)/);
    const j = await run(["--json", "goto", world.server.url("no-such-page.html")]);
    expect(json(j.stdout)).toMatchObject({ ok: true, status: 404 });
  });

  it("a failed goto (refused connection) exits 5 and leaves the tab where it was, not on Chrome's error page", async () => {
    expect((await run(["goto", world.server.url("forms.html")])).code).toBe(0);
    const port = await closedPort();
    const failed = await run(["goto", `http://127.0.0.1:${port}/`]);
    expect(failed.code).toBe(5);
    expect(expectOneLine(failed.stderr)).toMatch(/ERR_CONNECTION_REFUSED/);
    const url = await run(["get", "url"]);
    expect(url.stdout.trim()).toBe(world.server.url("forms.html"));
    const snap = await run(["snapshot", "-i"]);
    expect(snap.stdout).toContain("Full name");
    expect(snap.stdout).not.toMatch(/Reload|ERR_CONNECTION_REFUSED/);
  }, 60_000);

  it("--tab N navigates tab N and leaves the selected tab where it was", async () => {
    expect((await run(["goto", world.server.url("forms.html")])).code).toBe(0);
    const home = json<{ selected: number }>((await run(["--json", "tabs"])).stdout).selected;
    const other = json<{ selected: number }>((await run(["--json", "tabs", "new", world.server.url("steps.html")])).stdout).selected;
    const r = await run(["--json", "goto", `${hostPort}/popup.html`, "--tab", String(home)]);
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout)).toMatchObject({ ok: true, url: world.server.url("popup.html"), status: 200 });
    expect((await run(["eval", "location.pathname"])).stdout.trim()).toBe('"/steps.html"');
    const tabs = json<{ selected: number; tabs: Array<{ id: number; url: string }> }>((await run(["--json", "tabs"])).stdout);
    expect(tabs.selected).toBe(other);
    expect(tabs.tabs.find((t) => t.id === home)?.url).toBe(world.server.url("popup.html"));
    expect((await run(["tabs", "close"])).code).toBe(0);
  });

  it("refuses a bad --wait-until and a bare word (exit 2)", async () => {
    const bad = await run(["goto", world.server.url("forms.html"), "--wait-until", "soon"]);
    expect(bad.code).toBe(2);
    expect(expectOneLine(bad.stderr)).toMatch(/wait-until/);
    const word = await run(["goto", "readme"]);
    expect(word.code).toBe(2);
    expect(expectOneLine(word.stderr)).toMatch(/invalid URL "readme"/);
  });
});

describe("svc back / forward / reload / eval", () => {
  it("moves through the tab's history and evaluates in the page", async () => {
    expect((await run(["goto", world.server.url("forms.html")])).code).toBe(0);
    expect((await run(["goto", world.server.url("steps.html")])).code).toBe(0);
    const back = await run(["--json", "back"]);
    expect(back.code, back.stderr).toBe(0);
    expect(json(back.stdout)).toMatchObject({ ok: true, url: world.server.url("forms.html"), title: "Forms" });
    const fwd = await run(["forward"]);
    expect(fwd.code).toBe(0);
    expect(fwd.stdout).toContain(world.server.url("steps.html"));
    // reload wipes what a script left in the page
    expect((await run(["eval", "window.__mark = 7"])).stdout.trim()).toBe("7");
    expect((await run(["reload"])).code).toBe(0);
    expect((await run(["eval", "typeof window.__mark"])).stdout.trim()).toBe('"undefined"');

    const value = await run(["--json", "eval", "({ n: 1 + 2, list: [document.title.length > 0, 'x'] })"]);
    expect(json(value.stdout)).toMatchObject({ ok: true, result: { n: 3, list: [true, "x"] } });
    const awaited = await run(["eval", "new Promise((r) => setTimeout(() => r('later'), 50))"]);
    expect(awaited.stdout.trim()).toBe('"later"');
  });

  it("back with nowhere to go is a navigation error (exit 5), not a silent no-op", async () => {
    const opened = json<{ selected: number }>((await run(["--json", "tabs", "new"])).stdout);
    const r = await run(["back"]);
    expect(r.code).toBe(5);
    expect(expectOneLine(r.stderr)).toMatch(/back: no previous page/);
    expect((await run(["tabs", "close", String(opened.selected)])).code).toBe(0);
  });

  it("a page exception is one clear error line (exit 1, code EVAL_FAILED)", async () => {
    const r = await run(["eval", "notDefinedAnywhere()"]);
    expect(r.code).toBe(1);
    expect(expectOneLine(r.stderr)).toMatch(/eval: the page threw ReferenceError: notDefinedAnywhere is not defined/);
    const j = await run(["--json", "eval", "throw new Error('boom')"]);
    expect(json(j.stdout)).toMatchObject({ ok: false, error: { code: "EVAL_FAILED" } });
  });
});

describe("svc wait", () => {
  it("waits for an element, text, a URL, the load and some time", async () => {
    expect((await run(["goto", world.server.url("forms.html")])).code).toBe(0);
    const schedule = "setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p id=late>Arrived late</p>'), 400), 1";
    expect((await run(["eval", schedule])).code).toBe(0);
    const el = await run(["--json", "wait", "#late", "--timeout", "10000"]);
    expect(el.code, el.stderr).toBe(0);
    expect(json(el.stdout)).toMatchObject({ ok: true, waited: "element", for: "#late visible" });
    const text = await run(["wait", "--text", "Arrived late"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^ok: text "Arrived late"/);
    expect((await run(["wait", "--url", "**/forms.html"])).code).toBe(0);
    expect((await run(["wait", "--load", "networkidle"])).code).toBe(0);
    const ms = await run(["--json", "wait", "300"]);
    expect(json<{ ms: number }>(ms.stdout).ms).toBeGreaterThanOrEqual(300);
  });

  it("waits on a ref from the last snapshot", async () => {
    const text = await run(["extract"]);
    const ref = /\[(e\d+)\][^\n]*Subscribe to newsletter/.exec(text.stdout)?.[1] ?? /(e\d+)/.exec(text.stdout)?.[1];
    expect(ref, text.stdout.slice(0, 500)).toBeDefined();
    const r = await run(["--json", "wait", ref!]);
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout)).toMatchObject({ ok: true, waited: "element" });
  });

  it("a wait that runs out is TIMEOUT (exit 7); a bad call is a usage error (exit 2)", async () => {
    const r = await run(["wait", "--text", "never on this page", "--timeout", "400"]);
    expect(r.code).toBe(7);
    expect(expectOneLine(r.stderr)).toMatch(/no text "never on this page" within 400 ms/);
    const j = await run(["--json", "wait", "#nothing-here", "--timeout", "300"]);
    expect(j.code).toBe(7);
    expect(json(j.stdout)).toMatchObject({ ok: false, error: { code: "TIMEOUT" } });
    const two = await run(["wait", "#late", "--text", "x"]);
    expect(two.code).toBe(2);
    expect(expectOneLine(two.stderr)).toMatch(/exactly one of/);
  });
});

describe("svc tabs", () => {
  interface TabsJson {
    selected: number;
    tabs: Array<{ id: number; url: string; title: string; selected: boolean }>;
  }

  it("numbers stay put when a tab closes; the selected tab is what later commands drive", async () => {
    expect((await run(["goto", world.server.url("forms.html")])).code).toBe(0);
    const first = json<TabsJson>((await run(["--json", "tabs"])).stdout);
    const home = first.selected;
    const a = json<TabsJson>((await run(["--json", "tabs", "new", `${hostPort}/steps.html`])).stdout);
    const stepsTab = a.selected;
    expect(a.tabs.find((t) => t.id === stepsTab)).toMatchObject({ url: world.server.url("steps.html"), selected: true });
    const b = json<TabsJson>((await run(["--json", "tabs", "new", world.server.url("popup.html")])).stdout);
    const popupTab = b.selected;
    expect(new Set([home, stepsTab, popupTab]).size).toBe(3);
    // A later command (no --session: the default session) drives the tab opened last.
    expect((await run(["eval", "location.pathname"])).stdout.trim()).toBe('"/popup.html"');

    const closed = json<TabsJson>((await run(["--json", "tabs", "close", String(stepsTab)])).stdout);
    expect(closed.tabs.map((t) => t.id)).toEqual([home, popupTab].sort((x, y) => x - y));
    expect(closed.selected).toBe(popupTab);

    const sel = await run(["tabs", "select", String(home)]);
    expect(sel.code, sel.stderr).toBe(0);
    expect(sel.stdout).toMatch(new RegExp(`^\\*\\s+${home}\\s+${world.server.url("forms.html").replace(/[.?]/g, "\\$&")}`, "m"));
    expect((await run(["eval", "location.pathname"])).stdout.trim()).toBe('"/forms.html"');
    const list = json<TabsJson>((await run(["--json", "tabs", "list"])).stdout);
    expect(list.selected).toBe(home);
    expect(list.tabs.map((t) => t.id)).toEqual([home, popupTab].sort((x, y) => x - y));

    const missing = await run(["tabs", "select", String(stepsTab)]);
    expect(missing.code).toBe(2);
    expect(expectOneLine(missing.stderr)).toMatch(new RegExp(`no tab ${stepsTab}`));
    expect((await run(["tabs", "close", String(popupTab)])).code).toBe(0);
    const last = await run(["tabs", "close"]);
    expect(last.code).toBe(2);
    expect(expectOneLine(last.stderr)).toMatch(/last tab/);
  });
});

describe("svc screenshot without -o", () => {
  it("writes screenshot-<time>.png in the current folder and prints its path", async () => {
    const cwd = mkdtempSync(join(world.sb.tmp, "shots-"));
    const child = spawn(process.execPath, [BIN, "screenshot"], { env: world.sb.env, cwd, stdio: ["pipe", "pipe", "pipe"] });
    const r = await collect(child);
    expect(r.code, r.stderr).toBe(0);
    const files = readdirSync(cwd);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^screenshot-\d{8}-\d{6}-\d{3}\.png$/);
    expect(r.stdout.trim()).toBe(join(cwd, files[0]!));
    expect(existsSync(r.stdout.trim()) && statSync(r.stdout.trim()).size).toBeGreaterThan(100);
  });
});
