/**
 * The Stagehand 4.4.0 client itself against `svc serve`: it uploads its extension, creates a session and connects;
 * with no model config its model calls go to the Model Gateway and its cache calls to /v1/cache/*; goto, act,
 * extract, close. It declares node >= 22.18 but needs from Node 20 only the global WebSocket, so it runs in a child
 * process with --experimental-websocket.
 */
import { spawn } from "node:child_process";
import { createReadStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import Browserbase from "@browserbasehq/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/free-port.js";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM, waitFor } from "../support/browser.js";
import { startFakeModel, type FakeModel, type FakeReply, type FakeRequest } from "../support/fake-model.js";
import { startFixtureServer, type FixtureServer } from "../support/server.js";
import { markTmpdir } from "../support/process.js";

const KEY = "stagehand4-e2e-key-0001";
const OTHER = "stagehand4-e2e-key-0002";
const OPERATOR_KEY = "sk-operator-e2e-0123456789";
const CLIENT = resolve(import.meta.dirname, "../support/stagehand4-client.mjs");
/** The extension 4.4.0 uploads on launch (a connect needs a session that already has it). */
const EXTENSION_ZIP = resolve(import.meta.dirname, "../../node_modules/stagehand4/dist/assets/stagehand-extension.zip");
const base = mkdtempSync(join(tmpdir(), "svc-stagehand4-"));
let restoreTmp = (): void => {};
const saved = { OPENAI_API_KEY: process.env.OPENAI_API_KEY };
const logs: string[] = [];

let fake: FakeModel;
let site: FixtureServer;
let server: RunningServer;
let isolatedServer: RunningServer;

/**
 * The operator's model as Stagehand 4's prompts need it (the fake's own auto-answers read svc's prompts):
 * act picks the accessibility-tree line naming the button, extract copies the status line, and the
 * extraction's progress check says it is done.
 */
function stagehandBrain(req: FakeRequest): FakeReply | undefined {
  const lines = req.userText.split("\n");
  const idOf = (re: RegExp) => /\[(\d+-\d+)\]/.exec(lines.find((l) => re.test(l)) ?? "")?.[1];
  switch (req.body.text?.format?.name) {
    case "Act": {
      const id = idOf(/\] button: Confirm order$/);
      return { kind: "object", value: { action: id ? { elementId: id, description: "Confirm order button", method: "click", arguments: [] } : null, twoStep: false } };
    }
    case "Extraction":
      return { kind: "object", value: { extraction: /StaticText: (Status: \w+)/.exec(req.userText)?.[1] ?? "" } };
    case "Metadata":
      return { kind: "object", value: { progress: "status read", completed: true } };
    default:
      return undefined;
  }
}

interface ClientRun {
  steps: Array<{ name: string; sessionId?: string; result?: any }>;
  error?: { name: string; message: string; cause?: string; stack?: string };
  closeError?: string;
}

function runClient(env: Record<string, string>): Promise<{ run: ClientRun; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ["--experimental-websocket", "--no-warnings", CLIENT], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 150_000);
    child.on("error", reject);
    child.on("close", () => {
      clearTimeout(timer);
      const line = stdout.trim().split("\n").at(-1) ?? "";
      try {
        resolvePromise({ run: JSON.parse(line) as ClientRun, stderr });
      } catch {
        reject(new Error(`the client printed no result\nstdout: ${stdout}\nstderr: ${stderr}`));
      }
    });
  });
}

function start(extra: Partial<Parameters<typeof startServer>[0]> = {}): Promise<RunningServer> {
  return startServer({
    port: 0,
    apiKeys: [KEY],
    cacheDir: join(base, "cache"),
    dataDir: join(base, "data"),
    launch: { executablePath: CHROMIUM, headless: true },
    modelBaseURL: fake.baseURL(),
    log: (line) => logs.push(line),
    ...extra,
  });
}

beforeAll(async () => {
  restoreTmp = markTmpdir(base);
  process.env.OPENAI_API_KEY = OPERATOR_KEY;
  [fake, site] = await Promise.all([startFakeModel(), startFixtureServer()]);
  fake.mode = stagehandBrain;
  server = await start();
  // Two keys: tenants isolated (egress through svc's proxy, CDP filtered). The extension in the session's
  // Chrome connects back to the session's connectUrl, so the browsers must reach svc's own address, which on
  // loopback takes --allow-net like the fixture site (a public publicUrl they reach anyway).
  const port = await freePort();
  isolatedServer = await start({ port, apiKeys: [KEY, OTHER], allowNet: [`localhost:${site.port}`, `127.0.0.1:${port}`], dataDir: join(base, "data-isolated") });
});

