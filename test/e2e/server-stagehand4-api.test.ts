/**
 * The Stagehand API calls of a Stagehand 4 client, over raw HTTP exactly as its browserbaseTransport sends them: the
 * Model Gateway answered by the operator's model (the fake as modelBaseURL, the operator's OPENAI_API_KEY), the
 * per-key cache in the `{success, data}` envelope, and 501 for what svc does not offer. Two keys: isolated.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Browserbase from "@browserbasehq/sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM } from "../support/browser.js";
import { startFakeModel, type FakeModel } from "../support/fake-model.js";
import { markTmpdir } from "../support/process.js";

const KEY = "stagehand4-key-0001";
const OTHER = "stagehand4-key-0002";
const OPERATOR_KEY = "sk-operator-secret-0123456789";
const base = mkdtempSync(join(tmpdir(), "svc-stagehand4-api-"));
let restoreTmp = (): void => {};
const saved = { OPENAI_API_KEY: process.env.OPENAI_API_KEY, GROQ_API_KEY: process.env.GROQ_API_KEY };
const logs: string[] = [];

let server: RunningServer;
let fake: FakeModel;
let mine: string;
let theirs: string;

function post(path: string, body: unknown, headers: Record<string, string> = {}, key = KEY): Promise<Response> {
  return fetch(`${server.url}/v1${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-bb-api-key": key, ...headers },
    body: JSON.stringify(body),
  });
}

/** A gateway call as the transport makes it for a session. */
function gateway(body: unknown, sessionId = mine, key = KEY): Promise<Response> {
  return post("/llm/responses", body, { "x-bb-session-id": sessionId, authorization: `Bearer ${key}` }, key);
}

const RESPONSES_BODY = {
  model: "openai/gpt-4.1-mini",
  input: [{ role: "user", content: [{ type: "input_text", text: "Say hi as JSON" }] }],
  text: { format: { type: "json_schema", name: "greeting", strict: true, schema: { type: "object", properties: { hi: { type: "string" } }, required: ["hi"], additionalProperties: false } } },
};

const tree = (names: string[]) => ({ rootFrameId: "F1", frames: [{ frameId: "F1", axNodes: names.map((n, i) => ({ nodeId: String(i + 100), role: { type: "role", value: "button" }, name: { type: "computedString", value: n } })) }] });
const cacheReq = (sessionId: string, names = ["Submit", "Cancel"]) => ({ method: "act", sessionId, url: "http://site.test/form", cdpTree: tree(names), data: { input: "click submit", options: { variables: undefined, timeout: 5000 } } });

beforeAll(async () => {
  restoreTmp = markTmpdir(base);
  process.env.OPENAI_API_KEY = OPERATOR_KEY;
  delete process.env.GROQ_API_KEY;
  fake = await startFakeModel();
  server = await startServer({
    port: 0,
    apiKeys: [KEY, OTHER],
    cacheDir: join(base, "cache"),
    launch: { executablePath: CHROMIUM, headless: true },
    modelBaseURL: fake.baseURL(),
    log: (line) => logs.push(line),
    // Small bounds so the tests below can pass them (the defaults are in src/server/limits.ts).
    gatewayBodyLimitBytes: 200_000,
    gatewayConcurrencyPerKey: 4,
    gatewayRateLimitPerMinute: 150,
    cacheMaxEntryBytes: 50_000,
  });
  mine = (await new Browserbase({ apiKey: KEY, baseURL: server.url }).sessions.create({ keepAlive: true })).id;
  theirs = (await new Browserbase({ apiKey: OTHER, baseURL: server.url }).sessions.create({ keepAlive: true })).id;
});

