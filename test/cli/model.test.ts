/**
 * The model-backed commands through the built CLI against the fake model server (real openai SDK, real
 * Responses wire): act by instruction, observe, extract with a JSON Schema file, the action cache, variables
 * that never leak, tokens and time in history and metrics, and what happens when no key is configured
 * (exit 9 without a terminal; a hidden prompt, an offer to store and one retry at a terminal).
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FakeModel } from "../support/fake-model.js";
import type { FixtureServer } from "../support/server.js";
import { type Sandbox, expectOneLine, filesUnder, hasPython, json, svc, svcInPty, type ModelWorld, startModelWorld } from "./helpers.js";

interface Action {
  selector: string;
  description: string;
  method: string;
  arguments: string[];
}
interface ActJson {
  ok: boolean;
  model: string;
  result: { success: boolean; message: string; actions: Action[]; cacheStatus?: "HIT" | "MISS" };
}
interface HistoryJson {
  entries: { method: string; parameters: Record<string, unknown>; usage?: { promptTokens: number; completionTokens: number; inferenceTimeMs: number }; durationMs?: number }[];
}

let server: FixtureServer;
let fake: FakeModel;
let sb: Sandbox;
let world: ModelWorld | undefined;

beforeAll(async () => {
  world = await startModelWorld();
  ({ server, fake, sb } = world);
  const started = await svc(["--json", "sessions", "start"], sb.env);
  expect(started.code, started.stderr).toBe(0);
  expect((await svc(["goto", server.url("forms.html")], sb.env)).code).toBe(0);
}, 60_000);

afterAll(async () => {
  if (sb) await svc(["sessions", "end", "--all"], sb.env);
  await world?.close();
});

async function pageText(): Promise<string> {
  const r = await svc(["--json", "extract"], sb.env);
  expect(r.code, r.stderr).toBe(0);
  return json<{ pageText: string }>(r.stdout).pageText;
}

describe("svc act / observe / extract with a model", () => {
  it("act \"instruction\" clicks through the model; the effect shows in svc extract", async () => {
    const before = fake.requests.length;
    const r = await svc(["--json", "act", "please click the Submit button", "--model", "openai/gpt-x"], sb.env);
    expect(r.stderr).toBe("");
    expect(r.code, r.stdout).toBe(0);
    const out = json<ActJson>(r.stdout);
    expect(out).toMatchObject({ ok: true, model: "openai/gpt-x", result: { success: true } });
    expect(out.result.actions).toEqual([expect.objectContaining({ method: "click", description: expect.stringMatching(/Submit/) })]);
    expect(out.result.cacheStatus).toBeUndefined(); // no --cache-dir, no cache
    const sent = fake.requests.slice(before);
    expect(sent.map((q) => [q.operation, q.model, q.path])).toEqual([["act", "gpt-x", "/v1/responses"]]);
    expect(sent[0]!.headers.authorization).toBe("Bearer sk-test");
    expect(sent[0]!.instruction).toBe("please click the Submit button");
    expect(await pageText()).toContain('"country":""'); // the form's submit handler wrote its JSON
  });

  it("text output, the default model from SVC_MODEL, and history/metrics with tokens and time per call", async () => {
    const before = fake.requests.length;
    const r = await svc(["act", "please click the Help link"], { ...sb.env, SVC_MODEL: "openai/gpt-from-env" });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/click succeeded: .*Help/);
    expect(fake.requests.slice(before).map((q) => q.model)).toEqual(["gpt-from-env"]);
    expect(await pageText()).toContain("clicked: help-link");

    const h = json<HistoryJson>((await svc(["--json", "history"], sb.env)).stdout);
    const acts = h.entries.filter((e) => e.method === "act");
    expect(acts.length).toBeGreaterThanOrEqual(2);
    for (const e of acts) {
      expect(e.usage?.promptTokens).toBeGreaterThan(0);
      expect(e.usage?.completionTokens).toBeGreaterThan(0);
      expect(e.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(acts.at(-1)!.parameters).toMatchObject({ instruction: "please click the Help link", model: "openai/gpt-from-env" });
    const text = await svc(["history"], sb.env);
    expect(text.stdout).toMatch(/act\s+"please click the Help link" → .*\[\d+\/\d+ tok, \d+ ms\]/);

    const m = await svc(["--json", "metrics"], sb.env);
    expect(m.code).toBe(0);
    const metrics = json<{ metrics: Record<string, number> }>(m.stdout).metrics;
    expect(metrics.actPromptTokens).toBeGreaterThan(0);
    expect(metrics.actCompletionTokens).toBeGreaterThan(0);
    expect(metrics.totalPromptTokens).toBeGreaterThanOrEqual(metrics.actPromptTokens!);
    const mt = await svc(["metrics"], sb.env);
    expect(mt.stdout).toMatch(/^act\s+[1-9]\d*\s+[1-9]\d*\s+\d+\s+\d+\s+\d+$/m);
  });

  it("observe lists Actions (JSON and text)", async () => {
    const r = await svc(["--json", "observe", "the Help link"], sb.env);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const { actions } = json<{ actions: Action[] }>(r.stdout);
    expect(actions.length).toBeGreaterThan(0);
    expect(actions[0]).toMatchObject({ method: "click", description: expect.stringMatching(/Help/), arguments: [] });
    expect(actions[0]!.selector).toMatch(/^xpath=|^\//);
    const t = await svc(["observe", "the Help link"], sb.env);
    expect(t.code).toBe(0);
    expect(t.stdout.split("\n")[0]).toMatch(/click\s+.*Help/);
    expect(fake.requestsFor("observe").length).toBe(2);
  });

  it("extract \"instruction\" --schema file.json: an object that fits, URL fields as real URLs", async () => {
    const schemaFile = join(sb.state, "..", "schema.json");
    writeFileSync(
      schemaFile,
      JSON.stringify({
        type: "object",
        properties: { heading: { type: "string", description: "the page heading" }, help: { type: "string", format: "uri", description: "the Help link" } },
        required: ["heading", "help"],
      }),
    );
    const r = await svc(["--json", "extract", "the heading and the help link", "--schema", schemaFile], sb.env);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const { result } = json<{ result: { heading: string; help: string } }>(r.stdout);
    expect(result.help).toBe(`${server.url("forms.html")}#help`);
    expect(typeof result.heading).toBe("string");
    const sent = fake.requestsFor("extract").at(-1)!;
    expect(sent.instruction).toBe("the heading and the help link");
    expect(sent.response?.text).toMatch(/"help":"e\d+"/); // the model names a ref; svc turned it into the URL

    // An instruction alone: {extraction}, printed as text.
    const plain = await svc(["extract", "the help text"], sb.env);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/Help/);
  });

  it("extract arguments: at most one instruction and one URL; a bad schema file fails before any browser", async () => {
    const two = await svc(["extract", "the title", "the heading"], sb.env);
    expect(expectOneLine(two.stderr)).toMatch(/at most one instruction/);
    expect(two.code).toBe(2);
    const urls = await svc(["extract", "https://a.example/", "b.example.com"], sb.env);
    expect(expectOneLine(urls.stderr)).toMatch(/at most one URL/);
    expect(urls.code).toBe(2);
    const missing = await svc(["extract", "x y", "--schema", "/nonexistent/schema.json"], sb.env);
    expect(expectOneLine(missing.stderr)).toMatch(/--schema \/nonexistent\/schema\.json.*no such file/);
    expect(missing.code).toBe(2);
  });

  it("--cache-dir: the second identical act is a HIT with zero model requests", async () => {
    const dir = join(sb.state, "..", "act-cache");
    const first = await svc(["--json", "act", "please click the Help link", "--cache-dir", dir], sb.env);
    expect(first.code, first.stderr).toBe(0);
    expect(json<ActJson>(first.stdout).result.cacheStatus).toBe("MISS");
    expect(filesUnder(dir).length).toBeGreaterThan(0);
    const n = fake.requests.length;
    const second = await svc(["--json", "act", "please click the Help link", "--cache-dir", dir], sb.env);
    expect(second.code, second.stderr).toBe(0);
    expect(json<ActJson>(second.stdout).result).toMatchObject({ success: true, cacheStatus: "HIT" });
    expect(fake.requests.length).toBe(n);
  });

  it("model errors: a malformed --model → 10 before any browser work; a stored key is used when env has none", async () => {
    const bad = await svc(["act", "please click the Submit button", "--model", "gpt x"], sb.env);
    expect(expectOneLine(bad.stderr)).toMatch(/--model: "gpt x" is not in provider\/model form/);
    expect(bad.code).toBe(10);
    // SVC_MODEL_BASE_URL is set here: a malformed name is refused the same as without one, never sent.
    for (const name of ["openai/", "/gpt"]) {
      const before = fake.requests.length;
      const r = await svc(["act", "please click the Submit button", "--model", name], sb.env);
      expect(expectOneLine(r.stderr)).toContain(`--model: "${name}" is not in provider/model form`);
      expect(r.code).toBe(10);
      expect(fake.requests.length).toBe(before);
    }

    const noEnvKey = { ...sb.env };
    delete noEnvKey.OPENAI_API_KEY;
    expect((await svc(["config", "set", "openai.apiKey", "sk-stored-0123456789"], sb.env)).code).toBe(0);
    try {
      const before = fake.requests.length;
      const r = await svc(["act", "please click the Help link"], noEnvKey);
      expect(r.code, r.stderr).toBe(0);
      expect(fake.requests.slice(before).map((q) => q.headers.authorization)).toEqual(["Bearer sk-stored-0123456789"]);
    } finally {
      await svc(["config", "unset", "openai.apiKey"], sb.env);
    }
  });

  it("no key and no terminal → one line naming OPENAI_API_KEY, exit 9 (and the JSON error with --json)", async () => {
    // No baseURL either: a key is optional only for a model server on this machine.
    const env = { ...sb.env };
    delete env.OPENAI_API_KEY;
    delete env.SVC_MODEL_BASE_URL;
    const before = fake.requests.length;
    const r = await svc(["act", "please click the Submit button"], env);
    expect(expectOneLine(r.stderr)).toMatch(/OPENAI_API_KEY/);
    expect(r.stdout).toBe("");
    expect(r.code).toBe(9);
    const j = await svc(["--json", "observe"], env);
    expect(j.code).toBe(9);
    expect(json(j.stdout)).toMatchObject({ ok: false, error: { code: "MISSING_LLM_CONFIGURATION", message: expect.stringMatching(/OPENAI_API_KEY/) } });
    expect(fake.requests.length).toBe(before);
  });

  it.skipIf(!hasPython)("no key at a terminal: asks once (hidden), offers to store it, retries the command", async () => {
    const key = "sk-typed-0123456789-wxyz";
    const env = { ...sb.env };
    delete env.OPENAI_API_KEY;
    // The fake model by an address the library does not count as loopback (IPv4-mapped IPv6), so a key
    // is required, as for a remote provider.
    env.SVC_MODEL_BASE_URL = `http://[::ffff:127.0.0.1]:${fake.port}/v1`;
    const before = fake.requests.length;
    const r = await svcInPty(["act", "please click the Help link"], [["Paste a key for openai", `${key}\r`], ["Store it", "y\r"]], env);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain("OPENAI_API_KEY is not set. Paste a key for openai (hidden):");
    expect(r.out).not.toContain(key);
    expect(r.out).toMatch(/click succeeded/);
    expect(fake.requests.slice(before).map((q) => q.headers.authorization)).toEqual([`Bearer ${key}`]);
    expect(JSON.parse(readFileSync(join(sb.config, "config.json"), "utf8"))).toMatchObject({ openai: { apiKey: key } });
    // Stored: the next run asks nothing.
    const again = await svc(["act", "please click the Help link"], env);
    expect(again.code, again.stderr).toBe(0);
    await svc(["config", "unset", "openai.apiKey"], sb.env);
  });

  it("variables (--variables, --var-file) never reach stdout, stderr, history, metrics or the model", async () => {
    expect((await svc(["goto", server.url("forms.html")], sb.env)).code).toBe(0);
    const secret = "SECRET-4711-pass";
    const name = "Ada Lovelace-0815";
    const varFile = join(sb.state, "..", "vars.json");
    writeFileSync(varFile, JSON.stringify({ who: { value: name, description: "the person's full name" } }));
    const before = fake.requests.length;
    const a = await svc(["--json", "act", "please type %who% into the Full name field", "--var-file", varFile], sb.env);
    const b = await svc(["act", "please type %pass% into the Password field", "--variables", `pass=${secret}`, "--verbose", "2"], sb.env);
    for (const r of [a, b]) {
      expect(r.code, r.stderr).toBe(0);
      for (const v of [secret, name]) {
        expect(r.stdout).not.toContain(v);
        expect(r.stderr).not.toContain(v);
      }
    }
    expect(json<ActJson>(a.stdout).result.actions[0]!.arguments).toEqual(["%who%"]);
    const sent = fake.requests.slice(before);
    expect(sent.map((q) => q.variables)).toEqual([["who"], ["pass"]]);
    expect(sent[0]!.userText).toContain("the person's full name");
    const history = await svc(["history"], sb.env);
    const files = filesUnder(sb.state).filter((f) => /^(history|metrics)\/.+\.(jsonl|json)$/.test(f));
    expect(files.length).toBeGreaterThanOrEqual(2);
    // Every model request, also the second command's, whose page shows the name typed by the first (the
    // form echoes input values): the session remembers the first command's values (issue 11).
    const recorded = [history.stdout, ...files.map((f) => readFileSync(join(sb.state, f), "utf8")), ...fake.requests.map((q) => JSON.stringify(q.body))];
    expect(sent[1]!.snapshot).toContain("name: %who%");
    // Kept for the session's later commands in a 0600 file next to its record.
    const kept = filesUnder(sb.state).filter((f) => /^sessions\/.+\.secrets$/.test(f));
    expect(kept).toHaveLength(1);
    expect(statSync(join(sb.state, kept[0]!)).mode & 0o777).toBe(0o600);
    for (const text of recorded) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(name);
    }
    expect(JSON.stringify(sent[1]!.body)).not.toContain(secret);
    // …and yet the page got them: the form logs each input's value.
    expect(await pageText()).toContain(`password: ${secret}`);
  });
});
