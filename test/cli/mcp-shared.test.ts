/**
 * Several agents on one browser (issue 43): `svc mcp --http --shared-browser` serves every client from one
 * Chrome, each in a browser context of its own, and a tool given `tab` acts on that tab without moving the
 * selection.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureServer, startFixtureServer } from "../support/server.js";
import { type Sandbox, assertBuilt, chromeProcessesOf, collect, expectNoChrome, sandbox, spawnSvc } from "./helpers.js";
import { call, openStdio, servedBy, text } from "./mcp-support.js";

let server: FixtureServer;
let sb: Sandbox;
beforeAll(async () => {
  assertBuilt();
  server = await startFixtureServer();
  sb = sandbox();
});
afterAll(async () => {
  sb?.cleanup();
  await server?.close();
});

/** The run dirs of the Chromes running under the sandbox's mark: one per Chrome process tree. */
function chromeTrees(): Set<string> {
  return new Set(chromeProcessesOf(sb.tmp).flatMap((p) => (p.kind === "chrome" && p.runDir ? [p.runDir] : [])));
}

/** The expression's value, as the page holds it (the tool answers JSON). */
async function evaluate(client: Client, expression: string): Promise<unknown> {
  const r = await call(client, "evaluate", { expression });
  expect(r.isError, text(r)).toBeFalsy();
  return JSON.parse(text(r));
}

async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const r = await call(client, name, args);
  expect(r.isError, `${name}: ${text(r)}`).toBeFalsy();
  return text(r);
}

describe("svc mcp --http --shared-browser", () => {
  it("two clients at once, each in its own context of ONE Chrome: each page holds only its own changes; ending one leaves the other working", async () => {
    const child = spawnSvc(["mcp", "--http", "--port", "0", "--shared-browser", "--caps", "devtools,tabs"], sb.env);
    const done = collect(child, 180_000);
    const clients: Client[] = [];
    try {
      const { url, token } = await servedBy(child);
      const connect = async () => {
        const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
        const client = new Client({ name: "test", version: "1.0.0" });
        await client.connect(transport);
        clients.push(client);
        return { client, transport };
      };
      const [a, b] = await Promise.all([connect(), connect()]);
      await Promise.all([
        (async () => {
          await ok(a.client, "navigate", { url: server.url("forms.html") });
          await ok(a.client, "fill", { target: "#name", value: "Ada" });
          await ok(a.client, "click", { target: "#subscribe" });
          await evaluate(a.client, "localStorage.setItem('who', 'A'), 'set'");
        })(),
        (async () => {
          await ok(b.client, "navigate", { url: server.url("controls.html") });
          await ok(b.client, "fill", { target: "#keys", value: "Bob" });
          await ok(b.client, "click", { target: "#remove-me" });
        })(),
      ]);
      expect(await evaluate(a.client, "[location.pathname, document.querySelector('#name').value, document.querySelector('#subscribe').checked].join('|')")).toBe("/forms.html|Ada|true");
      expect(await evaluate(b.client, "[location.pathname, document.querySelector('#keys').value, !!document.querySelector('#remove-me')].join('|')")).toBe("/controls.html|Bob|false");
      // Each lists only its own tab, and the same origin's storage is its own.
      expect((await ok(a.client, "tabs", {})).split("\n")).toHaveLength(1);
      expect((await ok(b.client, "tabs", {})).split("\n")).toHaveLength(1);
      await ok(b.client, "navigate", { url: server.url("forms.html") });
      expect(await evaluate(b.client, "String(localStorage.getItem('who'))")).toBe("null");
      const trees = chromeTrees();
      expect(trees.size).toBe(1);

      // Ending A closes only its context: B goes on in the same Chrome.
      await a.transport.terminateSession();
      await ok(b.client, "fill", { target: "#name", value: "Still here" });
      expect(await evaluate(b.client, "document.querySelector('#name').value")).toBe("Still here");
      expect(chromeTrees()).toEqual(trees);
    } finally {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
      child.kill("SIGTERM");
    }
    expect((await done).code).toBe(0);
    await expectNoChrome(sb.tmp);
  }, 180_000);

  it("--shared-context: clients work in the default context together (the same tab); x-svc-context: own gets one of its own", async () => {
    const child = spawnSvc(["mcp", "--http", "--port", "0", "--shared-browser", "--shared-context", "--caps", "tabs"], sb.env);
    const done = collect(child, 120_000);
    const clients: Client[] = [];
    try {
      const { url, token } = await servedBy(child);
      const connect = async (headers: Record<string, string> = {}) => {
        const client = new Client({ name: "test", version: "1.0.0" });
        await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } } }));
        clients.push(client);
        return client;
      };
      const [a, b, own] = await Promise.all([connect(), connect(), connect({ "x-svc-context": "own" })]);
      await ok(a, "navigate", { url: server.url("forms.html") });
      await ok(a, "fill", { target: "#name", value: "Shared" });
      expect(await ok(b, "tabs", {})).toContain(server.url("forms.html"));
      expect(await ok(b, "snapshot", {})).toContain("Full name: Shared");
      const mine = await ok(own, "tabs", {});
      expect(mine.split("\n")).toHaveLength(1);
      expect(mine).not.toContain("forms.html");
    } finally {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
      child.kill("SIGTERM");
    }
    expect((await done).code).toBe(0);
    await expectNoChrome(sb.tmp);
  }, 120_000);

  it("a bad x-svc-context is refused with a line naming the header", async () => {
    const child = spawnSvc(["mcp", "--http", "--port", "0", "--shared-browser"], sb.env);
    const done = collect(child, 60_000);
    try {
      const { url, token } = await servedBy(child);
      const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}`, "x-svc-context": "everyone" } } });
      const refused = await new Client({ name: "test", version: "1.0.0" }).connect(transport).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(String(refused)).toMatch(/INVALID_ARGUMENT: x-svc-context: expected \\"own\\" or \\"shared\\", got \\"everyone\\"/);
    } finally {
      child.kill("SIGTERM");
    }
    expect((await done).code).toBe(0);
  }, 60_000);
});

describe("svc mcp: the tab property", () => {
  it("a click and a fill on tab 1 by `tab` while tab 2 is selected act on tab 1, and tab 2 stays selected", async () => {
    const client = await openStdio(sb.env, ["--caps", "tabs"]);
    try {
      await ok(client, "navigate", { url: server.url("forms.html") });
      await ok(client, "tabs", { action: "new", url: server.url("forms.html") });
      expect(await ok(client, "tabs", {})).toMatch(/^\* 2 /m);
      await ok(client, "click", { target: "#subscribe", tab: 1 });
      await ok(client, "fill", { target: "#name", value: "On tab one", tab: 1 });
      expect(await ok(client, "tabs", {})).toMatch(/^\* 2 /m);
      const one = await ok(client, "snapshot", { tab: 1 });
      const two = await ok(client, "snapshot", {});
      expect(one).toContain("On tab one");
      expect(one).toMatch(/checkbox Subscribe to newsletter \[checked\]/);
      expect(two).not.toContain("On tab one");
      expect(two).not.toMatch(/checkbox Subscribe to newsletter \[checked\]/);
      const bad = await call(client, "click", { target: "#subscribe", tab: 9 });
      expect(bad.isError).toBe(true);
      expect(text(bad)).toMatch(/^INVALID_ARGUMENT: tab: no open tab 9/);
    } finally {
      await client.close();
    }
    await expectNoChrome(sb.tmp);
  }, 120_000);
});
