/**
 * Issue 9, model credentials and caches per tenant: two-key servers, fake model servers recording headers, the
 * operator's OPENAI_API_KEY set. B's own endpoint never sees the operator's key; one outside `modelEndpoints` is a
 * 400 naming the field; an unallowed loopback endpoint is refused where it connects, in every spelling. B's repeat of
 * A's act or agent task is a MISS; A's is a HIT.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM } from "../support/browser.js";
import { startFakeModel, type FakeModel } from "../support/fake-model.js";
import { startFixtureServer, type FixtureServer } from "../support/server.js";
import { apiClient, expectNoChrome } from "../support/session-api.js";
import { scriptTimes, siteBrain, step, stepRequests } from "./agent-support.js";
import { markTmpdir } from "../support/process.js";

const KEY_A = "models-key-aaaaaaaa";
const KEY_B = "models-key-bbbbbbbb";
const OPERATOR_KEY = "sk-operator-SECRET-0123456789abcdef";
const B_OWN_KEY = "sk-tenant-b-own-key-42";
const B_HEADER_KEY = "sk-tenant-b-header-key-43";
const MODEL = "openai/gpt-4.1-mini";

const base = mkdtempSync(join(tmpdir(), "svc-security-models-"));
const cacheDir = join(base, "cache");
let restoreTmp = (): void => {};
const saved = { OPENAI_API_KEY: process.env.OPENAI_API_KEY };
let site: FixtureServer;
/** A model endpoint the operator allows (allowNet): reached, and records what it was sent. */
let allowed: FakeModel;
/** A "capture" endpoint on loopback that nothing allows: must never see a request. */
let capture: FakeModel;
let server: RunningServer;
/** The same, with `modelEndpoints` pinned to `allowed` (and allowNet for the fixture site only). */
let pinned: RunningServer;

beforeAll(async () => {
  restoreTmp = markTmpdir(base);
  // The operator's own key, as `svc serve` would find it in its environment.
  process.env.OPENAI_API_KEY = OPERATOR_KEY;
  [site, allowed, capture] = await Promise.all([startFixtureServer(), startFakeModel(), startFakeModel()]);
  const common = { port: 0, apiKeys: [KEY_A, KEY_B], cacheDir, launch: { executablePath: CHROMIUM, headless: true } };
  const siteNet = [`localhost:${site.port}`, `127.0.0.1:${site.port}`];
  [server, pinned] = await Promise.all([
    startServer({ ...common, allowNet: [...siteNet, `127.0.0.1:${allowed.port}`] }),
    startServer({ ...common, cacheDir: join(base, "cache-pinned"), allowNet: siteNet, modelEndpoints: [allowed.baseURL()] }),
  ]);
});

