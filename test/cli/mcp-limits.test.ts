/**
 * `svc mcp`'s bounds: the console and network lists hold at most their documented 1,000 entries at every
 * moment, the newest; `--http --max-sessions N` refuses the (N+1)th client's initialize with 429
 * TOO_MANY_SESSIONS, and a session that ends frees its slot.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelWorld, collect, expectNoChrome, spawnSvc, startModelWorld, waitFor } from "./helpers.js";
import { call, openStdio, servedBy, text, withToken } from "./mcp-support.js";

let world: ModelWorld;
beforeAll(async () => {
  world = await startModelWorld();
});
afterAll(async () => {
  await world?.close();
});

describe("svc mcp: bounds", () => {
  it("console and network_requests keep the newest 1,000 entries, never more, after a page logged 1,500 and fetched 1,050 times", async () => {
    const client = await openStdio(world.sb.env, ["--caps", "devtools,network"]);
    try {
      await call(client, "navigate", { url: world.server.url("forms.html") });
      const logged = await call(client, "evaluate", { expression: "(() => { for (let i = 0; i < 1500; i++) console.log('entry ' + i); return 1500; })()" });
      expect(logged.isError, text(logged)).toBeFalsy();
      // The list is the newest 200 of what is kept, under a line counting the older ones.
      const listed = await waitFor(async () => {
        const t = text(await call(client, "console"));
        return / entry 1499\b/.test(t.split("\n").at(-1) ?? "") ? t : undefined;
      });
      const lines = listed.split("\n");
      expect(lines[0]).toBe("800 older console messages not shown");
      expect(lines[1]).toMatch(/ entry 1300\b/);
      expect(lines).toHaveLength(201);

      const fetched = await call(client, "evaluate", { expression: "Promise.all(Array.from({ length: 1050 }, (_, i) => fetch('/fetch/data.json?i=' + i).then((r) => r.text()))).then((x) => x.length)" });
      expect(text(fetched)).toBe("1050");
      const requests = await waitFor(async () => {
        const t = text(await call(client, "network_requests", { filter: "data.json" }));
        return t.includes("data.json?i=1049 ") ? t : undefined;
      });
      expect(requests.split("\n")[0]).toBe("800 older requests not shown");
    } finally {
      await client.close();
    }
    await expectNoChrome(world.sb.tmp);
  }, 120_000);

  it("--http --max-sessions 2: a third client's initialize is refused with 429 TOO_MANY_SESSIONS; after one ends its session, a new client is served", async () => {
    const bad = await collect(spawnSvc(["mcp", "--max-sessions", "2"], world.sb.env), 30_000);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--max-sessions goes with --http/);
    const child = spawnSvc(["mcp", "--http", "--port", "0", "--max-sessions", "2"], world.sb.env);
    const done = collect(child, 120_000);
    const clients: Client[] = [];
    try {
      const { url, token } = await servedBy(child);
      const connect = async () => {
        const transport = withToken(url, token);
        const client = new Client({ name: "test", version: "1.0.0" });
        await client.connect(transport);
        clients.push(client);
        return { client, transport };
      };
      const first = await connect();
      await connect();
      const refused = await connect().then(
        () => undefined,
        (e: unknown) => e as Error & { code?: number },
      );
      expect(refused?.code).toBe(429);
      expect(String(refused)).toMatch(/TOO_MANY_SESSIONS: this server runs at most 2 MCP sessions at once \(--max-sessions\)/);
      await first.transport.terminateSession();
      const fourth = await connect();
      expect((await fourth.client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
      child.kill("SIGTERM");
    }
    expect((await done).code).toBe(0);
  }, 120_000);
});
