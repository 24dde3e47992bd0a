/**
 * The server's edge, with no browser involved: request size limit (413 in the error envelope, before the
 * body is parsed or a browser started), bodies that are not JSON, unknown routes, health.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/server/index.js";

const KEY = "svc-limits-key-1234";
let server: RunningServer;
let cacheDir: string;

beforeAll(async () => {
  cacheDir = mkdtempSync(join(tmpdir(), "svc-limits-"));
  server = await startServer({ port: 0, apiKeys: [KEY], cacheDir, bodyLimitBytes: 1024 });
});

afterAll(async () => {
  await server?.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, { method: "POST", body, headers: { "content-type": "application/json", "x-bb-api-key": KEY, ...headers } });

describe("svc serve at the edge", () => {
  it("a body over the limit is refused with 413 before anything starts", async () => {
    const big = JSON.stringify({ modelName: "openai/gpt-4.1-mini", systemPrompt: "x".repeat(4096) });
    const res = await post("/v1/sessions/start", big);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ success: false, message: "body: larger than the limit of 1024 bytes", code: "PAYLOAD_TOO_LARGE" });
    const list = await fetch(`${server.url}/v1/sessions`, { headers: { "x-bb-api-key": KEY } });
    expect(await list.json()).toEqual([]);
  });

  it("a body that is not JSON is a 400 naming the body", async () => {
    const res = await post("/v1/sessions/start", "{not json");
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ success: false, message: "body: expected a JSON document", code: "INVALID_ARGUMENT" });
  });

  it("health needs no key; unknown routes are 404 in the envelope", async () => {
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: "ok" });
    const res = await fetch(`${server.url}/v1/nothing`, { headers: { "x-bb-api-key": KEY } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ success: false });
  });
});
