/**
 * `svc serve` takes the model settings every other command takes: SVC_MODEL_BASE_URL, else the stored
 * `model.baseURL`, with the operator's provider key (OPENAI_API_KEY …). A session whose model names no
 * endpoint is served there, on the right path for its wire (an Anthropic model at a `…/v1` base URL posts
 * to /v1/messages, not /v1/v1/messages).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type FakeModel, startFakeModel } from "../support/fake-model.js";
import { type FixtureServer, startFixtureServer } from "../support/server.js";
import { type Sandbox, assertBuilt, sandbox, svc } from "./helpers.js";
import { type Served, startServe } from "./serve-helpers.js";

const KEY = "serve-model-key-0123456789";

let fake: FakeModel;
let site: FixtureServer;
let sb: Sandbox;
let served: Served | undefined;

beforeAll(async () => {
  assertBuilt();
  [fake, site] = await Promise.all([startFakeModel(), startFixtureServer()]);
  sb = sandbox({ OPENAI_API_KEY: "sk-operator-openai", ANTHROPIC_API_KEY: "sk-operator-anthropic" });
});
afterEach(async () => {
  served?.child.kill("SIGTERM");
  await served?.done;
  served = undefined;
});
afterAll(async () => {
  sb.cleanup();
  await Promise.all([fake.close(), site.close()]);
});

async function call(path: string, body: unknown): Promise<{ status: number; json: Record<string, any> }> {
  const res = await fetch(`${served!.url}/v1${path}`, { method: "POST", headers: { "x-bb-api-key": KEY, "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

/** Starts a session with `modelName`, observes the forms page, ends it; returns what the fake model saw. */
async function observeWith(modelName: string) {
  const start = await call("/sessions/start", { modelName });
  expect(start.status, JSON.stringify(start.json)).toBe(200);
  const id = start.json.data.sessionId as string;
  expect((await call(`/sessions/${id}/navigate`, { url: site.url("forms.html") })).status).toBe(200);
  const before = fake.requests.length;
  const observed = await call(`/sessions/${id}/observe`, { instruction: "find the Email field" });
  expect(observed.status, JSON.stringify(observed.json)).toBe(200);
  await call(`/sessions/${id}/end`, {});
  return fake.requests.slice(before);
}

describe("svc serve: the model settings of every command", () => {
  it("SVC_MODEL_BASE_URL (an origin with a trailing slash): the session's openai model goes there with OPENAI_API_KEY", async () => {
    // No warm browser: each test starts one session, and a warm pool would launch a Chrome to replace it.
    served = await startServe({ ...sb.env, SVC_MODEL_BASE_URL: `${fake.origin}/` }, ["--api-key", KEY, "--warm-browsers", "0"]);
    const sent = await observeWith("openai/gpt-served");
    expect(sent.map((r) => [r.path, r.model, r.headers.authorization])).toEqual([["/v1/responses", "gpt-served", "Bearer sk-operator-openai"]]);
  }, 60_000);

  it("the stored model.baseURL (…/v1): an anthropic model posts to /v1/messages with ANTHROPIC_API_KEY", async () => {
    const set = await svc(["config", "set", "model.baseURL", fake.baseURL("openai")], sb.env);
    expect(set.code, set.stderr).toBe(0);
    try {
      served = await startServe(sb.env, ["--api-key", KEY, "--warm-browsers", "0"]);
      const sent = await observeWith("anthropic/claude-served");
      expect(sent.map((r) => [r.path, r.model, r.headers["x-api-key"] ?? r.headers.authorization])).toEqual([["/v1/messages", "claude-served", expect.stringContaining("sk-operator-anthropic")]]);
    } finally {
      await svc(["config", "unset", "model.baseURL"], sb.env);
    }
  }, 60_000);
});
