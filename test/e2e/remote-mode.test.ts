/**
 * The library in cloud mode against an in-process `svc serve`: a platform session created or resumed, and act,
 * observe, extract, navigate and agent run on the server with results equal to local mode's. Also init's result,
 * metrics from the replay, streamed logs, keepAlive and resume, unknown sessions, keys that cannot see each other's
 * sessions, and `useAPI: false`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { BrowserbaseSessionNotFoundError, MissingEnvironmentVariableError, ServiceError, ServiceInvalidArgumentError } from "../../src/errors.js";
import type { ServiceOptions } from "../../src/options.js";
import type { Service } from "../../src/service.js";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM, makeService, textIn } from "../support/browser.js";
import { logSink, useModelWorld, WIRES } from "../support/models.js";
import { scriptTimes, siteBrain } from "./agent-support.js";

const world = useModelWorld();
const KEY_A = "svc-test-key-aaaaaaaa";
const KEY_B = "svc-test-key-bbbbbbbb";
let server: RunningServer;
let cacheDir: string;
const serverLog: string[] = [];

beforeAll(async () => {
  cacheDir = mkdtempSync(join(tmpdir(), "svc-remote-cache-"));
  // Two keys isolate the tenants: their browsers reach the fixture server, and their model configs the
  // fake model, only because these are allowed.
  const fixture = world.server.port;
  const allowNet = [`localhost:${fixture}`, `127.0.0.1:${fixture}`, new URL(world.fake.baseURL()).host];
  server = await startServer({ port: 0, apiKeys: [KEY_A, KEY_B], cacheDir, launch: { executablePath: CHROMIUM }, allowNet, log: (l) => serverLog.push(l) });
});

afterAll(async () => {
  await server?.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

const model = () => WIRES[0]!.model(world.fake);
const remote = (extra: ServiceOptions = {}) => makeService({ env: "BROWSERBASE", apiKey: KEY_A, apiBaseURL: server.url, model: model(), ...extra });
const local = (extra: ServiceOptions = {}) => makeService({ model: model(), ...extra });

async function using<T>(svc: Service, fn: (svc: Service) => Promise<T>): Promise<T> {
  try {
    await svc.init();
    return await fn(svc);
  } finally {
    await svc.close({ force: true });
  }
}

async function platformSession(id: string, key = KEY_A): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${server.url}/v1/sessions/${id}`, { headers: { "x-bb-api-key": key } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The same script of operations, for both modes; returns everything that came back. */
async function script(svc: Service) {
  const forms = world.server.url("forms.html");
  const nav = await svc.page.goto(forms);
  const fill = await svc.act('please type "Ada Lovelace" into the Full name field');
  const name = await textIn(svc.page, "#log");
  const observed = await svc.observe("find the Email field");
  const typed = await svc.act({ ...observed[0]!, method: "fill", arguments: ["ada@example.com"] });
  const log = await textIn(svc.page, "#log");
  const { extraction } = await svc.extract("what does the help text say");
  const structured = await svc.extract("the form's help text", z.object({ help: z.string() }));
  const { pageText } = await svc.extract();
  const history = (await svc.history).map((h) => h.method);
  const metrics = await svc.metrics;
  return { nav, fill, name, observed, typed, log, extraction, structured, pageText, history, metrics };
}

/** An operation that fails the same way in both modes (no element at the XPath). */
async function fail(svc: Service): Promise<Error | undefined> {
  await svc.page.goto(world.server.url("forms.html"));
  return svc.act({ selector: "xpath=/html/body/nothing-here", description: "missing", method: "click", arguments: [] }).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
}

/** The fixture agent task, with what its subscribers and onStepEnd saw and the agent tokens metrics counted. */
async function agentRun(svc: Service) {
  const start = world.server.url("site/index.html");
  const task = "Order two Boston Ferns with express delivery and tell me the order number";
  await svc.page.goto("about:blank");
  scriptTimes(world.fake, siteBrain({ start }));
  const agent = svc.agent();
  const types: string[] = [];
  agent.subscribe((e) => types.push(e.type));
  const ends: string[] = [];
  const onStepEnd = ({ step, tool }: { step: number; tool: string }) => void ends.push(`${step} ${tool}`);
  const result = await agent.execute({ instruction: task, variables: { customer: "Ada Lovelace", email: "ada@example.com" }, onStepEnd });
  const summary = await textIn(svc.page, "#summary");
  return { result, types, ends, summary, agentTokens: (await svc.metrics).agentPromptTokens };
}

