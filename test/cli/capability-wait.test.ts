/**
 * wait and evaluate declared once (src/capabilities/wait.ts, evaluate.ts): the forms only the CLI had (a URL, a load
 * state, a JavaScript condition, attached/detached) are on the MCP tools, and those only MCP had (a time, a tab) on the
 * CLI, against the forms fixture through the built CLI.
 */
import { describe, expect, it } from "vitest";
import { json, sessionRunners, useCliWorld } from "./helpers.js";
import { call, openStdio, text } from "./mcp-support.js";

const world = useCliWorld({ session: true });
const { ok, fails } = sessionRunners(() => world.sb.env);

describe("the wait tool has the CLI's forms", () => {
  it("waits for a JS condition, a URL, a load state and a detached element; one that never comes is a TIMEOUT naming it", async () => {
    const c = await openStdio(world.sb.env, ["--caps", "devtools"]);
    try {
      await call(c, "navigate", { url: world.server.url("forms.html") });
      await call(c, "evaluate", { expression: "setTimeout(() => { window.ready = true }, 200), 1" });
      expect(text(await call(c, "wait", { fn: "window.ready === true", timeout: 10_000 }))).toMatch(/^ok: window.ready === true truthy \(\d+ ms\)/);
      expect(text(await call(c, "wait", { url: "**/forms.html" }))).toMatch(/^ok: URL matching \*\*\/forms.html/);
      expect(text(await call(c, "wait", { load: "networkidle" }))).toMatch(/^ok: networkidle/);
      await call(c, "evaluate", { expression: "setTimeout(() => document.querySelector('#name').remove(), 200), 1" });
      expect(text(await call(c, "wait", { target: "#name", state: "detached", timeout: 10_000 }))).toMatch(/^ok: #name detached/);
      expect(text(await call(c, "evaluate", { expression: "document.querySelector('#name')" }))).toBe("null");
      expect(text(await call(c, "wait", { fn: "window.never", timeout: 300 }))).toMatch(/^TIMEOUT: wait: no window.never truthy within 300 ms/);
      expect(text(await call(c, "wait", { fn: "nope(" }))).toMatch(/^EVAL_FAILED: fn: /);
      expect(text(await call(c, "wait", { text: "x", url: "y" }))).toMatch(/^INVALID_ARGUMENT: give exactly one of target, time, text, url, load, fn/);
      expect(text(await call(c, "evaluate", { expression: "undefined" }))).toBe("undefined");
      // A long value is cut for the model's context, saying how long it was (the CLI prints it whole).
      expect(text(await call(c, "evaluate", { expression: "'x'.repeat(60000)" }))).toMatch(/^"x{49999}… \(60002 characters, cut\)$/);
    } finally {
      await c.close();
    }
  }, 120_000);
});

describe("svc wait and svc eval have the MCP tools' forms", () => {
  it("--time waits that long; --tab reads another tab, the selection unmoved", async () => {
    await ok("goto", world.server.url("forms.html"));
    expect(json<{ waited: string; ms: number }>(await ok("--json", "wait", "--time", "200"))).toMatchObject({ waited: "ms" });
    expect(json<{ ms: number }>(await ok("--json", "wait", "--time", "200")).ms).toBeGreaterThanOrEqual(200);
    const opened = json<{ selected: number }>(await ok("--json", "tabs", "new", world.server.url("steps.html")));
    try {
      expect(JSON.parse(await ok("eval", "location.pathname", "--tab", "1"))).toBe("/forms.html");
      expect(JSON.parse(await ok("eval", "location.pathname"))).toBe("/steps.html");
      expect(await ok("wait", "--url", "**/forms.html", "--tab", "1")).toMatch(/^ok: URL matching/);
      expect(await fails(7, "wait", "--url", "**/forms.html", "--timeout", "300")).toMatch(/no URL matching \*\*\/forms.html within 300 ms/);
    } finally {
      await ok("tabs", "close", String(opened.selected));
    }
  }, 120_000);
});