afterAll(async () => {
  await server?.close();
  await fake?.close();
  restoreTmp();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

beforeEach(() => fake.reset());

describe("POST /v1/llm/responses (Model Gateway)", () => {
  it("answers a Responses API request with the operator's model and key, never the client's", async () => {
    fake.script({ hi: "there" });
    const res = await gateway(RESPONSES_BODY);
    expect(res.status).toBe(200);
    const out = (await res.json()) as { object: string; output: Array<{ content: Array<{ text: string }> }> };
    expect(out.object).toBe("response");
    expect(JSON.parse(out.output.at(-1)!.content[0]!.text)).toEqual({ hi: "there" });
    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0]!;
    expect(sent.path).toBe("/v1/responses");
    expect(sent.headers.authorization).toBe(`Bearer ${OPERATOR_KEY}`);
    expect(sent.body.model).toBe("gpt-4.1-mini");
    expect(sent.body.text).toEqual(RESPONSES_BODY.text);
    expect(JSON.stringify(sent.headers)).not.toContain(KEY);
    expect(logs.join("\n")).not.toContain(OPERATOR_KEY);
  });

  it("streams a streaming request through as the endpoint sends it (SSE)", async () => {
    fake.script({ hi: "streamed" });
    const res = await gateway({ ...RESPONSES_BODY, stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const text = await res.text();
    expect(text).toContain("response.completed");
    expect(text).toContain('\\"hi\\"');
    expect(fake.requests[0]!.stream).toBe(true);
  });

    it("takes svc's default model when the request names none or 'auto' (a client without a model config)", async () => {
    fake.script({ hi: "a" }, { hi: "b" });
    const { model: _m, ...noModel } = RESPONSES_BODY;
    expect((await gateway(noModel)).status).toBe(200);
    expect((await gateway({ ...RESPONSES_BODY, model: "auto" })).status).toBe(200);
    expect(fake.requests.map((r) => r.body.model)).toEqual(["gpt-4.1-mini", "gpt-4.1-mini"]);
  });

  it("serves only the calling key's running sessions", async () => {
    expect((await gateway(RESPONSES_BODY, theirs)).status).toBe(404);
    expect((await gateway(RESPONSES_BODY, "no-such-session")).status).toBe(404);
    const missing = await post("/llm/responses", RESPONSES_BODY);
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { message: string }).message).toContain("x-bb-session-id");
    const bb = new Browserbase({ apiKey: KEY, baseURL: server.url });
    const ended = (await bb.sessions.create()).id;
    await bb.sessions.update(ended, { status: "REQUEST_RELEASE" });
    expect((await gateway(RESPONSES_BODY, ended)).status).toBe(409);
    expect(fake.requests).toHaveLength(0);
  });

  it("refuses models the gateway cannot serve, and bodies that are no Responses request, naming the field", async () => {
    const anthropic = await gateway({ ...RESPONSES_BODY, model: "anthropic/claude-sonnet-4-5" });
    expect(anthropic.status).toBe(400);
    expect(((await anthropic.json()) as { message: string }).message).toMatch(/^model: .*OpenAI Responses API/);
    const noInput = await gateway({ model: "openai/gpt-4.1-mini" });
    expect(noInput.status).toBe(400);
    expect(((await noInput.json()) as { message: string }).message).toMatch(/^input: /);
    expect(fake.requests).toHaveLength(0);
  });

  it("says 501 when the server holds no key for the model's provider (the operator's setup)", async () => {
    // Without --model-base-url a provider's own endpoint needs the provider's key, which this server lacks.
    const plain = await startServer({ port: 0, apiKeys: [KEY], cacheDir: join(base, "cache-plain"), launch: { executablePath: CHROMIUM, headless: true } });
    let res: Response;
    try {
      const id = (await new Browserbase({ apiKey: KEY, baseURL: plain.url }).sessions.create()).id;
      res = await fetch(`${plain.url}/v1/llm/responses`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-bb-api-key": KEY, "x-bb-session-id": id, authorization: `Bearer ${KEY}` },
        body: JSON.stringify({ ...RESPONSES_BODY, model: "groq/llama-3.3-70b" }),
      });
    } finally {
      await plain.close();
    }
    expect(res.status).toBe(501);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe("NOT_IMPLEMENTED");
    expect(body.message).toBe("the server's Model Gateway cannot serve groq/llama-3.3-70b: no API key for groq: set GROQ_API_KEY on the server");
    expect(fake.requests).toHaveLength(0);
  });

  it("keeps the operator's credential out of what failures say", async () => {
    fake.script({ kind: "status", status: 401 });
    const refused = await gateway(RESPONSES_BODY);
    expect(refused.status).toBe(502);
    expect(await refused.text()).not.toContain(OPERATOR_KEY);
    expect(logs.some((l) => l.includes("gateway: the model endpoint answered 401"))).toBe(true);
    fake.script({ kind: "status", status: 400, body: { error: { message: `bad request (key ${OPERATOR_KEY})`, type: "invalid_request_error" } } });
    const bad = await gateway(RESPONSES_BODY);
    expect(bad.status).toBe(400);
    const text = await bad.text();
    expect(text).toContain("bad request (key ***)");
    expect(text).not.toContain(OPERATOR_KEY);
  });
});

