/**
 * `svc agent` through the built CLI, the fake model scripted in this process (reached through SVC_MODEL_BASE_URL):
 * JSON lines and their order, variables that never reach stdout or the report, `--record`, history and metrics,
 * budget stops (exit 11 naming the limit), and no Chrome left by the one-shot browser.
 */
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FakeModel } from "../support/fake-model.js";
import type { FixtureServer } from "../support/server.js";
import { scriptTimes, siteBrain, step, stepRequests } from "../e2e/agent-support.js";
import { type Sandbox, expectOneLine, json, svc, type ModelWorld, startModelWorld, expectNoChrome } from "./helpers.js";

type Line = Record<string, any> & { schemaVersion: number; type: string };

let server: FixtureServer;
let fake: FakeModel;
let sb: Sandbox;

let world: ModelWorld | undefined;

beforeAll(async () => {
  world = await startModelWorld();
  ({ server, fake, sb } = world);
});

afterAll(async () => {
  await world?.close();
});

beforeEach(() => fake.reset());

const TASK = "Order two Boston Ferns with express delivery and tell me the order number";
const SECRETS = ["Ada Lovelace", "Ada+Lovelace", "Ada%20Lovelace", "ada@example.com", "ada%40example.com"];
const start = () => server.url("site/index.html");

/** Every stdout line parsed as JSON (a line that is not JSON fails the test). */
function lines(stdout: string): Line[] {
  return stdout
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => {
      try {
        return JSON.parse(l) as Line;
      } catch {
        throw new Error(`not a JSON line: ${l.slice(0, 200)}`);
      }
    });
}

