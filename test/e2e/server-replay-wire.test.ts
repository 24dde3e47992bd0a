/**
 * What strict official clients validate: every replay action's `result` is an object (the official
 * schema's `result: z.record(…)`: observe's list is `{actions: […]}`, a navigate with no response `{}`),
 * and log events carry `message` as the spec says (the log line object) to ordinary clients, and as a
 * string (with the object beside it as `logLine`) to the clients generated from the OpenAPI schema.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { ReplayLog } from "../../src/server/session-api/replay.js";
import { CHROMIUM } from "../support/browser.js";
import { startFakeModel, type FakeModel } from "../support/fake-model.js";
import { startFixtureServer, type FixtureServer } from "../support/server.js";
import { apiClient, expectNoChrome } from "../support/session-api.js";
import { markTmpdir } from "../support/process.js";

const KEY = "replay-key-aaaaaaaa";
const base = mkdtempSync(join(tmpdir(), "svc-replay-wire-"));
let restoreTmp = (): void => {};
let fake: FakeModel;
let site: FixtureServer;
let server: RunningServer;
const { json, stream } = apiClient({ server: () => server, key: KEY });

// The official clients' replay schema, as published (strict where it matters: result and parameters are records).
const ReplayAction = z.object({
  method: z.string(),
  parameters: z.record(z.string(), z.unknown()),
  result: z.record(z.string(), z.unknown()),
  timestamp: z.number(),
  endTime: z.number().optional(),
  tokenUsage: z.object({ inputTokens: z.number().optional(), outputTokens: z.number().optional(), timeMs: z.number().optional() }).optional(),
});
const ReplayResult = z.object({ pages: z.array(z.object({ url: z.string(), timestamp: z.number(), duration: z.number(), actions: z.array(ReplayAction) })) });

beforeAll(async () => {
  restoreTmp = markTmpdir(base);
  [fake, site] = await Promise.all([startFakeModel(), startFixtureServer()]);
  server = await startServer({ port: 0, apiKeys: [KEY], cacheDir: join(base, "cache"), launch: { executablePath: CHROMIUM, headless: true } });
});

afterAll(async () => {
  await server?.close();
  await Promise.all([fake?.close(), site?.close()]);
  await expectNoChrome(base);
  restoreTmp();
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

const model = () => ({ modelName: "openai/gpt-test", baseURL: fake.baseURL(), apiKey: "sk-test-0123456789" });

describe("replay and log events as the official clients' schemas have them", () => {
  let id: string;

  beforeAll(async () => {
    const start = await json("POST", "/sessions/start", { modelName: "openai/gpt-test", verbose: 2 });
    expect(start.status).toBe(200);
    id = start.body.data.sessionId;
  });

  it("every action's result is an object: observe's list as {actions}", async () => {
    expect((await json("POST", `/sessions/${id}/navigate`, { url: site.url("forms.html") })).status).toBe(200);
    const observed = await json("POST", `/sessions/${id}/observe`, { instruction: "find the Email field", options: { model: model() } });
    expect(observed.status).toBe(200);
    expect(Array.isArray(observed.body.data.result)).toBe(true);

    const replay = await json("GET", `/sessions/${id}/replay`);
    expect(replay.status).toBe(200);
    const parsed = ReplayResult.safeParse(replay.body.data);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    const actions = parsed.data!.pages.flatMap((p) => p.actions);
    expect(actions.map((a) => a.method)).toEqual(["navigate", "observe"]);
    expect(actions[1]!.result).toEqual({ actions: observed.body.data.result });
  });

  it("any recorded value becomes an object: nothing → {}, a list → {actions}, a scalar → {value}", () => {
    const log = new ReplayLog();
    const at = { method: "navigate" as const, parameters: {}, timestamp: 1, endTime: 2, tokenUsage: { inputTokens: 0, outputTokens: 0, reasoningTokens: 0, cachedInputTokens: 0, timeMs: 0 } };
    for (const result of [null, undefined, [{ a: 1 }], "text", { kept: true }]) log.add("about:blank", { ...at, result });
    expect(log.toWire().pages[0]!.actions.map((a) => a.result)).toEqual([{}, {}, { actions: [{ a: 1 }] }, { value: "text" }, { kept: true }]);
  });

  it("log events: message is the log line object by default, a string (plus logLine) for clients generated from the schema", async () => {
    const plain = await stream(`/sessions/${id}/observe`, { instruction: "find the Email field", options: { model: model() } });
    const logs = plain.events.filter((e) => e.data.type === "log");
    expect(logs.length).toBeGreaterThan(0);
    for (const e of logs) expect(e.data.data).toMatchObject({ status: "running", message: { message: expect.any(String), category: expect.any(String) } });

    const generated = await stream(`/sessions/${id}/observe`, { instruction: "find the Email field", options: { model: model() } }, { headers: { "x-language": "python", "x-stainless-lang": "python" } });
    const textLogs = generated.events.filter((e) => e.data.type === "log");
    expect(textLogs.length).toBeGreaterThan(0);
    // The official schema's log data: {status: "running", message: string}.
    const LogData = z.object({ status: z.literal("running"), message: z.string() });
    for (const e of textLogs) {
      expect(LogData.safeParse(e.data.data).success).toBe(true);
      expect(e.data.data.logLine).toMatchObject({ message: e.data.data.message });
    }
    expect(generated.events.at(-1)!.data.data.status).toBe("finished");
  });
});
