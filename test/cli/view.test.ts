/**
 * `svc view`, opened in a real Chromium: it shows the session's selected tab, a click through it reaches the page,
 * the URL is stable per session, a wrong token or address is refused, a view-only URL ignores input, viewers are
 * bounded, `--open` hands $BROWSER a launch file, never the token, and the view ends with the session.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { request } from "node:http";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { WebSocket } from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, collect, json, spawnSvc, svc, useCliWorld, waitFor } from "./helpers.js";
import { viewPointOf } from "../support/live-view.js";

const world = useCliWorld({ session: true });
let viewer: Browser;

beforeAll(async () => {
  viewer = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
}, 60_000);
afterAll(async () => {
  await viewer?.close();
});

async function ok(...args: string[]): Promise<string> {
  const r = await svc(args, world.sb.env);
  if (r.code !== 0) throw new Error(`svc ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

const evalPage = async <T>(expr: string): Promise<T> => json<{ result: T }>(await ok("--json", "eval", expr)).result;

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

async function openView(url: string): Promise<Page> {
  const page = await viewer.newPage({ viewport: { width: 1000, height: 700 } });
  await page.goto(url);
  await page.waitForSelector("img[data-svc-live][data-frames]", { timeout: 20_000 });
  return page;
}

/** The view's point over the centre of the session page's element `selector`. */
async function viewPoint(view: Page, selector: string): Promise<{ x: number; y: number }> {
  return viewPointOf(view, await evalPage<{ x: number; y: number; width: number; height: number }>(`(() => { const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height }; })()`));
}

/** A raw GET with a chosen Host header: its status. */
function status(url: string, host?: string): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    request({ host: u.hostname, port: u.port, path: u.pathname + u.search, headers: host ? { host } : {} }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .on("error", reject)
      .end();
  });
}