describe("Model Gateway bounds per key", () => {
  it("a body over --gateway-body-limit is a 413 naming it; nothing reaches the model", async () => {
    const big = { ...RESPONSES_BODY, input: [{ role: "user", content: Array.from({ length: 5 }, () => ({ type: "input_text", text: "p".repeat(60_000) })) }] };
    const res = await gateway(big);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: "PAYLOAD_TOO_LARGE", message: expect.stringContaining("--gateway-body-limit") });
    expect(fake.requests).toHaveLength(0);
  });

  it("100 parallel requests of one key: 4 reach the model, the rest get 429 CONCURRENCY_LIMIT with Retry-After; another key is not held", async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    fake.mode = async () => {
      await gate;
      return { hi: "held" };
    };
    const all = Array.from({ length: 100 }, () => gateway(RESPONSES_BODY));
    const refused: Response[] = [];
    const pending = new Set(all);
    // The 96 refusals come back while the 4 forwarded ones are held at the model.
    for (const p of all) void p.then((r) => r.status === 429 && (refused.push(r), pending.delete(p)));
    await expect.poll(() => refused.length, { timeout: 30_000 }).toBe(96);
    expect(fake.requests).toHaveLength(4);
    expect(refused[0]!.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await refused[0]!.json()).toMatchObject({ code: "CONCURRENCY_LIMIT", message: expect.stringContaining("--gateway-concurrency") });
    // The other key has slots of its own.
    const theirsCall = gateway(RESPONSES_BODY, theirs, OTHER);
    await expect.poll(() => fake.requests.length, { timeout: 10_000 }).toBe(5);
    open();
    expect((await Promise.all([...pending])).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((await theirsCall).status).toBe(200);
    // Slots come back once answers were passed on, streamed ones too.
    const streamed = await Promise.all(Array.from({ length: 4 }, () => gateway({ ...RESPONSES_BODY, stream: true }).then((r) => r.text())));
    expect(streamed.every((t) => t.includes("response.completed"))).toBe(true);
    expect((await gateway(RESPONSES_BODY)).status).toBe(200);
  }, 60_000);

  it("a client that leaves in the middle of a streamed answer gives its slot back", async () => {
    fake.mode = { kind: "hang", afterHeaders: true };
    const aborts = Array.from({ length: 4 }, () => new AbortController());
    const held = await Promise.all(aborts.map((a) => fetch(`${server.url}/v1/llm/responses`, { method: "POST", signal: a.signal, headers: { "content-type": "application/json", "x-bb-api-key": KEY, "x-bb-session-id": mine }, body: JSON.stringify({ ...RESPONSES_BODY, stream: true }) })));
    expect(held.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((await gateway(RESPONSES_BODY)).status).toBe(429);
    for (const a of aborts) a.abort();
    fake.mode = undefined;
    await expect.poll(async () => (await gateway(RESPONSES_BODY)).status, { timeout: 15_000, interval: 200 }).toBe(200);
  }, 30_000);

  it("past --gateway-rate requests a minute, 429 with Retry-After before anything is forwarded", async () => {
    // The other key's requests without a session are refused (400) but counted, as every request is.
    const statuses: number[] = [];
    for (let i = 0; i < 152; i++) statuses.push((await post("/llm/responses", RESPONSES_BODY, {}, OTHER)).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);
    const res = await post("/llm/responses", RESPONSES_BODY, {}, OTHER);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await res.json()) as { message: string }).message).toContain("--gateway-rate");
    expect(fake.requests).toHaveLength(0);
  }, 60_000);
});

