/**
 * Every 4xx/5xx JSON body of `svc serve` carries `success: false`, a `message` and a stable `code`,
 * wherever the status is decided: auth (401), the body and query limits (400, 413, 414), validation (400),
 * unknown routes and sessions (404), the platform's session limit (429), a route with no backend (501),
 * Node's HTTP parser (raw socket, 400) and the CDP proxy's refused upgrades.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM } from "../support/browser.js";
import { apiClient, expectNoChrome } from "../support/session-api.js";
import { markTmpdir } from "../support/process.js";

const KEY = "codes-key-aaaaaaaa";
const base = mkdtempSync(join(tmpdir(), "svc-codes-"));
let restoreTmp = (): void => {};
let server: RunningServer;
const { call } = apiClient({ server: () => server, key: KEY });

beforeAll(async () => {
  restoreTmp = markTmpdir(base);
  server = await startServer({ port: 0, apiKeys: [KEY], cacheDir: join(base, "cache"), launch: { executablePath: CHROMIUM, headless: true }, maxSessions: 1, bodyLimitBytes: 4096 });
});

afterAll(async () => {
  await server?.close();
  await expectNoChrome(base);
  restoreTmp();
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

/** One raw HTTP exchange on a fresh socket: the status and the body as sent. */
function raw(request: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, "127.0.0.1", () => socket.write(request));
    let text = "";
    socket.on("data", (d) => (text += d.toString()));
    socket.on("error", reject);
    socket.on("close", () => {
      const [head = "", body = ""] = text.split("\r\n\r\n");
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), body });
    });
  });
}

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/v1${path}`, { method: "POST", headers: { "x-bb-api-key": KEY, "content-type": "application/json", ...headers }, body });

describe("error bodies", () => {
  it("every bad request answers {success:false, message, code} with the status's code", async () => {
    const longQuery = `?q=${"x".repeat(5000)}`;
    const cases: [string, () => Promise<Response>, number, string][] = [
      ["no key", () => call("GET", "/sessions", undefined, { key: null }), 401, "UNAUTHORIZED"],
      ["unknown key", () => call("GET", "/sessions", undefined, { key: "not-a-known-key" }), 401, "UNAUTHORIZED"],
      ["malformed JSON", () => post("/sessions/start", "{not json"), 400, "INVALID_ARGUMENT"],
      ["missing field", () => post("/sessions/start", "{}"), 400, "INVALID_ARGUMENT"],
      ["bad model string", () => post("/sessions/start", JSON.stringify({ modelName: "openai/" })), 400, "INVALID_MODEL_FORMAT"],
      ["deep JSON", () => post("/sessions", `${"[".repeat(200)}${"]".repeat(200)}`), 400, "INVALID_ARGUMENT"],
      ["bad platform params", () => post("/sessions", JSON.stringify({ timeout: -1 })), 400, "INVALID_ARGUMENT"],
      ["body over the limit", () => post("/sessions", JSON.stringify({ userMetadata: { x: "y".repeat(5000) } })), 413, "PAYLOAD_TOO_LARGE"],
      ["query too long", () => call("GET", `/sessions${longQuery}`), 414, "URI_TOO_LONG"],
      ["unknown route", () => call("GET", "/nope"), 404, "NOT_FOUND"],
      ["unknown method", () => call("DELETE", "/sessions"), 404, "NOT_FOUND"],
      ["unknown platform session", () => call("GET", "/sessions/00000000-0000-4000-8000-000000000000"), 404, "NOT_FOUND"],
      ["unknown api session", () => call("POST", "/sessions/00000000-0000-4000-8000-000000000000/act", { input: "click" }), 404, "NOT_FOUND"],
      ["replay of an unknown session", () => call("GET", "/sessions/00000000-0000-4000-8000-000000000000/replay"), 404, "NOT_FOUND"],
      ["search without a backend", () => call("POST", "/search", { query: "x" }), 501, "NOT_IMPLEMENTED"],
    ];
    for (const [what, send, status, code] of cases) {
      const res = await send();
      expect(res.status, what).toBe(status);
      expect(res.headers.get("content-type"), what).toMatch(/application\/json/);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body, what).toEqual({ success: false, message: expect.any(String), code });
    }
  });

  it("429 past --max-sessions; 409 debug of a released session", async () => {
    const first = (await (await post("/sessions", "{}")).json()) as { id: string };
    const over = await post("/sessions", "{}");
    expect(over.status).toBe(429);
    expect(await over.json()).toEqual({ success: false, message: expect.stringMatching(/too many browser sessions/), code: "QUEUE_FULL" });
    const released = await post(`/sessions/${first.id}`, JSON.stringify({ status: "REQUEST_RELEASE" }));
    expect(released.status).toBe(200);
    const debug = await call("GET", `/sessions/${first.id}/debug`);
    expect(debug.status).toBeGreaterThanOrEqual(400);
    expect(await debug.json()).toMatchObject({ success: false, code: expect.stringMatching(/^[A-Z_]+$/) });
  }, 60_000);

  it("Node's parser and the CDP proxy answer with the same body shape", async () => {
    const parser = await raw("GET /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n");
    expect(parser.status).toBe(400);
    expect(JSON.parse(parser.body)).toEqual({ success: false, message: "malformed HTTP request", code: "INVALID_ARGUMENT" });
    const upgrade = await raw("GET /v1/connect/nope/nope HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n");
    expect(upgrade.status).toBeGreaterThanOrEqual(400);
    expect(JSON.parse(upgrade.body)).toEqual({ success: false, message: expect.any(String), code: expect.stringMatching(/^[A-Z_]+$/) });
  });
});
