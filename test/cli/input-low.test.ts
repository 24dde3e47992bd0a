/**
 * Low-level input, scrolling and waiting from the shell (fixtures/pages/inspect.html): `svc keyboard`,
 * `svc mouse`, `svc scroll left|right|Npx`, `svc scrollintoview`, `svc wait --fn` and `--state`. The page logs
 * each input event it receives into #log; scroll positions and element boxes are read back from the page.
 */
import { describe, expect, it } from "vitest";
import { json, sessionRunners, useCliWorld } from "./helpers.js";

const world = useCliWorld({ session: true });
const { run, ok, fails } = sessionRunners(() => world.sb.env);

const open = async () => ok("goto", world.server.url("inspect.html"));
const evaluate = async <T>(js: string) => JSON.parse(await ok("eval", js)) as T;
const pageLog = async () => (await evaluate<string>("document.getElementById('log').textContent")).split("\n").filter(Boolean);

describe("svc keyboard", () => {
  it("types into the focused element, presses keys, holds a modifier across commands", async () => {
    await open();
    await ok("focus", "#email");
    await ok("keyboard", "type", "ada");
    expect(await evaluate("document.getElementById('email').value")).toBe("ada");
    await ok("keyboard", "press", "Backspace");
    expect(await evaluate("document.getElementById('email').value")).toBe("ad");

    await ok("keyboard", "down", "Shift");
    // Held in the session, not in one command: a click in the next command is a shift-click.
    await ok("mouse", "move", "75", "80");
    await ok("mouse", "down");
    await ok("mouse", "up");
    await ok("keyboard", "up", "Shift");
    await ok("mouse", "down");
    await ok("mouse", "up");
    const log = await pageLog();
    expect(log).toContain("keydown Shift shift");
    expect(log).toContain("keyup Shift");
    expect(log.filter((l) => l.startsWith("mousedown"))).toEqual(["mousedown 0 75,80 shift", "mousedown 0 75,80"]);

    await ok("focus", "#email");
    const doc = json<{ device: string; action: string; key: string }>(await ok("--json", "keyboard", "press", "Tab"));
    expect(doc).toMatchObject({ ok: true, device: "keyboard", action: "press", key: "Tab" });
    expect(await evaluate("document.activeElement.id")).toBe("terms");

    expect(await fails(2, "keyboard", "press", "NoSuchKey")).toMatch(/unknown key "NoSuchKey"/);
    expect(await fails(2, "keyboard", "down", "Control+A")).toMatch(/one key, not a combination/);
    expect(await fails(2, "keyboard", "jump")).toMatch(/keyboard: unknown action "jump"/);
    expect(await fails(2, "keyboard", "type")).toMatch(/keyboard type: the text is missing/);
  });
});

describe("svc mouse", () => {
  it("moves, presses, drags across commands and turns the wheel where the pointer is", async () => {
    await open();
    await ok("mouse", "move", "60", "70");
    await ok("mouse", "down");
    await ok("mouse", "move", "90", "85");
    const doc = json<{ pointer: { x: number; y: number }; buttons: number }>(await ok("--json", "mouse", "up"));
    expect(doc).toMatchObject({ pointer: { x: 90, y: 85 }, buttons: 0 });
    expect(await pageLog()).toEqual(["mousedown 0 60,70", "drag 90,85 buttons 1", "mouseup 0 90,85"]);

    await ok("mouse", "down", "right");
    await ok("mouse", "up", "right");
    expect((await pageLog()).slice(-2)).toEqual(["mousedown 2 90,85", "mouseup 2 90,85"]);

    await ok("mouse", "wheel", "0", "400");
    expect(await pageLog()).toContain("wheel 0,400");
    await ok("wait", "--fn", "window.scrollY > 0");

    expect(await fails(2, "mouse", "move", "10")).toMatch(/mouse move: Y must be a number/);
    expect(await fails(2, "mouse", "move", "-1", "5")).toMatch(/must not be negative/);
    expect(await fails(2, "mouse", "down", "thumb")).toMatch(/unknown button "thumb"/);
    expect(await fails(2, "mouse", "wheel", "x", "1")).toMatch(/mouse wheel: DX must be a number/);
  });
});