describe("svc agent (JSON lines)", () => {
  it("solves the site: one JSON line per event (masked), then the result (as returned); --record writes a PNG per step and report.html", async () => {
    scriptTimes(fake, siteBrain({ start: start() }));
    const varFile = join(sb.tmp, "..", "vars.json");
    writeFileSync(varFile, JSON.stringify({ email: { value: "ada@example.com", description: "where the confirmation goes" } }));
    const record = join(sb.tmp, "..", "run-record");
    const r = await svc(["--json", "agent", TASK, "--url", start(), "--max-steps", "10", "--var", "customer=Ada Lovelace", "--var-file", varFile, "--record", record], sb.env, { timeoutMs: 90_000 });
    expect(r.stderr).toBe("");
    expect(r.code, r.stdout.slice(-2000)).toBe(0);

    const out = lines(r.stdout);
    for (const l of out) expect(l.schemaVersion).toBe(1);
    const types = out.map((l) => l.type);
    expect(types[0]).toBe("run_start");
    expect(types.slice(-2)).toEqual(["run_end", "result"]);
    const core = types.filter((t) => ["step_start", "tool_call", "tool_result"].includes(t));
    expect(core).toEqual(Array.from({ length: 7 }, () => ["step_start", "tool_call", "tool_result"]).flat());
    expect(out[0]).toMatchObject({ instruction: TASK, mode: "dom", maxSteps: 10, url: start() });
    expect(out.filter((l) => l.type === "tool_call").map((l) => l.tool)).toEqual(["perform", "keys", "perform", "perform", "fillForm", "perform", "done"]);
    expect(out.some((l) => l.type === "usage" && l.totals.input_tokens > 0)).toBe(true);
    expect(new Set(out.filter((l) => l.type !== "result").map((l) => l.runId)).size).toBe(1);

    const { result, report } = out.at(-1)!;
    expect(result).toMatchObject({ success: true, completed: true, message: expect.stringMatching(/^Order GS-\d{5} is placed\.$/) });
    expect(result.actions).toHaveLength(7);
    expect(result.usage.input_tokens).toBeGreaterThan(0);
    expect(out.at(-2)!.result.message).toBe(result.message);
    // The order went through with the real values. The result is printed as the library returned it (never
    // rewritten: the page's real address is in it); no event line carries a value.
    expect(result.actions.find((a: any) => a.type === "fillForm").result).toMatch(/filled 4 fields/);
    expect(result.actions.at(-1).pageUrl).toMatch(/confirm\.html\?.*customer=Ada\+Lovelace/);
    const eventLines = r.stdout.trim().split("\n").slice(0, -1).join("\n");
    expect(eventLines).toContain("customer=%customer%");
    for (const s of SECRETS) expect(eventLines).not.toContain(s);
    // The model saw names only.
    for (const q of fake.requests) for (const s of SECRETS) expect(JSON.stringify(q.body)).not.toContain(s);

    // --record: step-001.png … step-007.png (real PNGs) and a report listing every step.
    expect(report).toBe(join(record, "report.html"));
    const files = readdirSync(record).sort();
    expect(files).toEqual(["report.html", ...Array.from({ length: 7 }, (_, i) => `step-00${i + 1}.png`)]);
    for (const f of files.filter((f) => f.endsWith(".png"))) expect(readFileSync(join(record, f)).subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
    const html = readFileSync(report, "utf8");
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script|<link|src="http/i); // self-contained: nothing to fetch, nothing to run
    const sections = [...html.matchAll(/<section class="card step (ok|error)" id="step-(\d+)">[\s\S]*?<\/section>/g)];
    expect(sections.map((m) => Number(m[2]))).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const tools = ["perform", "keys", "perform", "perform", "fillForm", "perform", "done"];
    sections.forEach((m, i) => {
      expect(m[0]).toContain(`${tools[i]} <span class="badge good">`);
      expect(m[0]).toContain('src="data:image/png;base64,');
      expect(m[0]).toMatch(/<dt>duration<\/dt><dd>\d+/);
      expect(m[0]).toMatch(/<dt>URL<\/dt><dd>http:\/\/localhost:\d+\/site\//);
    });
    expect(html).toContain("&quot;%customer%&quot;"); // arguments as escaped JSON
    expect(html).toContain(escapeText(result.message));
    for (const s of SECRETS) expect(html).not.toContain(s);
    await expectNoChrome(sb.tmp);
  });

  it("the run is in svc history (text and JSON) and in the agent bucket of svc metrics", async () => {
    const h = await svc(["--json", "history"], sb.env);
    expect(h.code, h.stderr).toBe(0);
    const entry = json<{ entries: any[] }>(h.stdout).entries.filter((e) => e.method === "agent").at(-1);
    expect(entry.parameters).toMatchObject({ instruction: TASK, mode: "dom", maxSteps: 10, variables: ["email", "customer"], model: "openai/gpt-4.1-mini" });
    expect(entry.result).toMatchObject({ success: true, completed: true });
    expect(entry.usage.promptTokens).toBeGreaterThan(0);
    expect(entry.durationMs).toBeGreaterThan(0);
    for (const s of SECRETS) expect(h.stdout).not.toContain(s);
    const text = await svc(["history"], sb.env);
    expect(text.stdout).toMatch(/agent\s+"Order two Boston Ferns.*" → ✓ Order GS-\d{5} is placed\. \(7 steps\)\s+\[\d+\/\d+ tok, \d+ ms\]/);
    const m = json<{ metrics: Record<string, number> }>((await svc(["--json", "metrics"], sb.env)).stdout).metrics;
    expect(m.agentPromptTokens).toBe(entry.usage.promptTokens);
    expect(m.agentCompletionTokens).toBeGreaterThan(0);
  });

  it("a budget stop exits 11 naming the limit: on stderr without --json, only in the result line with --json", async () => {
    const think = step("think", { thought: "not yet" });
    fake.script(think, think, think, think);
    const piped = await svc(["agent", "think about it", "--url", start(), "--max-steps", "2"], sb.env);
    expect(piped.code).toBe(11);
    expect(expectOneLine(piped.stderr)).toBe("svc: agent did not complete: stopped: reached the step limit (maxSteps 2) before the task was done");
    const pipedLines = lines(piped.stdout); // stdout not a terminal: JSON lines even without --json
    expect(pipedLines.at(-1)).toMatchObject({ type: "result", result: { completed: false, success: false, metadata: { stopReason: "maxSteps", steps: 2 } } });

    fake.reset();
    fake.script(think, think, think);
    const r = await svc(["--json", "agent", "think about it", "--url", start(), "--max-tokens", "1"], sb.env);
    expect(r.code).toBe(11);
    expect(r.stderr).toBe("");
    const out = lines(r.stdout);
    expect(out.at(-1)).toMatchObject({ type: "result", result: { completed: false, message: expect.stringMatching(/^stopped: reached the token limit \(maxTokens 1; \d+ used\)$/) } });
    expect(out.at(-2)!.type).toBe("run_end");
    await expectNoChrome(sb.tmp);
  });

  it("--session ID runs on that session's browser, which keeps running; the run is in that session's history", async () => {
    const started = await svc(["--json", "sessions", "start"], sb.env);
    expect(started.code, started.stderr).toBe(0);
    const id = json<{ session: { id: string; pid: number } }>(started.stdout).session.id;
    try {
      fake.script(step("done", { message: "nothing to do", success: true }));
      const r = await svc(["--json", "--session", id, "agent", "check the shop", "--url", start()], sb.env);
      expect(r.code, r.stdout).toBe(0);
      expect(lines(r.stdout).at(-1)).toMatchObject({ type: "result", session: id, result: { success: true, message: "nothing to do" } });
      const page = await svc(["--json", "--session", id, "extract"], sb.env);
      expect(json<{ url: string }>(page.stdout).url).toBe(start()); // the session's page is where the agent left it
      const h = json<{ entries: any[] }>((await svc(["--json", "--session", id, "history"], sb.env)).stdout);
      expect(h.entries.map((e) => e.method)).toEqual(expect.arrayContaining(["navigate", "agent"]));
    } finally {
      await svc(["sessions", "end", id], sb.env);
    }
  });

  it("--cache-dir: the second identical run replays the steps and, on the unchanged page, the stored answer with no model call; --mode hybrid prints no screenshots", async () => {
    const cache = join(sb.tmp, "..", "agent-cache");
    const args = ["--json", "agent", TASK, "--url", start(), "--var", "customer=Ada Lovelace", "--var", "email=ada@example.com", "--cache-dir", cache];
    scriptTimes(fake, siteBrain({ start: start() }));
    const first = await svc(args, sb.env);
    expect(first.code, first.stdout.slice(-1000)).toBe(0);
    expect(lines(first.stdout).at(-1)!.result.metadata.cacheStatus).toBe("MISS");
    fake.reset();
    scriptTimes(fake, siteBrain({ start: start() }));
    const second = await svc(args, sb.env);
    expect(second.code, second.stdout.slice(-1000)).toBe(0);
    const out = lines(second.stdout);
    expect(out.at(-1)!.result).toMatchObject({ success: true, message: lines(first.stdout).at(-1)!.result.message, metadata: { cacheStatus: "HIT" } });
    const calls = out.filter((l) => l.type === "tool_call");
    // Every step is a replay and no model was asked, the final answer included.
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((l) => l.cached === true)).toBe(true);
    expect(stepRequests(fake)).toHaveLength(0);
    fake.reset();

    fake.script(step("think", { thought: "look" }), step("done", { message: "seen", success: true }));
    const hybrid = await svc(["--json", "agent", "look at the page", "--url", start(), "--mode", "hybrid"], sb.env);
    expect(hybrid.code, hybrid.stdout.slice(-1000)).toBe(0);
    expect(lines(hybrid.stdout).at(-1)!.result).toMatchObject({ success: true, metadata: { mode: "hybrid" } });
    expect(fake.requests[0]!.userText).toMatch(/Screenshot: attached/);
    expect(hybrid.stdout).not.toMatch(/"image"|base64/);
  });

  it("done with success false also exits 11; a bad flag fails before any browser (exit 2)", async () => {
    fake.script(step("done", { message: "the shop is closed", success: false }));
    const r = await svc(["agent", "buy a fern", "--url", start()], sb.env);
    expect(r.code).toBe(11);
    expect(expectOneLine(r.stderr)).toBe("svc: agent finished without success: the shop is closed");

    for (const [args, message] of [
      [["--max-steps", "0"], /invalid --max-steps: expected a positive whole number/],
      [["--timeout", "soon"], /invalid --timeout: expected a positive whole number/],
      [["--var", "novalue"], /--var expects name=value/],
      [["--url", "example.com"], /did you mean https:\/\/example\.com/],
      [["--mode", "vision"], /invalid --mode: one of dom, hybrid, cua \(got "vision"\)/],
    ] as const) {
      const bad = await svc(["agent", "do it", ...args], sb.env);
      expect([bad.code, expectOneLine(bad.stderr)]).toEqual([2, expect.stringMatching(message)]);
      expect(bad.stdout).toBe("");
    }
    const jsonBad = await svc(["--json", "agent", "do it", "--max-tokens", "-5"], sb.env);
    expect(jsonBad.code).toBe(2);
    expect(lines(jsonBad.stdout)).toEqual([{ schemaVersion: 1, ok: false, error: { code: "INVALID_ARGUMENT", message: expect.stringMatching(/--max-tokens/) } }]);
    expect(fake.requests).toHaveLength(1);
  });
});

function escapeText(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