/**
 * Each mode on one Service of its own (a cloud session, a local Chrome): the script on a fresh Service
 * (history and metrics are compared), then the failing operation, then the agent task (its tokens are the
 * only agent tokens that Service counts). Run once, by the first test that asks.
 */
async function bothModes(svc: Service) {
  world.fake.reset();
  const ops = await script(svc);
  const calls = world.fake.requests.length;
  const failure = await fail(svc);
  world.fake.reset();
  const agent = await agentRun(svc);
  return { ops, calls, failure, agent };
}
let compared: Promise<{ there: Awaited<ReturnType<typeof bothModes>>; here: Awaited<ReturnType<typeof bothModes>> }> | undefined;
const modes = () => (compared ??= (async () => ({ there: await using(remote(), bothModes), here: await using(local(), bothModes) }))());

describe("remote mode against svc serve", () => {
  it("act, observe, extract and navigate run on the server; results equal local mode's", async () => {
    const { there: t, here: h } = await modes();
    const [there, here] = [t.ops, h.ops];

    expect(t.calls).toBe(h.calls);
    expect(there.nav).toEqual(here.nav);
    // The server keeps an action cache, so its results say so (docs/wire-formats.md "Records": with a server cache only).
    expect(there.fill).toEqual({ ...here.fill, cacheStatus: "MISS" });
    expect(there.name).toBe("name: Ada Lovelace");
    expect(there.observed).toEqual(here.observed);
    expect(there.typed).toEqual(here.typed);
    expect(there.log).toBe(here.log);
    expect(there.extraction).toBe(here.extraction);
    expect(there.structured).toEqual(here.structured);
    expect(there.pageText).toBe(here.pageText);
    expect(there.history).toEqual(here.history);
    // Metrics come from the server's replay: the same tokens as the local run counted.
    for (const k of ["actPromptTokens", "actCompletionTokens", "observePromptTokens", "extractPromptTokens", "totalPromptTokens", "totalCompletionTokens"] as const) {
      expect(there.metrics[k], k).toBe(here.metrics[k]);
    }
    expect(there.metrics.totalPromptTokens).toBeGreaterThan(0);
  });

  it("an operation's failure arrives as the same error class and message as locally", async () => {
    const { there: t, here: h } = await modes();
    const [there, here] = [t.failure, h.failure];
    expect(here).toBeInstanceOf(ServiceError);
    expect(there?.constructor).toBe(here?.constructor);
    expect(there?.message).toBe(here?.message);
  });

  it("agent runs on the server: the same result as locally, events reach subscribers", async () => {
    const { there: t, here: h } = await modes();
    const [there, here] = [t.agent, h.agent];

    expect(there.summary).toBe("Ada Lovelace ordered 2 × Boston Fern, delivery: Express.");
    expect(there.result).toMatchObject({ success: true, completed: true });
    expect(there.result.message).toMatch(/^Order GS-\d{5} is placed\.$/);
    expect(there.result.actions.map((a) => a.type)).toEqual(here.result.actions.map((a) => a.type));
    expect(there.types[0]).toBe("run_start");
    expect(there.types.at(-1)).toBe("run_end");
    expect(there.types.filter((t) => t === "tool_call")).toHaveLength(here.types.filter((t) => t === "tool_call").length);
    expect(there.agentTokens).toBe(here.agentTokens);
    // onStepEnd: once per step, in order, on the server's run too (as its results arrive).
    expect(there.ends).toEqual(there.result.actions.map((a) => `${a.step} ${a.type}`));
    expect(there.ends).toEqual(here.ends);
  });

});