afterAll(async () => {
  await server?.close();
  await isolatedServer?.close();
  await Promise.all([fake?.close(), site?.close()]);
  restoreTmp();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

const STEPS = ["launch", "create", "goto", "act", "extract", "close"];

/** One run of the client against `srv`: every step done, the page changed by act and read by extract. */
async function clientRun(srv: RunningServer, connectTo?: string): Promise<ClientRun> {
  const { run, stderr } = await runClient({
    SVC_URL: srv.url,
    SVC_KEY: KEY,
    PAGE_URL: site.url("stagehand4.html"),
    ACT: "please click the Confirm order button",
    EXTRACT: "the order status",
    ...(connectTo ? { CONNECT_SESSION: connectTo } : {}),
  });
  expect(run.error, `${JSON.stringify(run.error)}\n${stderr}`).toBeUndefined();
  expect(run.closeError).toBeUndefined();
  expect(run.steps.map((s) => s.name)).toEqual(connectTo ? ["connect", ...STEPS.slice(1)] : STEPS);
  const step = (name: string) => run.steps.find((s) => s.name === name)!;
  expect(step("act").result.data).toMatchObject({ success: true, actions: [{ method: "click", selector: expect.stringContaining("button") }] });
  // The status only reads "confirmed" once act's click ran.
  expect(step("extract").result.data).toEqual({ extraction: "Status: confirmed" });
  return run;
}

/** After a run: its session released (COMPLETED) and the extension it uploaded deleted. */
async function cleanedUp(srv: RunningServer, run: ClientRun): Promise<void> {
  const bb = new Browserbase({ apiKey: KEY, baseURL: srv.url, maxRetries: 0 });
  const sessionId = run.steps[0]!.sessionId!;
  const session = await bb.sessions.retrieve(sessionId);
  expect(session.status).toBe("COMPLETED");
  expect(session.userMetadata).toMatchObject({ stagehand: "true" });
  const uploaded = logs.filter((l) => l.startsWith("POST /v1/extensions 200")).length;
  const deleted = logs.filter((l) => /^DELETE \/v1\/extensions\/[\w-]+ 204/.test(l)).length;
  expect(deleted).toBe(uploaded);
}

describe("Stagehand 4.4.0 against svc serve", () => {
  it("launches with its extension, acts and extracts through the Model Gateway, closes; a second run is served by the cache", async () => {
    logs.length = 0;
    fake.reset();
    fake.mode = stagehandBrain;
    const first = await clientRun(server);
    await cleanedUp(server, first);
    // Every model call went through svc's gateway: the operator's key upstream, the client's key never.
    const names = fake.requests.map((r) => r.body.text?.format?.name);
    expect(names).toEqual(["Act", "Extraction", "Metadata"]);
    for (const r of fake.requests) {
      expect(r.path).toBe("/v1/responses");
      expect(r.headers.authorization).toBe(`Bearer ${OPERATOR_KEY}`);
      expect(JSON.stringify(r.headers)).not.toContain(KEY);
    }
    expect(logs.filter((l) => l.startsWith("POST /v1/llm/responses 200"))).toHaveLength(3);
    expect(first.steps.find((s) => s.name === "act")!.result.metadata.cache.status).toBe("MISS");

    // The same page and instructions again: act and extract come from svc's cache, no model call.
    fake.reset();
    fake.mode = stagehandBrain;
    const second = await clientRun(server);
    expect(fake.requests).toHaveLength(0);
    for (const name of ["act", "extract"]) expect(second.steps.find((s) => s.name === name)!.result.metadata.cache.status, name).toBe("HIT");
    await cleanedUp(server, second);
  }, 300_000);

  it("connects to a session it did not launch (browserbase.connect), one created with its uploaded extension", async () => {
    logs.length = 0;
    fake.reset();
    fake.mode = stagehandBrain;
    const bb = new Browserbase({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
    const extension = await bb.extensions.create({ file: createReadStream(EXTENSION_ZIP) });
    try {
      const session = await bb.sessions.create({ extensionId: extension.id, keepAlive: true });
      const run = await clientRun(server, session.id);
      expect(run.steps[0]!.sessionId).toBe(session.id);
      // Closing a connected browser releases its session, as on the platform.
      expect((await bb.sessions.retrieve(session.id)).status).toBe("COMPLETED");
    } finally {
      await bb.extensions.delete(extension.id);
    }
  }, 300_000);

  // The CDP filter lets a tenant drive its own extension's service worker (and nothing else chrome-extension://).
  it("runs the same on an isolated server (two keys)", async () => {
    logs.length = 0;
    fake.reset();
    fake.mode = stagehandBrain;
    const run = await clientRun(isolatedServer);
    expect(fake.requests.map((r) => r.body.text?.format?.name)).toEqual(["Act", "Extraction", "Metadata"]);
    await cleanedUp(isolatedServer, run);
    await waitFor(async () => (await new Browserbase({ apiKey: KEY, baseURL: isolatedServer.url }).sessions.list({ status: "RUNNING" })).length === 0);
  }, 300_000);
});
