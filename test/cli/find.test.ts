/**
 * `find`, one capability on both doors (src/capabilities/find.ts): the MCP tool names its matches by the client's refs,
 * picks one with nth/first and refuses bad input as `svc find` does; neither door shows a password or a secret; the CLI's
 * `--json` answers a search that found nothing with its total. inspect.test.ts has the CLI's listing and ACTION.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, sessionRunners, useCliWorld } from "./helpers.js";
import { call, openStdio, text } from "./mcp-support.js";

const world = useCliWorld({ session: true });
const { ok, fails } = sessionRunners(() => world.sb.env);
let client: Client;

beforeAll(async () => {
  client = await openStdio(world.sb.env, ["--caps", "devtools"]);
}, 60_000);

afterAll(async () => {
  await client?.close();
});

const tool = async (name: string, args: Record<string, unknown> = {}) => {
  const r = await call(client, name, args);
  expect(r.isError, text(r)).toBeFalsy();
  return text(r);
};
const refused = async (args: Record<string, unknown>) => {
  const r = await call(client, "find", args);
  expect(r.isError, text(r)).toBe(true);
  return text(r);
};

describe("the MCP find tool", () => {
  it("names each match by the ref the client's snapshot shows, which the verbs take; nth or first shows one", async () => {
    await tool("navigate", { url: world.server.url("inspect.html") });
    const snap = await tool("snapshot", { interactive: true });
    const draft = /^\s*(e\d+) button Save draft$/m.exec(snap)![1]!;
    const found = (await tool("find", { by: "role", value: "button" })).split("\n");
    expect(found[0]).toBe("3 matches; each ref or selector works as a target:");
    expect(found).toContain(`${draft}  button "Save draft"`);
    expect((await tool("find", { by: "text", value: "Save", nth: 2 })).split("\n")).toEqual(["2 matches (number 2 shown); each ref or selector works as a target:", `${draft}  button "Save draft"`]);
    expect((await tool("find", { by: "text", value: "Save", first: true })).split("\n")[1]).toMatch(/^e\d+ {2}button "Save"$/);
    await tool("click", { target: found.find((l) => l.endsWith('"Save draft"'))!.split("  ")[0]! });
    expect(await tool("evaluate", { expression: "document.getElementById('log').textContent.includes('clicked save-draft')" })).toBe("true");
    // An element the snapshot gives no ref (a heading) is named by a selector the verbs take.
    expect(await tool("find", { by: "role", value: "heading" })).toMatch(/\nxpath=\S+ {2}h2 "Heading here"$/);
  });

  it("lists 20 and says how many more; refuses what svc find refuses, naming the property", async () => {
    await tool("navigate", { url: world.server.url("inspect.html") });
    await tool("evaluate", { expression: "for (let i = 1; i <= 25; i++) document.body.append(Object.assign(document.createElement('p'), { textContent: `many ${i}` })); 0" });
    const many = (await tool("find", { by: "text", value: "many" })).split("\n");
    expect(many[0]).toBe("25 matches; each ref or selector works as a target:");
    expect(many).toHaveLength(22);
    expect(many[21]).toBe("(5 more not listed; use nth N)");
    expect(await tool("find", { by: "text", value: "many", nth: 25 })).toMatch(/\nxpath=\S+ {2}p "many 25"$/);

    expect(await refused({ by: "role", value: "button", nth: 9 })).toMatch(/^ELEMENT_NOT_FOUND: find role "button": nth 9, but only 3 match/);
    expect(await refused({ by: "text", value: "Save", name: "x" })).toMatch(/^INVALID_ARGUMENT: name applies to find role, not find text/);
    expect(await refused({ by: "text", value: "Save", first: true, nth: 2 })).toMatch(/^INVALID_ARGUMENT: first and nth: give one/);
    expect(await refused({ by: "text", value: "Save", nth: 0 })).toMatch(/^INVALID_ARGUMENT: nth must be a whole number from 1 to 1000, got 0/);
    expect(await refused({ by: "text", value: "   " })).toMatch(/^INVALID_ARGUMENT: value is blank/);
    expect(await refused({ by: "colour", value: "red" })).toContain('unknown locator "colour" (one of role, text, label, placeholder, testid)');
  });
});

describe("svc find and the MCP tool alike", () => {
  it("show no password's value, and mask the session's secrets in what they list", async () => {
    const secret = `Hunter2${process.pid}Secret`;
    await ok("goto", world.server.url("forms.html"));
    // A password typed by svc is the session's secret; the page echoes it in its #log.
    await ok("fill", "#password", secret);
    const field = await ok("find", "label", "Password");
    expect(field).toMatch(/^e\d+ {2}input$/);
    const echoed = await ok("find", "text", "password:");
    expect(echoed).toMatch(/^xpath=\S+ {2}div "password: %password(_\d+)?%"$/);
    expect(echoed + field).not.toContain(secret);

    await tool("navigate", { url: world.server.url("forms.html") });
    await tool("fill", { target: "#password", value: "typed-by-mcp" });
    expect(await tool("find", { by: "label", value: "Password" })).toMatch(/\ne\d+ {2}input$/);
  });

  it("a search that finds nothing: exit 6 on the CLI, its total with --json; an answer on MCP", async () => {
    await ok("goto", world.server.url("inspect.html"));
    expect(await fails(6, "find", "text", "No such words")).toMatch(/find text "No such words": no element matches/);
    expect(json(await ok("--json", "find", "text", "No such words"))).toMatchObject({ ok: true, by: "text", value: "No such words", total: 0, matches: [] });
    await tool("navigate", { url: world.server.url("inspect.html") });
    expect(await tool("find", { by: "role", value: "button", name: "no such name" })).toBe('no element matches role "button" name "no such name"');
  });
});