describe("one cloud session: init, the session API's limits, logs, close", () => {
  // Verbose, with a local logger, for the logs test; nothing else here depends on it.
  const sink = logSink();
  let session: Service | undefined;
  let sessionId = "";
  afterAll(async () => {
    await session?.close({ force: true });
  });
  const svc = (): Service => {
    if (!session) throw new Error("the session did not start");
    return session;
  };

  it("init returns the cloud session", async () => {
    session = remote({ verbose: 2, logger: sink.logger });
    expect(session.browserbaseSessionID).toBeUndefined();
    const init = await session.init();
    sessionId = init.sessionId;
    expect(init.sessionId).toBe(session.browserbaseSessionID);
    expect(init.sessionUrl).toBe(`${server.url}/v1/sessions/${init.sessionId}`);
    expect(session.browserbaseSessionURL).toBe(init.sessionUrl);
    // svc's live view of the session (its token derived from the session's, not connectUrl's).
    expect(init.debugUrl).toMatch(new RegExp(`^${server.url}/v1/live/${init.sessionId}/[A-Za-z0-9_-]{43}$`));
    expect(session.browserbaseDebugURL).toBe(init.debugUrl);
    expect((await platformSession(init.sessionId)).body.status).toBe("RUNNING");
  });

  it("a non-default loopDetection is refused, not dropped: the session API cannot carry it", async () => {
    for (const loopDetection of [false, { repeats: 5 }] as const) {
      const e = await svc().agent().execute({ instruction: "anything", loopDetection }).then(() => undefined, (err: unknown) => err as Error);
      expect(e).toBeInstanceOf(ServiceInvalidArgumentError);
      expect(e!.message).toMatch(/^execute\.loopDetection: cannot be sent over the session API/);
    }
    expect(world.fake.requests).toHaveLength(0);
  });

  it("the server's streamed logs reach the local logger; no key reaches any log", async () => {
    await svc().page.goto(world.server.url("forms.html"));
    await svc().act('please type "Ada Lovelace" into the Full name field');
    expect(sink.lines.some((l) => l.category === "act")).toBe(true);
  });

  it("close releases the session and its browser; no key reached any log", async () => {
    await svc().close();
    const after = await platformSession(sessionId);
    expect(after.body.status).not.toBe("RUNNING");
    const everything = sink.text() + serverLog.join("\n");
    for (const secret of [KEY_A, KEY_B, model().apiKey]) expect(everything).not.toContain(secret);
  });
});

describe("keepAlive, resume, other keys", () => {
  it("keepAlive: close only disconnects (another key cannot resume it); browserbaseSessionID resumes the same browser", async () => {
    const first = remote({ keepAlive: true });
    const { sessionId } = await first.init();
    await first.page.goto(world.server.url("forms.html"));
    await first.close();
    expect((await platformSession(sessionId)).body.status).toBe("RUNNING");
    // Key B sees neither the running session nor its platform record.
    await expect(remote({ apiKey: KEY_B, browserbaseSessionID: sessionId }).init()).rejects.toBeInstanceOf(BrowserbaseSessionNotFoundError);
    expect((await platformSession(sessionId, KEY_B)).status).toBe(404);

    const again = remote({ browserbaseSessionID: sessionId });
    await using(again, async (svc) => {
      expect(svc.browserbaseSessionID).toBe(sessionId);
      expect(svc.page.url()).toBe(world.server.url("forms.html"));
      expect((await svc.extract()).pageText).toContain("Full name");
    });
    expect((await platformSession(sessionId)).body.status).not.toBe("RUNNING");
  });

  it("unknown sessions and a missing key fail with the documented errors (another key's session: the keepAlive test)", async () => {
    await expect(remote({ browserbaseSessionID: "no-such-session" }).init()).rejects.toBeInstanceOf(BrowserbaseSessionNotFoundError);

    const saved = process.env.BROWSERBASE_API_KEY;
    delete process.env.BROWSERBASE_API_KEY;
    try {
      await expect(makeService({ env: "BROWSERBASE", apiBaseURL: server.url }).init()).rejects.toBeInstanceOf(MissingEnvironmentVariableError);
    } finally {
      if (saved !== undefined) process.env.BROWSERBASE_API_KEY = saved;
    }
  });

  it("useAPI: false runs the operations here, over the cloud session's CDP connection", async () => {
    world.fake.reset();
    await using(remote({ useAPI: false }), async (svc) => {
      await svc.page.goto(world.server.url("forms.html"));
      const r = await svc.act('please type "Ada Lovelace" into the Full name field');
      expect(r.success).toBe(true);
      expect(await textIn(svc.page, "#log")).toBe("name: Ada Lovelace");
      // Counted here, not on the server: the replay of this session has no act.
      expect((await svc.metrics).actPromptTokens).toBeGreaterThan(0);
      const replay = await fetch(`${server.url}/v1/sessions/${svc.browserbaseSessionID}/replay`, { headers: { "x-bb-api-key": KEY_A } });
      expect(replay.status).toBe(404);
    });
  });
});
