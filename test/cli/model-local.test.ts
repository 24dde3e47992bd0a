/**
 * The CLI against a local-style model server (the fake with llama.cpp's quirks): `svc act` works through
 * the structured-output fallback, each command paying it again (nothing is kept between commands), and
 * `SVC_MODEL_STRUCTURED_OUTPUT` / the `model.structuredOutput` setting states it up front.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REFUSALS, localServer } from "../support/fake-model/local-servers.js";
import { type ModelWorld, collect, json, spawnSvc, startModelWorld, svc } from "./helpers.js";

// What a `svc` process learns about the server lasts as long as the process (the library keeps it): the acts
// that show each command paying the step down again are real processes; the other commands run in this one.

let world: ModelWorld;

beforeAll(async () => {
  world = await startModelWorld();
  const started = await svc(["--json", "sessions", "start"], world.sb.env);
  expect(started.code, started.stderr).toBe(0);
  expect((await svc(["goto", world.server.url("forms.html")], world.sb.env)).code).toBe(0);
}, 60_000);

afterAll(async () => {
  if (world) await svc(["sessions", "end", "--all"], world.sb.env);
  await world?.close();
});

const quirks = { jsonSchema: REFUSALS.llamacppJsonSchema, wrap: ["think", "fence"] as Array<"think" | "fence"> };
const formats = () => world.fake.requests.map((r) => `${r.response?.status} ${r.body.response_format?.type ?? "none"}`);

describe("svc act at a local server", () => {
  it("steps down to json_object on the refusal, in every command (one extra request each)", async () => {
    world.fake.reset();
    world.fake.mode = localServer(quirks);
    for (let i = 0; i < 2; i++) {
      const r = await collect(spawnSvc(["--json", "act", "please click the Submit button", "--model", "vllm/qwen3"], world.sb.env));
      expect(r.code, r.stderr).toBe(0);
      expect(json<{ result: { success: boolean } }>(r.stdout).result.success).toBe(true);
    }
    expect(formats()).toEqual(["400 json_schema", "200 json_object", "400 json_schema", "200 json_object"]);
  });

  it("SVC_MODEL_STRUCTURED_OUTPUT states it: no refused request; a bad value is refused naming the variable", async () => {
    world.fake.reset();
    world.fake.mode = localServer(quirks);
    const r = await svc(["--json", "act", "please click the Submit button", "--model", "vllm/qwen3"], { ...world.sb.env, SVC_MODEL_STRUCTURED_OUTPUT: "json_object" });
    expect(r.code, r.stderr).toBe(0);
    expect(formats()).toEqual(["200 json_object"]);

    const bad = await svc(["act", "please click the Submit button", "--model", "vllm/qwen3"], { ...world.sb.env, SVC_MODEL_STRUCTURED_OUTPUT: "xml" });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/SVC_MODEL_STRUCTURED_OUTPUT must be one of json_schema, json_object, prompt/);
  });
});

describe("a model endpoint that stalls, with no --timeout", () => {
  it("each request ends at SVC_MODEL_TIMEOUT_MS (body included), is retried twice, then exit 10 naming the deadline", async () => {
    world.fake.reset();
    world.fake.script({ kind: "hang" }, { kind: "hang", afterHeaders: true }, { kind: "hang" });
    const t0 = Date.now();
    const r = await svc(["--json", "act", "please click the Submit button"], { ...world.sb.env, SVC_MODEL_TIMEOUT_MS: "500" });
    expect(r.code, r.stdout + r.stderr).toBe(10);
    const { error } = json<{ error: { code: string; message: string } }>(r.stdout);
    expect(error.code).toBe("LLM_RESPONSE_ERROR");
    expect(error.message).toMatch(/did not answer within 500 ms after 3 attempts/);
    expect(world.fake.requests).toHaveLength(3);
    // Three deadlines and the SDK's backoff between them; far under the default's 3 × 60 s.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1500);

    const bad = await svc(["act", "please click the Submit button"], { ...world.sb.env, SVC_MODEL_TIMEOUT_MS: "7200000" });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/SVC_MODEL_TIMEOUT_MS must be at most 3600000/);
  });
});
