/**
 * `svc mcp` answers every JSON-RPC request that carries an id, on raw stdio lines and raw HTTP bodies: one
 * the SDK would drop (`"params": null`, a method that is not a string, an unknown member) gets its id back
 * with -32602 (params) or -32600 (the rest), and the server goes on serving.
 */
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, ROOT, type Sandbox, collect, sandbox, spawnSvc } from "./helpers.js";
import { servedBy } from "./mcp-support.js";
import { spawn } from "node:child_process";
import { EVENT_WAIT_MS } from "../support/timing.js";

let sb: Sandbox;
beforeAll(() => {
  sb = sandbox();
});
afterAll(() => sb?.cleanup());

type Answer = { jsonrpc: string; id: unknown; result?: unknown; error?: { code: number; message: string } };

const INIT_PARAMS = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } };

/** Each malformed request, the code it must get, and what its message must name. */
const MALFORMED: Array<[Record<string, unknown>, number, RegExp]> = [
  [{ jsonrpc: "2.0", id: 7, method: "tools/call", params: null }, -32602, /^Invalid params: params: /],
  [{ jsonrpc: "2.0", id: 8, method: "initialize", params: null }, -32602, /^Invalid params: params: /],
  [{ jsonrpc: "2.0", id: "s9", method: "tools/list", params: [1] }, -32602, /^Invalid params: params: /],
  [{ jsonrpc: "2.0", id: 10, method: 5 }, -32600, /^Invalid Request: method: /],
  [{ jsonrpc: "1.0", id: 11, method: "ping" }, -32600, /^Invalid Request: jsonrpc: /],
  [{ jsonrpc: "2.0", id: 12, method: "ping", extra: true }, -32600, /^Invalid Request: unknown option "extra"/],
];

describe("svc mcp: every request with an id is answered", () => {
  it("stdio: each malformed request gets its id with -32602/-32600, a ping after them is answered, stdin closing ends the server", async () => {
    const child = spawn(process.execPath, [BIN, "mcp"], { env: sb.env, cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
    const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
    const answers = new Map<unknown, Answer>();
    createInterface({ input: child.stdout! }).on("line", (l) => {
      const a = JSON.parse(l) as Answer;
      answers.set(a.id, a);
    });
    const lines = [...MALFORMED.map(([m]) => m), { jsonrpc: "2.0", id: 99, method: "ping" }];
    child.stdin!.write(lines.map((m) => `${JSON.stringify(m)}\n`).join(""));
    await expect.poll(() => answers.size, { timeout: EVENT_WAIT_MS }).toBe(lines.length);
    for (const [m, code, message] of MALFORMED) {
      const a = answers.get(m.id);
      expect(a?.error?.code, JSON.stringify(m)).toBe(code);
      expect(a?.error?.message, JSON.stringify(m)).toMatch(message);
      expect(a?.jsonrpc).toBe("2.0");
    }
    expect(answers.get(99)).toEqual({ jsonrpc: "2.0", id: 99, result: {} });
    child.stdin!.end();
    expect(await exited).toBe(0);
  }, 60_000);

  it("HTTP: the same requests get their id back with 400, before and inside a session; the session goes on", async () => {
    const child = spawnSvc(["mcp", "--http", "--port", "0"], sb.env);
    const done = collect(child, 60_000);
    try {
      const { url, token } = await servedBy(child);
      const post = async (body: unknown, session?: string) => {
        const r = await fetch(url, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream", ...(session ? { "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" } : {}) },
          body: JSON.stringify(body),
        });
        return { status: r.status, session: r.headers.get("mcp-session-id") ?? undefined, text: await r.text() };
      };
      const check = (r: { status: number; text: string }, [m, code, message]: (typeof MALFORMED)[number]) => {
        expect(r.status, JSON.stringify(m)).toBe(400);
        const a = JSON.parse(r.text) as Answer;
        expect(a.id, JSON.stringify(m)).toBe(m.id);
        expect(a.error?.code, JSON.stringify(m)).toBe(code);
        expect(a.error?.message, JSON.stringify(m)).toMatch(message);
      };
      for (const bad of MALFORMED) check(await post(bad[0]), bad);
      const init = await post({ jsonrpc: "2.0", id: 1, method: "initialize", params: INIT_PARAMS });
      expect(init.status, init.text).toBe(200);
      const session = init.session!;
      for (const bad of MALFORMED.filter(([m]) => m.method !== "initialize")) check(await post(bad[0], session), bad);
      // A batch with one bad request: each request of it answered by id, nothing of it run.
      const batch = await post([{ jsonrpc: "2.0", id: 20, method: "ping" }, { jsonrpc: "2.0", id: 21, method: "tools/call", params: null }], session);
      expect(batch.status).toBe(400);
      expect((JSON.parse(batch.text) as Answer[]).map((a) => [a.id, a.error?.code])).toEqual([
        [20, -32600],
        [21, -32602],
      ]);
      await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session);
      const ping = await post({ jsonrpc: "2.0", id: 30, method: "ping" }, session);
      expect(ping.status).toBe(200);
      expect(ping.text).toMatch(/"id":30/);
    } finally {
      child.kill("SIGTERM");
    }
    expect((await done).code).toBe(0);
  }, 60_000);
});