describe("POST /v1/cache/get and /v1/cache/set", () => {
  it("an entry over --cache-entry-max is a 413 CACHE_ENTRY_TOO_LARGE; nothing is stored", async () => {
    const res = await post("/cache/set", { ...cacheReq(mine, ["Big"]), value: "v".repeat(60_000) });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: "CACHE_ENTRY_TOO_LARGE", message: expect.stringMatching(/^value: .*--cache-entry-max/) });
    expect(((await (await post("/cache/get", cacheReq(mine, ["Big"]))).json()) as any).data.hit).toBe(false);
  });

  it("misses, stores, then hits, in the envelope and shapes the 4.x CacheClient parses", async () => {
    const miss = (await (await post("/cache/get", cacheReq(mine))).json()) as any;
    expect(miss).toEqual({ success: true, data: { cacheKey: expect.stringMatching(/^[0-9a-f]{64}$/), hit: false, missReason: "not_found" } });
    const value = [{ selector: "xpath=/html/body/button[1]", description: "Submit", method: "click", arguments: [] }];
    const set = (await (await post("/cache/set", { ...cacheReq(mine), value, llmUsage: { inputTokens: 900, outputTokens: 40 } })).json()) as any;
    expect(set).toEqual({ success: true, data: { cacheKey: miss.data.cacheKey, written: true } });
    // Same page structure, other node ids and key order: a hit.
    const again = cacheReq(mine);
    again.cdpTree.frames[0]!.axNodes.forEach((n) => (n.nodeId = `9${n.nodeId}`));
    const hit = (await (await post("/cache/get", { data: again.data, url: again.url, cdpTree: again.cdpTree, sessionId: mine, method: "act" })).json()) as any;
    expect(hit.data).toMatchObject({ cacheKey: miss.data.cacheKey, hit: true, value, hitCount: 1, tokensSaved: { input: 900, output: 40, total: 940 } });
    expect(hit.data.ageMs).toBeGreaterThanOrEqual(0);
  });

  it("misses on a page that looks different, and keeps each key's entries its own", async () => {
    await post("/cache/set", { ...cacheReq(mine), value: [{ selector: "xpath=/a", description: "", arguments: [] }] });
    const changed = (await (await post("/cache/get", cacheReq(mine, ["Submit", "Delete everything"]))).json()) as any;
    expect(changed.data.hit).toBe(false);
    const other = (await (await post("/cache/get", cacheReq(theirs), {}, OTHER)).json()) as any;
    expect(other.data.hit).toBe(false);
    // Another key's session cannot be named.
    expect((await post("/cache/get", cacheReq(theirs))).status).toBe(404);
    const bad = await post("/cache/set", { ...cacheReq(mine), method: "agent" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/^method: /);
  });
});

describe("calls svc does not offer", () => {
  it.each([
    ["/llm/chat/completions", "POST /v1/llm/chat/completions"],
    ["/cache/delete", "POST /v1/cache/delete"],
  ])("%s answers 501 NOT_IMPLEMENTED naming the call", async (path, named) => {
    const res = await post(path, {});
    expect(res.status).toBe(501);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe("NOT_IMPLEMENTED");
    expect(body.message).toContain(named);
  });
});
