/**
 * `svc mcp`'s navigate and tabs, declared once with `svc goto` and `svc tabs` (src/capabilities/navigate.ts,
 * tabs.ts), do what the CLI's do (issue 42): navigate takes a timeout and puts the tab back after a navigation that
 * failed; tabs closes the selected tab when no number is given, never the last one, and names the open tabs when
 * a number is not one of them.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { closedPort } from "../support/search-stub.js";
import { expectNoChrome, useCliWorld } from "./helpers.js";
import { call, openStdio, text } from "./mcp-support.js";

const world = useCliWorld();

async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const r = await call(client, name, args);
  expect(r.isError, `${name}: ${text(r)}`).toBeFalsy();
  return text(r);
}

async function fails(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const r = await call(client, name, args);
  expect(r.isError, `${name}: ${text(r)}`).toBe(true);
  return text(r);
}

/** Where the selected tab is, as the page says. */
async function href(client: Client): Promise<string> {
  return JSON.parse(await ok(client, "evaluate", { expression: "location.href" })) as string;
}

describe("svc mcp: navigate as svc goto", () => {
  it("a typed local URL, a timeout that ends a slow load, and a failed navigation leaves the tab where it was", async () => {
    const client = await openStdio(world.sb.env, ["--caps", "devtools"]);
    try {
      const forms = world.server.url("forms.html");
      expect(await ok(client, "navigate", { url: `localhost:${world.server.port}/forms.html`, waitUntil: "domcontentloaded" })).toMatch(new RegExp(`^navigated to ${forms.replace(/[.?]/g, "\\$&")}\\n`));

      const started = Date.now();
      expect(await fails(client, "navigate", { url: world.server.url("/slow?ms=25000"), timeout: 1500 })).toMatch(/^TIMEOUT: .*1500 ms/);
      expect(Date.now() - started).toBeLessThan(15_000);

      await ok(client, "navigate", { url: forms });
      const port = await closedPort();
      expect(await fails(client, "navigate", { url: `http://127.0.0.1:${port}/` })).toMatch(/ERR_CONNECTION_REFUSED/);
      expect(await href(client)).toBe(forms);
    } finally {
      await client.close();
    }
    await expectNoChrome(world.sb.tmp);
  }, 120_000);
});

describe("svc mcp: tabs as svc tabs", () => {
  it("close without a number closes the selected tab, the last tab stays, and a missing number names the open ones", async () => {
    const client = await openStdio(world.sb.env, ["--caps", "tabs"]);
    try {
      await ok(client, "navigate", { url: world.server.url("forms.html") });
      expect(await ok(client, "tabs", { action: "new", url: world.server.url("steps.html") })).toMatch(/^\* 2 .*steps\.html$/m);
      const closed = await ok(client, "tabs", { action: "close" });
      expect(closed).toMatch(/^\* 1 Forms .*forms\.html$/m);
      expect(closed).not.toContain("steps.html");
      expect(await fails(client, "tabs", { action: "select", tab: 2 })).toMatch(/^INVALID_ARGUMENT: no tab 2 \(open tabs: 1\)$/);
      expect(await fails(client, "tabs", { action: "close", tab: 1 })).toMatch(/^INVALID_ARGUMENT: cannot close the last tab\b/);
      expect(await fails(client, "tabs", { action: "list", tab: 1 })).toMatch(/^INVALID_ARGUMENT: tab: only with select or close/);
      expect(await ok(client, "tabs", {})).toMatch(/^\* 1 Forms .*forms\.html$/);
    } finally {
      await client.close();
    }
    await expectNoChrome(world.sb.tmp);
  }, 120_000);
});
