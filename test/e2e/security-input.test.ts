/**
 * Deep and huge input against a two-key `svc serve`: a deeply nested or huge body is refused before any Chrome
 * starts, metadata is held to 512 characters, a start failing after its Chrome launched ends that Chrome, and
 * ordinary use still works. TMPDIR points at this file's own directory, so every Chrome launched here carries it:
 * that is how the tests count them.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM, waitFor } from "../support/browser.js";
import { chromePidsOf, markTmpdir } from "../support/process.js";

const KEY_A = "security-input-key-a-01";
const KEY_B = "security-input-key-b-02";
const base = mkdtempSync(join(tmpdir(), "svc-security-input-"));
let restoreTmp = (): void => {};
const logs: string[] = [];
let server: RunningServer;

beforeAll(async () => {
  restoreTmp = markTmpdir(base);
  // One session at a time: a Chrome leaked by a failed create would make the next create a 429.
  server = await startServer({ port: 0, apiKeys: [KEY_A, KEY_B], maxSessions: 1, cacheDir: join(base, "cache"), launch: { executablePath: CHROMIUM, headless: true }, log: (l) => logs.push(l) });
});

afterAll(async () => {
  await server?.close();
  try {
    await waitFor(() => chromes().length === 0).catch(() => {});
    expect(chromes()).toEqual([]);
  } finally {
    restoreTmp();
    rmSync(base, { recursive: true, force: true, maxRetries: 3 });
  }
});

/** Chrome processes launched by this file (reaper watchdogs left out: they exit with this worker). */
function chromes(): number[] {
  return chromePidsOf(base);
}

async function send(method: string, path: string, body: string | undefined, key = KEY_B): Promise<{ status: number; body: any; raw: string }> {
  const res = await fetch(`${server.url}${path}`, { method, headers: { "x-bb-api-key": key, "content-type": "application/json" }, ...(body !== undefined ? { body } : {}) });
  const raw = await res.text();
  let parsed: unknown = raw;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed, raw };
}

const nested = (levels: number) => '{"a":'.repeat(levels) + '"x"' + "}".repeat(levels);

describe("deep and huge input never leaves a Chrome behind", () => {
  it("userMetadata nested 5 000 levels: 400 before any Chrome starts; the key's listing and the next create still work", async () => {
    const r = await send("POST", "/v1/sessions", `{"userMetadata":${nested(5_000)}}`);
    expect([r.status, r.body.message]).toEqual([400, "body: nested deeper than 64 levels of arrays and objects"]);
    const viaStart = await send("POST", "/v1/sessions/start", `{"modelName":"openai/gpt-4o-mini","browserbaseSessionCreateParams":{"userMetadata":${nested(5_000)}}}`);
    expect(viaStart.status).toBe(400);
    expect(chromes()).toEqual([]);
    const list = await send("GET", "/v1/sessions", undefined);
    expect([list.status, list.body]).toEqual([200, []]);

    // maxSessions is 1: this would be a 429 had the refused create kept its Chrome.
    const created = await send("POST", "/v1/sessions", JSON.stringify({ userMetadata: { run: "ok" } }));
    expect(created.status, created.raw).toBe(201);
    expect((await send("POST", `/v1/sessions/${created.body.id}`, JSON.stringify({ status: "REQUEST_RELEASE" }))).status).toBe(200);
    await waitFor(() => chromes().length === 0);
    expect(logs.filter((l) => l.startsWith("error "))).toEqual([]);
  });

  it("userMetadata past the platform's 512 characters is a 400 naming it, quoting none of it; a 9 MB one is refused too", async () => {
    const big = await send("POST", "/v1/sessions", JSON.stringify({ userMetadata: { note: "m".repeat(600) } }));
    expect(big.status).toBe(400);
    expect(big.body.message).toBe("userMetadata: at most 512 characters as JSON (the platform's limit), got 611");
    const huge = await send("POST", "/v1/sessions", JSON.stringify({ userMetadata: Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, "m".repeat(1_000_000)])) }));
    expect(huge.status).toBe(413);
    expect(huge.raw.length).toBeLessThan(300);
    expect(chromes()).toEqual([]);
  });

  it("a start whose input fails only after its Chrome launched (the model name) ends that Chrome and frees its slot", async () => {
    const r = await send("POST", "/v1/sessions/start", JSON.stringify({ modelName: "no-provider-model" }));
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/provider\/model/);
    await waitFor(() => chromes().length === 0);
    expect(chromes()).toEqual([]);
    const listed = (await send("GET", "/v1/sessions", undefined)).body as { status: string }[];
    expect(listed.every((s) => s.status !== "RUNNING")).toBe(true);
    const created = await send("POST", "/v1/sessions", "{}");
    expect(created.status, created.raw).toBe(201);
    expect((await send("POST", `/v1/sessions/${created.body.id}`, JSON.stringify({ status: "REQUEST_RELEASE" }))).status).toBe(200);
  });

  it("an ended session is still listed with its (small) metadata, but its browser is gone: debug 409, connect 410", async () => {
    const created = await send("POST", "/v1/sessions", JSON.stringify({ userMetadata: { run: "ended", nested: { k: "v" } } }), KEY_A);
    expect(created.status, created.raw).toBe(201);
    const connect = new URL(created.body.connectUrl as string);
    expect((await send("POST", `/v1/sessions/${created.body.id}`, JSON.stringify({ status: "REQUEST_RELEASE" }), KEY_A)).status).toBe(200);
    const listed = await send("GET", `/v1/sessions?q=${encodeURIComponent("user_metadata['run']:'ended'")}`, undefined, KEY_A);
    expect(listed.body).toHaveLength(1);
    expect(listed.body[0]).toMatchObject({ id: created.body.id, status: "COMPLETED", userMetadata: { run: "ended", nested: { k: "v" } } });
    expect(listed.body[0].connectUrl).toBeUndefined();
    expect((await send("GET", `/v1/sessions/${created.body.id}/debug`, undefined, KEY_A)).status).toBe(409);
    const proxied = await fetch(`http://${connect.host}${connect.pathname.replace(/\/devtools\/.*$/, "/json/version")}`);
    expect(proxied.status).toBe(410);
    // Another key sees none of it.
    expect((await send("GET", `/v1/sessions/${created.body.id}`, undefined, KEY_B)).status).toBe(404);
    await waitFor(() => chromes().length === 0);
  });
});
