/**
 * `svc set`: each setting checked in the page's own view (viewport, geolocation, colour scheme, onLine, request
 * headers, time zone, language), on the open tab and on one opened later; `svc set` alone shows them, `off` and
 * `--clear` take them away, bad values are one line naming the setting. Run as full processes and once through the
 * thin client.
 */
import { createRequire } from "node:module";
import { describe, expect, it, onTestFinished } from "vitest";
import { collect, expectOneLine, json, sandbox, spawnSvc, svc, useCliWorld } from "./helpers.js";

/** Playwright's own descriptors (a dev dependency), the values `svc set device NAME` must give the page. */
const playwrightDevices = (createRequire(import.meta.url)("playwright-core") as { devices: Record<string, { viewport: { width: number }; screen: { width: number; height: number }; deviceScaleFactor: number; userAgent: string; hasTouch: boolean }> }).devices;

const world = useCliWorld({ session: true });
const run = (...args: string[]) => svc(args, world.sb.env);

async function ok(...args: string[]): Promise<string> {
  const r = await run(...args);
  if (r.code !== 0) throw new Error(`svc ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

/** The page's own answer to `expr` (svc eval --json's result). */
async function page<T>(expr: string): Promise<T> {
  return json<{ result: T }>(await ok("--json", "eval", expr)).result;
}

const GEO = "new Promise((r) => navigator.geolocation.getCurrentPosition((p) => r([p.coords.latitude, p.coords.longitude]), (e) => r('error: ' + e.message), { timeout: 10000 }))";
const DARK = "matchMedia('(prefers-color-scheme: dark)').matches";
const HEADERS = "fetch('/echo-headers').then((r) => r.json())";
const TZ = "Intl.DateTimeFormat().resolvedOptions().timeZone";

describe("svc set", () => {
  it("applies each setting to the open tab and to a tab opened afterwards", async () => {
    await ok("goto", world.server.url("forms.html"));
    const before = await page<[number, boolean, boolean, string, string]>(`[innerWidth, ${DARK}, navigator.onLine, ${TZ}, navigator.language]`);
    expect(before[0]).not.toBe(412);

    await ok("set", "viewport", "412x600");
    expect(await page<number[]>("[innerWidth, innerHeight]")).toEqual([412, 600]);
    await ok("set", "geo", "52.52", "13.405");
    expect(await page(GEO)).toEqual([52.52, 13.405]);
    await ok("set", "media", "dark");
    expect(await page(DARK)).toBe(true);
    await ok("set", "timezone", before[3] === "Asia/Tokyo" ? "Europe/Berlin" : "Asia/Tokyo");
    const tz = before[3] === "Asia/Tokyo" ? "Europe/Berlin" : "Asia/Tokyo";
    expect(await page(TZ)).toBe(tz);
    await ok("set", "locale", "de-DE");
    expect(await page("[navigator.language, new Intl.NumberFormat().format(1234.5)]")).toEqual(["de-DE", "1.234,5"]);
    await ok("set", "headers", '{"X-Svc-Test":"hello"}');
    await ok("set", "useragent", "SvcTestAgent/1.0");
    const seen = await page<Record<string, string>>(HEADERS);
    expect(seen["x-svc-test"]).toBe("hello");
    expect(seen["user-agent"]).toBe("SvcTestAgent/1.0");
    expect(seen["accept-language"]).toMatch(/^de-DE/);
    expect(await page("navigator.userAgent")).toBe("SvcTestAgent/1.0");
    await ok("set", "offline", "on");
    expect(await page("navigator.onLine")).toBe(false);
    expect(await page("fetch('/echo-headers').then(() => 'online', () => 'offline')")).toBe("offline");

    // A tab opened after the settings gets every one of them before its first script runs.
    await ok("set", "offline", "off");
    await ok("tabs", "new", world.server.url("forms.html"));
    expect(await page<unknown[]>(`[innerWidth, ${DARK}, navigator.onLine, ${TZ}, navigator.language, navigator.userAgent]`)).toEqual([412, true, true, tz, "de-DE", "SvcTestAgent/1.0"]);
    expect(await page(GEO)).toEqual([52.52, 13.405]);
    expect((await page<Record<string, string>>(HEADERS))["x-svc-test"]).toBe("hello");

    // `svc set` alone shows what is set.
    const shown = json<{ emulation: Record<string, unknown> }>(await ok("--json", "set")).emulation;
    expect(shown).toMatchObject({ viewport: { width: 412, height: 600 }, media: "dark", timezone: tz, locale: "de-DE", userAgent: "SvcTestAgent/1.0", headers: { "X-Svc-Test": "hello" } });
    expect(shown.offline).toBeUndefined();

    // `off` takes one away; --clear all of them: the page is Chrome's own again.
    await ok("set", "media", "off");
    expect(await page(DARK)).toBe(false);
    await ok("set", "--clear");
    expect(await page<unknown[]>(`[innerWidth, ${TZ}, navigator.language]`)).toEqual([before[0], before[3], before[4]]);
    expect((await page<Record<string, string>>(HEADERS))["x-svc-test"]).toBeUndefined();
    expect(json<{ emulation: object }>(await ok("--json", "set")).emulation).toEqual({});
  });

  it("a device sets size, scale, touch and user agent; run by the session's host itself", async () => {
    await ok("goto", world.server.url("forms.html"));
    // Through the thin client: the host runs `svc set` and applies it to its own pages.
    const r = await collect(spawnSvc(["set", "device", "Pixel 7"], world.sb.env));
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("applied to");
    const [dpr, touch, ua, mobile] = await page<[number, number, string, boolean]>("[devicePixelRatio, navigator.maxTouchPoints, navigator.userAgent, matchMedia('(pointer: coarse)').matches]");
    expect(dpr).toBe(2.625);
    expect(touch).toBeGreaterThan(0);
    expect(ua).toContain("Pixel 7");
    expect(mobile).toBe(true);
    await ok("set", "--clear");
    expect(await page("devicePixelRatio")).toBe(1);
  });

  it("knows Playwright's device names: the page gets the descriptor's width, scale, user agent and touch; --list names them all", async () => {
    await ok("goto", world.server.url("mobile.html"));
    await ok("set", "device", "iPhone 13");
    onTestFinished(async () => {
      await run("set", "--clear");
    });
    const want = playwrightDevices["iPhone 13"]!;
    const seen = await page<[number, number, string, boolean, string]>("[innerWidth, devicePixelRatio, navigator.userAgent, matchMedia('(pointer: coarse)').matches, screen.width + 'x' + screen.height]");
    expect(seen).toEqual([want.viewport.width, want.deviceScaleFactor, want.userAgent, want.hasTouch, `${want.screen.width}x${want.screen.height}`]);
    const listed = await ok("set", "device", "--list");
    for (const name of ["Pixel 7", "iPhone 15 Pro", "Galaxy S24", "Desktop Chrome"]) expect(listed).toMatch(new RegExp(`^${name} `, "m"));
    const all = json<{ devices: { name: string }[] }>(await ok("--json", "set", "--list")).devices.map((d) => d.name);
    for (const name of Object.keys(playwrightDevices)) expect(all).toContain(name);
    // An unknown name: one line with the nearest known ones.
    const r = await run("set", "device", "iPhone 15 Prro");
    expect(r.code).toBe(2);
    expect(expectOneLine(r.stderr)).toMatch(/invalid device: unknown device "iPhone 15 Prro"; near: iPhone 15 Pro,/);
  });

  it("wins over the session's own --viewport, which comes back once it is unset", async () => {
    await ok("sessions", "start", "--name", "sized", "--viewport", "1000x700");
    try {
      await ok("--session", "sized", "goto", world.server.url("forms.html"));
      const width = async () => json<{ result: number }>(await ok("--json", "--session", "sized", "eval", "innerWidth")).result;
      expect(await width()).toBe(1000);
      await ok("--session", "sized", "set", "viewport", "412x600");
      expect(await width()).toBe(412);
      expect(await width()).toBe(412); // a command's own attach does not size the page back
      await ok("--session", "sized", "set", "viewport", "off");
      expect(await width()).toBe(1000);
    } finally {
      await run("sessions", "end", "sized");
    }
  });

  it("a session's pages are 1280×720 by default: the open tab, a later one, after `svc set viewport off`, and in a session a command started", async () => {
    await ok("goto", world.server.url("forms.html"));
    const size = "[innerWidth, innerHeight]";
    expect(await page<number[]>(size)).toEqual([1280, 720]);
    await ok("tabs", "new", world.server.url("forms.html"));
    expect(await page<number[]>(size)).toEqual([1280, 720]);
    await ok("set", "viewport", "412x600");
    expect(await page<number[]>(size)).toEqual([412, 600]);
    await ok("set", "viewport", "off");
    expect(await page<number[]>(size)).toEqual([1280, 720]);
    // A session `svc goto` starts itself (none live in this sandbox), its page read through its host.
    const other = sandbox();
    try {
      const started = await svc(["goto", world.server.url("forms.html")], other.env);
      expect(started.code, started.stderr).toBe(0);
      const r = await collect(spawnSvc(["--json", "eval", size], other.env));
      expect(r.code, r.stderr).toBe(0);
      expect(json<{ result: number[] }>(r.stdout).result).toEqual([1280, 720]);
    } finally {
      await svc(["sessions", "end", "--all"], other.env);
      other.cleanup();
    }
  });

  it("refuses bad values with one line naming the setting", async () => {
    const cases: [string[], RegExp][] = [
      [["set", "viewport", "wide"], /invalid viewport/],
      [["set", "viewport", "0x600"], /invalid viewport width/],
      [["set", "geo", "95", "10"], /invalid geo latitude/],
      [["set", "media", "blue"], /invalid media/],
      [["set", "offline", "maybe"], /invalid offline/],
      [["set", "headers", "{nope"], /invalid headers/],
      [["set", "headers", '{"Host":"x"}'], /invalid headers: header Host/],
      [["set", "timezone", "Mars/Olympus"], /invalid timezone/],
      [["set", "locale", "not a locale"], /invalid locale/],
      [["set", "device", "Nokia 3310"], /invalid device: unknown device/],
      [["set", "colour", "red"], /unknown setting "colour"/],
    ];
    for (const [args, message] of cases) {
      const r = await run(...args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(expectOneLine(r.stderr)).toMatch(message);
    }
    expect(json<{ emulation: object }>(await ok("--json", "set")).emulation).toEqual({});
  });
});
