/**
 * `svc mcp`'s snapshot tool over real stdio: `delta: true` answers only what changed since the tab's last
 * snapshot with the same options, a new document gives a full one marked as such, and a
 * `maxTokens` the ref lines exceed cuts the outline within the budget, `from` showing the rest.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { estimateTokens } from "../../src/snapshot/index.js";
import { type ModelWorld, startModelWorld } from "./helpers.js";
import { call, openStdio, text } from "./mcp-support.js";

let world: ModelWorld;
let client: Client;

beforeAll(async () => {
  world = await startModelWorld();
  client = await openStdio(world.sb.env, []);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await world?.close();
});

const ok = async (name: string, args: Record<string, unknown> = {}) => {
  const r = await call(client, name, args);
  expect(r.isError, text(r)).toBeFalsy();
  return text(r);
};

describe("the MCP snapshot tool", () => {
  it("delta: true gives the changed line only, then a full snapshot marked full after a navigation", async () => {
    await ok("navigate", { url: world.server.url("forms.html") });
    const before = await ok("snapshot", { interactive: true });
    const name = /^\s*(e\d+) textbox Full name$/m.exec(before)![1]!;
    const subscribe = /^\s*(e\d+) checkbox Subscribe to newsletter$/m.exec(before)![1]!;
    // Their reports are whole snapshots, and check reads the box from the element: the -i outline stays the base.
    await ok("fill", { target: name, value: "Ada" });
    await ok("check", { target: subscribe });
    const delta = await ok("snapshot", { interactive: true, delta: true });
    expect(delta.split("\n")).toEqual([
      "[delta since the last snapshot: 2 changed, 0 added, 0 removed]",
      `~ ${name} textbox Full name: Ada`,
      `~ ${subscribe} checkbox Subscribe to newsletter [checked]`,
    ]);
    expect(await ok("check", { target: subscribe })).toContain("already checked");
    expect(await ok("snapshot", { interactive: true, delta: true })).toBe("[delta: no change since the last snapshot]");

    await ok("navigate", { url: world.server.url("controls.html") });
    expect((await ok("snapshot", { interactive: true, delta: true })).split("\n")[0]).toBe("[full snapshot: page changed]");
  });

  it("maxTokens the ref lines exceed: cut within the budget, and from shows the rest", async () => {
    await ok("navigate", { url: world.server.url("large.html") });
    const cut = await ok("snapshot", { interactive: true, maxTokens: 2000 });
    expect(estimateTokens(cut)).toBeLessThanOrEqual(2000);
    const from = /the rest: --from (e\d+), a part: -s <selector>$/.exec(cut)![1]!;
    expect((await ok("snapshot", { interactive: true, from })).trimStart().startsWith(`${from} `)).toBe(true);
  });
});