afterAll(async () => {
  for (const [client, id] of shared) await end(client, await id).catch(() => {});
  await Promise.all([server?.close(), pinned?.close()]);
  await Promise.all([site?.close(), allowed?.close(), capture?.close()]);
  await expectNoChrome(base);
  restoreTmp();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

const asA = apiClient({ server: () => server, key: KEY_A });
const asB = apiClient({ server: () => server, key: KEY_B });
const pinnedB = apiClient({ server: () => pinned, key: KEY_B });
type Client = typeof asB;

/** A session started with a provider model name and no model key (the operator's key serves that one). */
async function session(client: Client): Promise<string> {
  const r = await client.json("POST", "/sessions/start", { modelName: MODEL });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.sessionId as string;
}

/**
 * One session per key on `server`, shared by the tests (none is about a session's start or end; each
 * navigates before it acts); ended before the server closes.
 */
const shared = new Map<Client, Promise<string>>();
function sharedSession(client: Client): Promise<string> {
  const id = shared.get(client) ?? session(client);
  shared.set(client, id);
  return id;
}

async function navigate(client: Client, id: string, path: string): Promise<void> {
  const r = await client.json("POST", `/sessions/${id}/navigate`, { url: site.url(path) });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

async function end(client: Client, id: string): Promise<void> {
  await client.json("POST", `/sessions/${id}/end`);
}

/** Every header any request to `fake` carried, as one string. */
const headersSeen = (fake: FakeModel) => fake.requests.map((r) => JSON.stringify(r.headers)).join("\n");

describe("a client-chosen model endpoint is sent only the key the request brings", () => {
  it("no key of its own: no Authorization at all, never the operator's; its own apiKey or x-model-api-key: exactly that", async () => {
    const id = await sharedSession(asB);
    try {
      await navigate(asB, id, "forms.html");
      allowed.reset();
      const observed = await asB.json("POST", `/sessions/${id}/observe`, { instruction: "find the Submit button", options: { model: { modelName: MODEL, baseURL: allowed.baseURL() } } });
      expect(observed.status, JSON.stringify(observed.body)).toBe(200);
      expect(allowed.requests.length).toBeGreaterThan(0);
      expect(allowed.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
      expect(headersSeen(allowed)).not.toContain(OPERATOR_KEY);

      // Streamed, too (the same Service path).
      allowed.reset();
      const streamed = await asB.stream(`/sessions/${id}/extract`, { instruction: "the page heading", options: { model: { modelName: MODEL, baseURL: allowed.baseURL() } } });
      expect(streamed.events.at(-1)!.data.data.status).toBe("finished");
      expect(allowed.requests.length).toBeGreaterThan(0);
      expect(headersSeen(allowed)).not.toContain(OPERATOR_KEY);
      expect(allowed.requests.every((r) => r.headers.authorization === undefined)).toBe(true);

      allowed.reset();
      const own = await asB.json("POST", `/sessions/${id}/extract`, { instruction: "the page heading", options: { model: { modelName: MODEL, baseURL: allowed.baseURL(), apiKey: B_OWN_KEY } } });
      expect(own.status, JSON.stringify(own.body)).toBe(200);
      expect(allowed.requests.map((r) => r.headers.authorization)).toEqual(allowed.requests.map(() => `Bearer ${B_OWN_KEY}`));

      allowed.reset();
      const header = await asB.json(
        "POST",
        `/sessions/${id}/observe`,
        { instruction: "find the Submit button", options: { model: { modelName: MODEL, baseURL: allowed.baseURL() } } },
        { headers: { "x-model-api-key": B_HEADER_KEY } },
      );
      expect(header.status, JSON.stringify(header.body)).toBe(200);
      expect(allowed.requests.length).toBeGreaterThan(0);
      expect(allowed.requests.every((r) => r.headers.authorization === `Bearer ${B_HEADER_KEY}`)).toBe(true);
    } finally {
      allowed.reset();
    }
  });

  it("agentExecute: agentConfig.model at a chosen endpoint gets no operator key either", async () => {
    const id = await sharedSession(asB);
    try {
      await navigate(asB, id, "forms.html");
      allowed.reset();
      allowed.script(step("done", { message: "nothing to do", success: true }, "done"));
      const r = await asB.json("POST", `/sessions/${id}/agentExecute`, {
        agentConfig: { model: { modelName: MODEL, baseURL: allowed.baseURL() } },
        executeOptions: { instruction: "say you are done", maxSteps: 2 },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(allowed.requests.length).toBeGreaterThan(0);
      expect(allowed.requests.every((q) => q.headers.authorization === undefined)).toBe(true);
      expect(headersSeen(allowed)).not.toContain(OPERATOR_KEY);
    } finally {
      allowed.reset();
    }
  });
});

describe("modelEndpoints pins where a request's model may point", () => {
  it("a baseURL outside the list is a 400 naming the field and what is allowed, before any stream; the listed one works", async () => {
    const id = await session(pinnedB);
    try {
      await navigate(pinnedB, id, "forms.html");
      const outside = { modelName: MODEL, baseURL: capture.baseURL() };
      const allowedList = allowed.baseURL().replace(/[./]/g, (c) => `\\${c}`);
      const act = await pinnedB.json("POST", `/sessions/${id}/act`, { input: "please click the Submit button", options: { model: outside } });
      expect(act.status).toBe(400);
      expect(act.body.message).toMatch(new RegExp(`^options\\.model\\.baseURL: http://127\\.0\\.0\\.1:${capture.port}/v1 is not an allowed model endpoint \\(allowed: ${allowedList}\\)`));

      const streamed = await pinnedB.call("POST", `/sessions/${id}/observe`, { instruction: "find it", options: { model: outside }, streamResponse: true });
      expect(streamed.status).toBe(400);
      expect((await streamed.json()).message).toMatch(/^options\.model\.baseURL: /);

      // A look-alike prefix is not under the listed one.
      const lookalike = await pinnedB.json("POST", `/sessions/${id}/extract`, { instruction: "x", options: { model: { modelName: MODEL, baseURL: `${allowed.baseURL()}0` } } });
      expect(lookalike.status).toBe(400);
      expect(lookalike.body.message).toMatch(/^options\.model\.baseURL: .* is not an allowed model endpoint/);

      for (const [agentConfig, field] of [
        [{ model: outside }, "agentConfig.model.baseURL"],
        [{ model: MODEL, executionModel: outside }, "agentConfig.executionModel.baseURL"],
      ] as const) {
        const agent = await pinnedB.json("POST", `/sessions/${id}/agentExecute`, { agentConfig, executeOptions: { instruction: "do it" } });
        expect(agent.status).toBe(400);
        expect(agent.body.message.startsWith(`${field}: `)).toBe(true);
      }
      expect(capture.requests).toHaveLength(0);

      // The listed endpoint is reached (its host is allowed for model calls though allowNet does not name it).
      allowed.reset();
      const ok = await pinnedB.json("POST", `/sessions/${id}/observe`, { instruction: "find the Submit button", options: { model: { modelName: MODEL, baseURL: allowed.baseURL() } } });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(allowed.requests.length).toBeGreaterThan(0);
      expect(headersSeen(allowed)).not.toContain(OPERATOR_KEY);
    } finally {
      allowed.reset();
      await end(pinnedB, id);
    }
  });
});

describe("a client-chosen model endpoint passes the tenants' address policy", () => {
  it("loopback in every spelling (and a name resolving to it) is refused where the connection is made; the endpoint sees nothing", async () => {
    const id = await sharedSession(asB);
    try {
      await navigate(asB, id, "forms.html");
      const p = capture.port;
      const spellings = [`http://127.0.0.1:${p}/v1`, `http://localhost:${p}/v1`, `http://[::ffff:127.0.0.1]:${p}/v1`, `http://[::ffff:7f00:1]:${p}/v1`, `http://2130706433:${p}/v1`, `http://127.1:${p}/v1`];
      for (const baseURL of spellings) {
        const host = new URL(baseURL).host;
        const r = await asB.json("POST", `/sessions/${id}/observe`, { instruction: "find the Submit button", options: { model: { modelName: MODEL, baseURL, apiKey: B_OWN_KEY } } });
        expect(r.status, `${baseURL}: ${JSON.stringify(r.body)}`).toBe(400);
        expect(r.body.message).toContain(`the model endpoint ${host} is not reachable from here`);
        expect(r.body.message).toMatch(/loopback, private or link-local/);
      }
      // Streamed: an error event naming the endpoint's host.
      const streamed = await asB.stream(`/sessions/${id}/act`, { input: "please click the Submit button", options: { model: { modelName: MODEL, baseURL: spellings[0] } } });
      expect(streamed.events.at(-1)!.event === "error" || streamed.events.at(-1)!.data.data.status === "error").toBe(true);
      expect(JSON.stringify(streamed.events.at(-1)!.data)).toContain(`the model endpoint 127.0.0.1:${p} is not reachable from here`);
      expect(capture.requests).toHaveLength(0);
    } finally {
      allowed.reset();
    }
  });
});

describe("caches are per key", () => {
  it("act: B's identical act on the same page after A's is a MISS with a model call of its own; A's repeat is a HIT", async () => {
    const [a, b] = [await sharedSession(asA), await sharedSession(asB)];
    try {
      await Promise.all([navigate(asA, a, "forms.html"), navigate(asB, b, "forms.html")]);
      const body = { input: "please click the Submit button", options: { model: { modelName: MODEL, baseURL: allowed.baseURL() } } };
      allowed.reset();
      const first = await asA.json("POST", `/sessions/${a}/act`, body);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.headers.get("browserbase-cache-status")).toBe("MISS");
      const afterA = allowed.requests.length;
      expect(afterA).toBeGreaterThan(0);

      const probe = await asB.json("POST", `/sessions/${b}/act`, body);
      expect(probe.status, JSON.stringify(probe.body)).toBe(200);
      expect(probe.headers.get("browserbase-cache-status")).toBe("MISS");
      expect(probe.body.data.result.cacheStatus).toBe("MISS");
      expect(allowed.requests.length).toBeGreaterThan(afterA);

      const afterB = allowed.requests.length;
      const again = await asA.json("POST", `/sessions/${a}/act`, body);
      expect(again.headers.get("browserbase-cache-status")).toBe("HIT");
      expect(allowed.requests.length).toBe(afterB);
      // On disk: one directory per key fingerprint, nothing shared at the top.
      expect(readdirSync(cacheDir).sort()).toEqual(expect.arrayContaining([expect.stringMatching(/^[0-9a-f]{16}$/)]));
      expect(readdirSync(cacheDir).every((name) => /^[0-9a-f]{16}$/.test(name))).toBe(true);
      expect(readdirSync(cacheDir)).toHaveLength(2);
    } finally {
      allowed.reset();
    }
  });

  it("agent: A's cached run is not replayed for B (B's run calls the model; its cacheEntry is its own); A's repeat replays (no call: the same page, the stored answer)", async () => {
    const [a, b] = [await sharedSession(asA), await sharedSession(asB)];
    const start = site.url("site/index.html");
    const request = {
      agentConfig: { model: { modelName: MODEL, baseURL: allowed.baseURL() } },
      executeOptions: { instruction: "Order two Boston Ferns with express delivery for %customer% (%email%)", variables: { customer: "Ada Lovelace", email: "ada@example.com" } },
      shouldCache: true,
    };
    try {
      allowed.reset();
      await navigate(asA, a, "site/index.html");
      scriptTimes(allowed, siteBrain({ start }));
      const first = await asA.json("POST", `/sessions/${a}/agentExecute`, request);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body.data.result).toMatchObject({ completed: true, metadata: { cacheStatus: "MISS" } });
      const key = first.body.data.cacheEntry.cacheKey as string;

      allowed.reset();
      await navigate(asB, b, "site/index.html");
      scriptTimes(allowed, siteBrain({ start }));
      const probe = await asB.json("POST", `/sessions/${b}/agentExecute`, request);
      expect(probe.status, JSON.stringify(probe.body)).toBe(200);
      expect(probe.body.data.result.metadata.cacheStatus).toBe("MISS");
      expect(stepRequests(allowed).length).toBeGreaterThan(0);

      allowed.reset();
      scriptTimes(allowed, siteBrain({ start }));
      await navigate(asA, a, "site/index.html");
      const again = await asA.json("POST", `/sessions/${a}/agentExecute`, request);
      expect(again.body.data.result).toMatchObject({ completed: true, metadata: { cacheStatus: "HIT" } });
      expect(again.body.data.cacheEntry.cacheKey).toBe(key);
      expect(stepRequests(allowed)).toHaveLength(0);
    } finally {
      allowed.reset();
    }
  });
});
