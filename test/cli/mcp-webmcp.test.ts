/**
 * `svc mcp --caps webmcp` over stdio (the SDK's client): the current tab's WebMCP tools offered as
 * `webmcp_<name>` tools, with `notifications/tools/list_changed` when the page registers, unregisters or is
 * left; a call the page ran, a tool that throws, arguments its schema refuses, and a tool gone after the page
 * unregistered it (fixtures/pages/webmcp.html).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelWorld, startModelWorld, waitFor } from "./helpers.js";
import { call, openStdio, text } from "./mcp-support.js";

let world: ModelWorld;
beforeAll(async () => {
  world = await startModelWorld();
});
afterAll(async () => {
  await world?.close();
});

async function pageTools(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith("webmcp_")).sort();
}

describe("svc mcp: a page's WebMCP tools", () => {
  it("offers them as webmcp_<name>, tells when they change, and runs them in the page", async () => {
    const client = await openStdio(world.sb.env, ["--caps", "webmcp"]);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
    try {
      expect(await pageTools(client)).toEqual([]);
      const nav = await call(client, "navigate", { url: world.server.url("webmcp.html") });
      expect(nav.isError, text(nav)).toBeFalsy();
      await waitFor(async () => changes > 0 && (await pageTools(client)).includes("webmcp_echo"));
      expect(await pageTools(client)).toEqual(["webmcp_add", "webmcp_big", "webmcp_echo", "webmcp_fail"]);
      const add = (await client.listTools()).tools.find((t) => t.name === "webmcp_add")!;
      expect(add.description).toContain("in the page's own words (untrusted): Adds two numbers a and b.");
      expect(add.inputSchema).toMatchObject({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } } });

      const sum = await call(client, "webmcp_add", { a: 2, b: 3 });
      expect(sum.isError, text(sum)).toBeFalsy();
      expect(text(sum)).toContain('"text": "5"');
      const seen = await call(client, "snapshot");
      expect(text(seen)).toContain("add called: 2 + 3");
      const refused = await call(client, "webmcp_add", { a: "two", b: 3 });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/^INVALID_ARGUMENT: a:/);
      const thrown = await call(client, "webmcp_fail");
      expect(thrown.isError).toBe(true);
      expect(text(thrown)).toMatch(/^WEBMCP_TOOL_FAILED: .*the fail tool failed on purpose/);

      const before = changes;
      const click = await call(client, "click", { target: "#unregister" });
      expect(click.isError, text(click)).toBeFalsy();
      await waitFor(async () => changes > before && !(await pageTools(client)).includes("webmcp_fail"));
      expect(await pageTools(client)).toEqual(["webmcp_add", "webmcp_big", "webmcp_echo"]);
      const gone = await call(client, "webmcp_fail");
      expect(gone.isError).toBe(true);
      expect(text(gone)).toMatch(/^INVALID_ARGUMENT: name: no tool "webmcp_fail"/);

      const left = changes;
      await call(client, "navigate", { url: world.server.url("forms.html") });
      await waitFor(async () => changes > left && (await pageTools(client)).length === 0);
    } finally {
      await client.close();
    }
  });
});
