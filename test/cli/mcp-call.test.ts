/**
 * `svc mcp call TOOL 'JSON'`: one MCP tool run from the shell through the same server an MCP client talks to.
 * On a live session it drives that session's browser (the CLI sees what the tool did) and leaves it running;
 * a tool's error is the CLI's error with its code and exit code; `tools` lists what `--caps` offers.
 */
import { describe, expect, it } from "vitest";
import { json, sessionRunners, useCliWorld } from "./helpers.js";

const world = useCliWorld({ session: true });
const { ok, fails } = sessionRunners(() => world.sb.env);

describe("svc mcp call", () => {
  it("runs a tool once on the live session's browser: the CLI sees what it did, and the session goes on", async () => {
    const url = world.server.url("forms.html");
    expect(await ok("mcp", "call", "navigate", JSON.stringify({ url }))).toMatch(new RegExp(`^navigated to ${url.replace(/[.?]/g, "\\$&")}`));
    expect(await ok("get", "url")).toBe(url);
    // A tool generated from a capability declaration, with a selector (refs of one call end with it).
    expect(await ok("mcp", "call", "fill", JSON.stringify({ target: "#name", value: "Ada" }))).toMatch(/^fill succeeded/);
    expect(await ok("get", "value", "#name")).toBe("Ada");
    const out = json<{ content: { type: string; text: string }[]; session: string }>(await ok("--json", "mcp", "call", "snapshot", JSON.stringify({ interactive: true })));
    expect(out.session).toBeTruthy();
    expect(out.content[0]!.text).toMatch(/textbox Full name: Ada/);
  });

  it("a tool's error is the CLI's: its code and exit code; bad JSON and an unknown tool are usage errors", async () => {
    expect(await fails(2, "mcp", "call", "navigate", JSON.stringify({ url: "file:///etc/passwd" }))).toMatch(/url: only http and https URLs can be opened \(got file:\)/);
    expect(await fails(2, "mcp", "call", "navigate", "{bad")).toMatch(/^svc: json: not valid JSON/);
    expect(await fails(2, "mcp", "call", "navigate", "[1]")).toMatch(/json: must be a JSON object/);
    expect(await fails(2, "mcp", "call", "no_such_tool")).toMatch(/name: no tool "no_such_tool"/);
    expect(await fails(2, "mcp", "call", "click", "{}")).toMatch(/target/);
    expect(await ok("get", "url")).toBe(world.server.url("forms.html"));
  });

  it("tools lists the tools --caps offers", async () => {
    const core = await ok("mcp", "call", "tools");
    expect(core).toMatch(/^navigate +Open a URL/m);
    expect(core).not.toMatch(/^focus /m);
    expect(await ok("mcp", "call", "tools", "--caps", "forms")).toMatch(/^focus +Focus an element/m);
  });
});