/** The HTTP status a WebSocket upgrade to the view's socket gets (101 when it opens). */
function socketStatus(url: string): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${u.host}${u.pathname}/socket${u.search}`);
    ws.once("open", () => {
      ws.close();
      resolve(101);
    });
    ws.once("unexpected-response", (_req, res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    ws.once("error", (e) => reject(e));
  });
}

describe("svc view", () => {
  let url = "";
  /** The folder of the session's launch files (`--open`). */
  let launchDir = "";

  it("prints the session's live view URL; the view shows its tab and a click through it reaches the page", async () => {
    await ok("goto", world.server.url("forms.html"));
    const first = json<{ session: string; url: string }>(await ok("--json", "view"));
    url = first.url;
    expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/live/${first.session}/[A-Za-z0-9_-]{43}$`));
    // One server per session: the same URL again.
    expect((await ok("view")).trim()).toBe(url);

    const view = await openView(url);
    // Closed whatever happens: a view left open holds one of the session's few viewer places.
    try {
      await view.waitForFunction(() => document.querySelector("#tabs button[aria-current]")?.textContent === "Forms");
      expect(await view.locator("#url").inputValue()).toBe(world.server.url("forms.html"));
      expect(await evalPage("document.querySelector('#subscribe').checked")).toBe(false);
      const p = await viewPoint(view, "#subscribe");
      await view.mouse.click(p.x, p.y);
      await until(async () => (await evalPage("document.querySelector('#subscribe').checked")) === true, "the click to reach the page");
      // Typing through the view.
      const field = await viewPoint(view, "#name");
      await view.mouse.click(field.x, field.y);
      await until(async () => (await evalPage("document.activeElement && document.activeElement.id")) === "name", "the field to take focus");
      await view.keyboard.type("Ada");
      await until(async () => (await evalPage("document.querySelector('#name').value")) === "Ada", "the typing to reach the field");
    } finally {
      await view.close();
    }
  });

  it("a view-only URL shows the tab but ignores input; the same messages on an interactive socket act", async () => {
    const page = await openView(`${url}?interactive=false`);
    try {
      expect(await page.locator("#ask-continue").isDisabled()).toBe(true);
    } finally {
      await page.close();
    }
    const box = await evalPage<{ x: number; y: number }>("(() => { const r = document.querySelector('#subscribe').getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()");
    const before = await evalPage<boolean>("document.querySelector('#subscribe').checked");
    /** Clicks the checkbox over a raw socket, then waits for the pong that follows every command it caused. */
    const clickOver = async (query: string) => {
      const u = new URL(url);
      const ws = new WebSocket(`ws://${u.host}${u.pathname}/socket${query}`);
      const got: Record<string, any>[] = [];
      ws.on("message", (d, binary) => void (binary ? got.push({ type: "jpeg" }) : got.push(JSON.parse(String(d)))));
      await new Promise((r, j) => ws.once("open", r).once("error", j));
      await until(async () => got.some((m) => m.type === "frame"), "a frame");
      for (const action of ["down", "up"]) ws.send(JSON.stringify({ type: "mouse", action, x: box.x, y: box.y, button: "left", clickCount: 1 }));
      ws.send(JSON.stringify({ type: "ping", n: 7 }));
      await until(async () => got.some((m) => m.type === "pong" && m.n === 7), "the pong");
      ws.close();
    };
    await clickOver("?interactive=false");
    expect(await evalPage("document.querySelector('#subscribe').checked")).toBe(before);
    await clickOver("");
    expect(await evalPage("document.querySelector('#subscribe').checked")).toBe(!before);
  });

  it("refuses a wrong token, another session's path and another Host", async () => {
    const bad = url.replace(/[A-Za-z0-9_-]{43}$/, (t) => `${t[0] === "A" ? "B" : "A"}${t.slice(1)}`);
    expect(await status(bad)).toBe(401);
    expect(await socketStatus(bad)).toBe(401);
    expect(await status(url.replace(/\/live\/[^/]+\//, "/live/other/"))).toBe(404);
    expect(await status(url, "evil.example:80")).toBe(403);
    expect(await status(url)).toBe(200);
    expect(await socketStatus(url)).toBe(101);
  });

  it("a message over 8 KiB closes the view's socket with 1008 and a reason naming its size", async () => {
    const u = new URL(url);
    const ws = new WebSocket(`ws://${u.host}${u.pathname}/socket`);
    const closed = new Promise<[number, string]>((resolve) => ws.once("close", (code, reason) => resolve([code, String(reason)])));
    await new Promise((r, j) => ws.once("open", r).once("error", j));
    const nine = JSON.stringify({ type: "navigate", url: `https://example.com/${"x".repeat(9 * 1024)}` });
    ws.send(nine);
    expect(await closed).toEqual([1008, `message: ${nine.length} bytes, more than the 8192 a message may have`]);
  });

  it("at most 4 viewers at once: the 5th socket gets 429; a closed one frees its place", async () => {
    const u = new URL(url);
    const open = () =>
      new Promise<WebSocket>((resolve, reject) => {
        const ws = new WebSocket(`ws://${u.host}${u.pathname}/socket`);
        ws.once("open", () => resolve(ws));
        ws.once("error", reject);
      });
    // Sockets of the tests before may still be closing: a place is waited for while they go.
    const sockets: WebSocket[] = [];
    try {
      await until(async () => {
        try {
          while (sockets.length < 4) sockets.push(await open());
          return true;
        } catch {
          return false;
        }
      }, "4 places");
      expect(await socketStatus(url)).toBe(429);
      const closed = new Promise((r) => sockets[0]!.once("close", r));
      sockets[0]!.close();
      await closed;
      await until(async () => (await socketStatus(url)) === 101, "a place to free");
    } finally {
      for (const ws of sockets) ws.close();
    }
  });

  it("--open hands $BROWSER a 0600 launch file that leads to the view; the token is in no process's arguments or environment", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-view-open-"));
    const script = join(dir, "opener.sh");
    // The opener records what it got, then waits (bounded) until the test has looked at every process.
    writeFileSync(
      script,
      `#!/bin/sh\ncat /proc/$$/environ > '${dir}/env'\nprintf '%s\\n' "$@" > '${dir}/argv.tmp' && mv '${dir}/argv.tmp' '${dir}/argv'\n` +
        `i=0; while [ ! -e '${dir}/release' ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done\n`,
    );
    chmodSync(script, 0o755);
    const token = url.slice(url.lastIndexOf("/") + 1);
    const run = collect(spawnSvc(["view", "--open"], { ...world.sb.env, BROWSER: script }));
    try {
      await waitFor(() => existsSync(join(dir, "argv")));
      const holders: string[] = [];
      for (const pid of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
        for (const what of ["cmdline", "environ"]) {
          try {
            if (readFileSync(`/proc/${pid}/${what}`).includes(token)) holders.push(`${pid} ${what}: ${readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").slice(0, 200)}`);
          } catch {
            // gone, or not ours to read
          }
        }
      }
      expect(holders).toEqual([]);
      const argv = readFileSync(join(dir, "argv"), "utf8").trim().split("\n");
      expect(argv).toHaveLength(1);
      expect(readFileSync(join(dir, "env"), "utf8")).not.toContain(token);
      const file = argv[0]!;
      expect(file).not.toContain(token);
      launchDir = dirname(file);
      expect([statSync(file).mode & 0o777, statSync(launchDir).mode & 0o777]).toEqual([0o600, 0o700]);
      // The file leads a real browser to the view.
      const page = await viewer.newPage({ viewport: { width: 1000, height: 700 } });
      try {
        await page.goto(pathToFileURL(file).href);
        await page.waitForSelector("img[data-svc-live][data-frames]", { timeout: 20_000 });
        expect(page.url()).toBe(url);
      } finally {
        await page.close();
      }
    } finally {
      writeFileSync(join(dir, "release"), "");
    }
    const r = await run;
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout.trim()).toBe(url);

    const failed = await svc(["view", "--open"], { ...world.sb.env, BROWSER: join(dir, "no-such-opener") });
    expect(failed.code).toBe(0);
    expect(failed.stdout.trim()).toBe(url);
    expect(failed.stderr).toMatch(/^svc: warning: could not open a browser \(.*no-such-opener is not installed\); open the URL yourself\n$/);
    rmSync(dir, { recursive: true, force: true });
  });

  it("follows the session's selected tab (svc tabs new / select)", async () => {
    const view = await openView(url);
    await view.waitForFunction(() => document.querySelector("#tabs button[aria-current]")?.textContent === "Forms");
    await ok("tabs", "new", world.server.url("clickable.html"));
    await view.waitForFunction(() => document.querySelector("#tabs button[aria-current]")?.textContent === "Clickable", undefined, { timeout: 15_000 });
    expect(await view.locator("#tabs button").count()).toBe(2);
    await ok("tabs", "select", "1");
    await view.waitForFunction(() => document.querySelector("#tabs button[aria-current]")?.textContent === "Forms", undefined, { timeout: 15_000 });
    await view.close();
  });

  it("the view ends with the session, its launch files too", async () => {
    expect(await status(url)).toBe(200);
    expect(existsSync(launchDir)).toBe(true);
    expect((await svc(["sessions", "end"], world.sb.env)).code).toBe(0);
    await until(() => status(url).then(() => false, () => true), "the view's port to close");
    expect(existsSync(launchDir)).toBe(false);
  });
});
