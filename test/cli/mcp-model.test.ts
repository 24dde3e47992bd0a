/**
 * The model-backed capabilities on the MCP door (`svc mcp` over stdio, the fake model on its real wire): the same
 * declaration as the CLI verb, so the tool takes what the verb takes (a selector, a timeout, the variables).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ModelWorld, startModelWorld } from "./helpers.js";
import { call, openStdio, text } from "./mcp-support.js";

let world: ModelWorld;
let client: Client;

beforeAll(async () => {
  world = await startModelWorld();
  client = await openStdio(world.sb.env, []);
  const nav = await call(client, "navigate", { url: world.server.url("forms.html") });
  expect(nav.isError, text(nav)).toBeFalsy();
}, 60_000);

afterAll(async () => {
  await client?.close();
  await world?.close();
});

beforeEach(() => world.fake.reset());

const SECRET = "Ada Lovelace";

describe("svc mcp: the model tools", () => {
  it("observe: the variables object reaches the model as names only; a selector narrows what it reads", async () => {
    const r = await call(client, "observe", { instruction: "find the field for %who%", variables: { who: SECRET }, selector: "#signup" });
    expect(r.isError, text(r)).toBeFalsy();
    const [sent] = world.fake.requestsFor("observe");
    expect(sent!.variables).toEqual(["who"]);
    expect(JSON.stringify(sent!.body)).not.toContain(SECRET);
    // Inside the form only: its fields, not the paragraph after it.
    expect(sent!.userText).toContain("Full name");
    expect(sent!.userText).not.toContain("Help: fill in the form");
    // One line per Action: selector, method(arguments), description.
    expect(text(r).split("\n")[0]).toMatch(/^(xpath=|\/)\S+ {2}\w+(\(.*\))? {2}\S/);
  });

  it("observe: a bad variable name is refused naming the property, before any model call", async () => {
    const r = await call(client, "observe", { instruction: "find %x y%", variables: { "x y": "1" } });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/variables/);
    expect(world.fake.requests).toHaveLength(0);
  });
});