describe("svc scroll left|right|Npx and scrollintoview", () => {
  it("scrolls sideways and by pixels, and says what the page shows afterwards", async () => {
    await open();
    const right = json<{ to: { x: number; y: number }; moved: boolean }>(await ok("--json", "scroll", "right"));
    expect(right.moved).toBe(true);
    expect(right.to.x).toBeGreaterThan(0);
    expect(await evaluate("window.scrollX")).toBe(right.to.x);
    await ok("scroll", "left");
    expect(await evaluate("window.scrollX")).toBe(0);
    expect(await ok("scroll", "left")).toMatch(/did not move: the page is already at the edge/);

    await ok("scroll", "300px");
    expect(await evaluate("window.scrollY")).toBe(300);
    // A negative amount after `--`, or commander reads it as a flag.
    await ok("scroll", "--", "-100px");
    expect(await evaluate("window.scrollY")).toBe(200);
    expect(await fails(2, "scroll", "#box", "300px", "extra")).toMatch(/too many arguments for .scroll./);
  });

  it("scrollintoview brings a far element into the viewport", async () => {
    await open();
    const inView = "(() => { const r = document.getElementById('far').getBoundingClientRect(); return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; })()";
    expect(await evaluate(inView)).toBe(false);
    const doc = json<{ inView: boolean }>(await ok("--json", "scrollintoview", "#far"));
    expect(doc.inView).toBe(true);
    expect(await evaluate(inView)).toBe(true);
    expect(await fails(6, "scrollintoview", "#hidden")).toMatch(/has no box/);
    expect(await fails(6, "scrollintoview", "#nope")).toMatch(/no element matches/);
  });
});

describe("svc wait --fn and --state", () => {
  it("waits until the expression is truthy; a false one runs out, a broken one fails at once", async () => {
    await open();
    await ok("eval", "setTimeout(() => { window.appReady = true }, 300), 1");
    expect(await ok("wait", "--fn", "window.appReady === true")).toMatch(/^ok: window.appReady === true truthy/);
    expect(await evaluate("window.appReady")).toBe(true);
    expect(await fails(7, "wait", "--fn", "window.never", "--timeout", "300")).toMatch(/within 300 ms/);
    expect(await fails(1, "wait", "--fn", "nope(")).toMatch(/--fn: /);
    expect(await fails(2, "wait", "--fn", "1", "--text", "x")).toMatch(/exactly one of/);
  });

  it("waits for an element to be hidden, detached or attached", async () => {
    await open();
    expect(await fails(7, "wait", "#spinner", "--state", "hidden", "--timeout", "300")).toMatch(/#spinner hidden within 300 ms/);
    await ok("eval", "setTimeout(() => { document.getElementById('spinner').style.visibility = 'hidden' }, 200), 1");
    await ok("wait", "#spinner", "--state", "hidden");
    expect(await evaluate("getComputedStyle(document.getElementById('spinner')).visibility")).toBe("hidden");
    await ok("eval", "setTimeout(() => document.getElementById('spinner').remove(), 200), 1");
    await ok("wait", "#spinner", "--state", "detached");
    expect(await evaluate("document.getElementById('spinner')")).toBe(null);
    await ok("eval", "setTimeout(() => { const d = document.createElement('div'); d.id = 'late'; document.body.append(d) }, 200), 1");
    await ok("wait", "#late", "--state", "attached");
    expect(await fails(2, "wait", "500", "--state", "hidden")).toMatch(/--state applies to a ref or selector/);
    expect(await fails(2, "wait", "#late", "--state", "gone")).toMatch(/gone/);
  });
});
