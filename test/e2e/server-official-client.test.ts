/**
 * The official client unchanged: Stagehand 3.7.3 with `env: "BROWSERBASE"`, its platform SDK and session API pointed
 * at this server, the model being the fake server. init, goto, act, observe, extract, agent, metrics and close all go
 * through `svc serve`, the browser reached through its CDP proxy.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Stagehand } from "@browserbasehq/stagehand";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM, waitFor } from "../support/browser.js";
import { startFakeModel, type FakeModel } from "../support/fake-model.js";
import { setEnv, usageOf } from "../support/models.js";
import { startFixtureServer, type FixtureServer } from "../support/server.js";
import { expectNoChrome } from "../support/session-api.js";
import { scriptTimes, siteBrain, stepRequests } from "./agent-support.js";
import { markTmpdir } from "../support/process.js";

const KEY = "official-client-key-1";
const MODEL_KEY = "sk-official-client-model-key";

const base = mkdtempSync(join(tmpdir(), "svc-server-official-"));
let restoreTmp = (): void => {};
let fake: FakeModel;
let site: FixtureServer;
let server: RunningServer;
let restoreEnv: () => void = () => {};
const serverLog: string[] = [];

beforeAll(async () => {
  // Chrome profiles of this file live under `base`, so the end can check none is left.
  restoreTmp = markTmpdir(base);
  [fake, site] = await Promise.all([startFakeModel(), startFixtureServer()]);
  server = await startServer({
    port: 0,
    apiKeys: [KEY],
    cacheDir: join(base, "cache"),
    launch: { executablePath: CHROMIUM, headless: true },
    log: (line) => void serverLog.push(line),
  });
  restoreEnv = setEnv({
    BROWSERBASE_API_KEY: KEY,
    BROWSERBASE_PROJECT_ID: undefined,
    BB_API_KEY: undefined,
    BB_PROJECT_ID: undefined,
    // The platform SDK adds /v1 itself; the session API client wants it in the URL.
    BROWSERBASE_BASE_URL: server.url,
    STAGEHAND_API_URL: `${server.url}/v1`,
    STAGEHAND_BASE_URL: undefined,
    OPENAI_API_KEY: undefined,
  });
});

afterAll(async () => {
  restoreEnv();
  await server?.close();
  await Promise.all([fake?.close(), site?.close()]);
  await expectNoChrome(base);
  restoreTmp();
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

async function platformSession(id: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}/v1/sessions/${id}`, { headers: { "x-bb-api-key": KEY } });
  return { status: res.status, body: await res.json() };
}

describe("Stagehand 3.7.3 against svc serve", () => {
  it("init, goto, act, observe, extract, agent, metrics and close work unchanged", async () => {
    const clientLogs: Array<{ category?: string; message: string; level?: number }> = [];
    const stagehand = new Stagehand({
      env: "BROWSERBASE",
      model: { modelName: "openai/gpt-test", apiKey: MODEL_KEY, baseURL: fake.baseURL() },
      verbose: 1,
      disablePino: true,
      logger: (line) => void clientLogs.push(line),
    });
    let closed = false;
    try {
      await stagehand.init();
      const id = stagehand.browserbaseSessionID!;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      const session = await platformSession(id);
      expect(session.body).toMatchObject({ id, status: "RUNNING", userMetadata: { stagehand: "true" } });
      // The client drives the same browser over its own CDP connection (through the server's proxy).
      expect(stagehand.connectURL()).toContain(`/v1/connect/${id}/`);

      const page = stagehand.context.pages()[0]!;
      await page.goto(site.url("forms.html"));
      expect(await page.evaluate(() => document.title)).toBe("Forms");

      const acted = await stagehand.act("please check the Subscribe to newsletter checkbox");
      // cacheStatus: the server's act cache verdict, read from the finished event's cacheHit.
      expect(acted).toMatchObject({ success: true, actionDescription: "please check the Subscribe to newsletter checkbox", cacheStatus: "MISS" });
      await waitFor(async () => (await page.evaluate(() => document.querySelector("#log")?.textContent)) === "subscribe: true");
      expect(fake.requestsFor("act")).toHaveLength(1);
      // The model key travelled in x-model-api-key / the model config; the model server saw it.
      expect(fake.requestsFor("act")[0]!.headers.authorization).toBe(`Bearer ${MODEL_KEY}`);

      const observed = await stagehand.observe("find the Email field");
      expect(observed[0]).toMatchObject({ selector: "xpath=/html/body/form/p[2]/input", method: "click" });
      // An observed action goes back as a deterministic act (no model call).
      const before = fake.requests.length;
      expect(await stagehand.act({ ...observed[0]!, method: "fill", arguments: ["ada@example.com"] })).toMatchObject({ success: true });
      expect(fake.requests.length).toBe(before);
      await waitFor(async () => (await page.evaluate(() => document.querySelector("#log")?.textContent)) === "email: ada@example.com");

      fake.script({ heading: "Forms" });
      const extracted = await stagehand.extract("the page heading", z.object({ heading: z.string() }));
      expect(extracted).toEqual({ heading: "Forms" });

      const text = await stagehand.extract("what is the page about");
      expect(text).toEqual({ extraction: expect.any(String) });

      await page.goto(site.url("site/index.html"));
      scriptTimes(fake, siteBrain({ start: site.url("site/index.html") }));
      const result = await stagehand.agent().execute({
        instruction: "Order two Boston Ferns with express delivery for %customer% (%email%)",
        maxSteps: 15,
        variables: { customer: "Ada Lovelace", email: "ada@example.com" },
      });
      expect(result).toMatchObject({ success: true, completed: true, message: expect.stringMatching(/^Order GS-\d+ is placed\.$/) });
      expect(stepRequests(fake).length).toBe(7);
      expect(await page.evaluate(() => document.querySelector("#summary")?.textContent)).toBe("Ada Lovelace ordered 2 × Boston Fern, delivery: Express.");
      // Agent steps reached the client's logger as they happened.
      expect(clientLogs.some((l) => l.category === "agent" && /^step \d+: perform/.test(l.message))).toBe(true);

      // metrics come from the server's replay: the model tokens the fake reported, per operation.
      const metrics = await stagehand.metrics;
      const used = usageOf(fake.requests);
      expect(metrics.totalPromptTokens).toBe(used.input);
      expect(metrics.totalCompletionTokens).toBe(used.output);
      expect(metrics.actPromptTokens).toBe(usageOf(fake.requestsFor("act")).input);
      expect(metrics.agentPromptTokens).toBeGreaterThan(0);

      // No error reached the client's logger (a stream it could not parse would log one).
      expect(clientLogs.filter((l) => l.level === 0)).toEqual([]);
      fake.reset();
      await stagehand.close();
      closed = true;
      expect((await platformSession(id)).body.status).toBe("COMPLETED");
      const end = await fetch(`${server.url}/v1/sessions/${id}/replay`, { headers: { "x-bb-api-key": KEY } });
      expect(end.status).toBe(404);
      expect(serverLog.join("\n")).not.toContain(MODEL_KEY);
    } finally {
      if (!closed) await stagehand.close().catch(() => {});
    }
  });

  it("agent cache: the server's cacheEntry is the client's own version-1 entry; an identical rerun replays on the client with no model call", async () => {
    const cacheDir = join(base, "client-cache");
    const clientLogs: Array<{ category?: string; message: string; level?: number }> = [];
    const stagehand = new Stagehand({
      env: "BROWSERBASE",
      model: { modelName: "openai/gpt-test", apiKey: MODEL_KEY, baseURL: fake.baseURL() },
      cacheDir,
      verbose: 1,
      disablePino: true,
      logger: (line) => void clientLogs.push(line),
    });
    try {
      await stagehand.init();
      const page = stagehand.context.pages()[0]!;
      const start = site.url("site/index.html");
      // Not the first test's task: the server's own cache holds that one already.
      const task = {
        instruction: "Order two Boston Ferns with express delivery for %customer% (%email%) and give the order number",
        maxSteps: 15,
        variables: { customer: "Ada Lovelace", email: "ada@example.com" },
      };
      await page.goto(start);
      fake.reset();
      scriptTimes(fake, siteBrain({ start }));
      const first = await stagehand.agent().execute(task);
      expect(first).toMatchObject({ success: true, completed: true, message: expect.stringMatching(/^Order GS-\d+ is placed\.$/) });
      expect(stepRequests(fake).length).toBe(7);

      // The client wrote the server's entry under the key it computes itself.
      const files = readdirSync(cacheDir).filter((f) => f.startsWith("agent-"));
      expect(files).toHaveLength(1);
      const entry = JSON.parse(readFileSync(join(cacheDir, files[0]!), "utf8"));
      expect(entry).toMatchObject({ version: 1, instruction: task.instruction, startUrl: start, options: { maxSteps: 15 } });
      expect(entry.steps.map((s: { type: string }) => s.type)).toContain("act");
      expect(entry.steps.at(-1)).toEqual({ type: "done" });
      expect(JSON.stringify(entry)).not.toContain("Ada Lovelace");

      // The same task on the same page: the client finds its entry, replays the steps itself, asks no model.
      await page.goto(start);
      fake.reset();
      const again = await stagehand.agent().execute(task);
      expect(fake.requests).toHaveLength(0);
      expect(again).toMatchObject({ success: true, message: first.message, metadata: { cacheHit: true } });
      // The replay's last click navigates: the page is read once the confirmation document is there.
      const summary = () => page.evaluate(() => document.querySelector("#summary")?.textContent).catch(() => undefined);
      await waitFor(async () => (await summary()) === "Ada Lovelace ordered 2 × Boston Fern, delivery: Express.", 30_000);
      expect(clientLogs.some((l) => l.category === "cache" && l.message === "agent cache hit")).toBe(true);
    } finally {
      fake.reset();
      await stagehand.close().catch(() => {});
    }
  });
});
