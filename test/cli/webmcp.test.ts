/**
 * `svc webmcp list|call` through the built `svc` on a session's selected tab (fixtures/pages/webmcp.html),
 * run by the session's host and by a full process: the page's tools, a call the page saw, a tool that throws,
 * and a call after the page unregistered the tool.
 */
import { describe, expect, it } from "vitest";
import { hostAndFullModes, json, sessionRunners, useCliWorld } from "./helpers.js";

const world = useCliWorld({ session: true });
const { ok, fails } = sessionRunners(() => world.sb.env);

describe.each(hostAndFullModes(() => world.sb.env))("svc webmcp, $mode", ({ run }) => {
  it("lists the tab's tools, calls one, reports a throw and an unregistered tool", async () => {
    await ok("goto", world.server.url("webmcp.html"));
    const listed = await run(["--json", "webmcp", "list"], { key: true });
    expect(listed.code, listed.stderr).toBe(0);
    const tools = json<{ tools: Array<{ name: string; description: string }> }>(listed.stdout).tools;
    // A full process attaches to the tab after the iframe registered its tool: read from the page then (Chrome's enable reports only the main frame's).
    expect(tools.map((t) => t.name)).toEqual(["add", "big", "fail", "echo"]);
    expect(tools.find((t) => t.name === "add")!.description).toBe("Adds two numbers a and b.");

    const called = await run(["webmcp", "call", "add", '{"a":2,"b":3}'], { key: true });
    expect(called.code, called.stderr).toBe(0);
    expect(json(called.stdout)).toEqual({ content: [{ type: "text", text: "5" }] });
    expect(await ok("eval", "document.getElementById('result').textContent")).toBe('"add called: 2 + 3"');

    const thrown = await run(["--json", "webmcp", "call", "fail"], { key: true });
    expect(thrown.code).toBe(1);
    expect(json(thrown.stdout)).toMatchObject({ ok: false, error: { code: "WEBMCP_TOOL_FAILED", message: expect.stringContaining("the fail tool failed on purpose") } });

    await ok("click", "#unregister");
    expect(await ok("eval", "document.getElementById('result').textContent")).toBe('"fail unregistered"');
    const gone = await run(["--json", "webmcp", "call", "fail", "{}"], { key: true });
    expect(gone.code).toBe(1);
    expect(json(gone.stdout)).toMatchObject({ ok: false, error: { code: "WEBMCP_TOOL_NOT_FOUND" } });
  });
});

describe("svc webmcp call's input", () => {
  it("refuses arguments that are not one JSON object, naming them", async () => {
    expect(await fails(2, "webmcp", "call", "add", "[1,2]")).toMatch(/json: must be a JSON object/);
    expect(await fails(2, "webmcp", "call", "add", "{nope")).toMatch(/json: not valid JSON/);
    expect(await fails(2, "webmcp", "call", "bad name!", "{}")).toMatch(/name: a webmcp tool name/);
  });
});
