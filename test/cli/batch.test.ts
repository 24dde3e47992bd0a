/**
 * `svc batch` on a local pool (no Redis): the task file validated line by line before any browser starts,
 * results as JSON lines in input order (each once, with index, id, timing and usage), `-o` written in
 * order with no journal left, variable values never in the results, exit 11 when a task did not succeed,
 * no Chrome left behind.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SECRET, batchBrain, jsonLines, scriptBrain, writeTasks } from "./batch-support.js";
import { type ModelWorld, expectOneLine, hasPython, spawnSvc, startModelWorld, svc, svcInPty, waitFor, collect, expectNoChrome } from "./helpers.js";

let world: ModelWorld;

beforeAll(async () => {
  world = await startModelWorld();
});

afterAll(async () => {
  await world?.close();
});

describe("svc batch (local pool)", () => {
  it("runs every task and prints each result once, in input order; -o gets the same lines and no journal is left", async () => {
    const { server, fake, sb } = world;
    scriptBrain(fake, batchBrain());
    const tasks = join(sb.tmp, "..", "tasks.jsonl");
    // Concurrency + 1 tasks, the longest first (the search: three steps), so a later task ends before an earlier
    // one: the output's order is the input's, not the order they finished in.
    writeTasks(tasks, server, { count: 3, secret: 0 });
    const r = await svc(["batch", tasks, "--concurrency", "2"], sb.env, { timeoutMs: 90_000 });
    expect(r.code, r.stderr + r.stdout.slice(-1500)).toBe(0);
    const out = jsonLines(r.stdout);
    const results = out.filter((l) => l.type === "result");
    expect(results.map((l) => l.index)).toEqual([0, 1, 2]);
    expect(results.map((l) => l.id)).toEqual(["t0", "t1", "t2"]);
    expect(results[2]).toMatchObject({ schemaVersion: 1, success: true, completed: true, message: "Task 2: Boston Fern costs 18.00" });
    expect(results[1]!.message).toBe("Task 1: Yellow Tulip costs 4.20");
    // The odd task opened its page itself: two steps.
    expect(results[1]!.actions.map((a: { type: string }) => a.type)).toEqual(["goto", "done"]);
    expect(results[0]!.message).toBe("Task 0: searched Garden Shop");
    for (const l of results) {
      expect(l.usage.input_tokens).toBeGreaterThan(0);
      expect(l.timing.durationMs).toBeGreaterThan(0);
      expect(Date.parse(l.timing.finishedAt)).toBeGreaterThanOrEqual(Date.parse(l.timing.startedAt));
    }
    expect(out.at(-1)).toMatchObject({ type: "summary", total: 3, succeeded: 3, failed: 0 });
    // The variable was typed for real, yet its value is in no result.
    expect(r.stdout).not.toContain(SECRET);
    expect(results[0]!.actions.map((a: { type: string }) => a.type)).toEqual(["perform", "ariaTree", "done"]);
    expect(JSON.stringify(results[0]!.actions)).toContain("%q%");

    const file = join(sb.tmp, "..", "results.jsonl");
    scriptBrain(fake, batchBrain());
    // All at once: the one-step task ends first and the three-step one last, yet the file is in input order.
    const w = await svc(["--json", "batch", tasks, "-o", file, "--concurrency", "3"], sb.env, { timeoutMs: 90_000 });
    expect(w.code, w.stderr + w.stdout).toBe(0);
    expect(jsonLines(w.stdout)).toEqual([expect.objectContaining({ type: "summary", total: 3, succeeded: 3, output: file })]);
    // The file holds what --json prints on stdout: the result lines (schemaVersion, type) and the summary.
    const lines = jsonLines(readFileSync(file, "utf8"));
    const written = lines.slice(0, -1);
    expect(written.map((l) => [l.schemaVersion, l.type, l.index])).toEqual([0, 1, 2].map((i) => [1, "result", i]));
    expect(written.map((l) => l.message)).toEqual(results.map((l) => l.message));
    expect(lines.at(-1)).toEqual({ ...jsonLines(w.stdout)[0], schemaVersion: 1, type: "summary" });
    expect(existsSync(`${file}.partial`)).toBe(false);
    expect(readFileSync(file, "utf8")).not.toContain(SECRET);
    await expectNoChrome(sb.tmp);
  }, 150_000);

  it("a task that does not succeed: its result says so, the others are there, exit 11", async () => {
    const { server, fake, sb } = world;
    scriptBrain(fake, (req) => (req.instruction?.startsWith("Task 1:") ? { reasoning: "no", tool: "done", args: { message: "cannot", success: false } } : batchBrain()(req, () => undefined)));
    const tasks = join(sb.tmp, "..", "tasks-fail.jsonl");
    writeTasks(tasks, server, { count: 2 });
    const r = await svc(["--json", "batch", tasks], sb.env, { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(11);
    const out = jsonLines(r.stdout);
    expect(out.filter((l) => l.type === "result").map((l) => [l.index, l.success])).toEqual([
      [0, true],
      [1, false],
    ]);
    expect(out.at(-1)).toMatchObject({ type: "summary", total: 2, succeeded: 1, failed: 1 });
    expect(r.stderr).toBe("");
  }, 90_000);

  it("a task's timeoutMs ends that task (completed false, the time named) while the others finish", async () => {
    const { server, fake, sb } = world;
    scriptBrain(fake, batchBrain(60_000));
    const tasks = join(sb.tmp, "..", "tasks-timeout.jsonl");
    const page = server.url("site/item.html?id=fern");
    writeFileSync(tasks, [JSON.stringify({ instruction: "Task 0: report the plant's name and price", url: page }), JSON.stringify({ instruction: "Task 1: report the plant's name and price slowly", url: page, timeoutMs: 1500 })].join("\n"));
    const started = Date.now();
    const r = await svc(["--json", "batch", tasks], sb.env, { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(11);
    expect(Date.now() - started).toBeLessThan(45_000);
    const [first, second] = jsonLines(r.stdout).filter((l) => l.type === "result");
    expect(first).toMatchObject({ index: 0, success: true, message: "Task 0: Boston Fern costs 18.00" });
    expect(second).toMatchObject({ index: 1, success: false, completed: false });
    expect(second!.message).toMatch(/time limit \(timeoutMs 1500\)|1500 ms/);
  }, 90_000);

  it("a bad line is refused before anything runs, naming its line number and field", async () => {
    const { sb } = world;
    const tasks = join(sb.tmp, "..", "bad.jsonl");
    const cases: Array<[string, RegExp]> = [
      ['{"instruction":"a"}\n\n{"instruction":"b","maxSteps":0}\n', /bad\.jsonl line 3: maxSteps: /],
      ['{"instruction":"a"}\nnot json\n', /bad\.jsonl line 2: not JSON/],
      ['{"instruction":"a","url":"ftp://x"}\n', /bad\.jsonl line 1: url: /],
      ['{"instruction":"a","colour":"red"}\n', /bad\.jsonl line 1: unknown option "colour"/],
      ['{"instruction":"a","output":{"type":"nonsense"}}\n', /bad\.jsonl line 1: output: /],
      ['{"instruction":"a","variables":{"bad name":"x"}}\n', /bad\.jsonl line 1: variables\./],
      ["# only a comment\n", /holds no tasks/],
    ];
    for (const [text, message] of cases) {
      writeFileSync(tasks, text);
      const r = await svc(["batch", tasks], sb.env);
      expect(r.code, text).toBe(2);
      expect(expectOneLine(r.stderr)).toMatch(message);
      expect(r.stdout).toBe("");
    }
  }, 60_000);

  it("Ctrl-C mid-batch: exit 130, the finished results are in the journal, no Chrome left; a rerun will not overwrite it", async () => {
    const { server, fake, sb } = world;
    scriptBrain(fake, batchBrain(60_000));
    const tasks = join(sb.tmp, "..", "tasks-int.jsonl");
    writeTasks(tasks, server, { count: 2, slow: 1 });
    const file = join(sb.tmp, "..", "int-results.jsonl");
    const child = spawnSvc(["--json", "batch", tasks, "-o", file, "--concurrency", "2"], sb.env);
    const done = collect(child, 90_000);
    const journal = `${file}.partial`;
    await waitFor(() => existsSync(journal) && readFileSync(journal, "utf8").includes('"index":0'), 60_000);
    child.kill("SIGINT");
    const r = await done;
    expect(r.code).toBe(130);
    expect(jsonLines(readFileSync(journal, "utf8")).map((l) => [l.index, l.message])).toEqual([[0, "Task 0: Red Rose costs 12.50"]]);
    expect(existsSync(file)).toBe(false);
    await expectNoChrome(sb.tmp);
    const again = await svc(["batch", tasks, "-o", file], sb.env);
    expect(again.code).toBe(2);
    expect(expectOneLine(again.stderr)).toMatch(/int-results\.jsonl\.partial exists/);
  }, 120_000);

  it.skipIf(!hasPython)("at a terminal: a progress bar with each finished task, then the summary", async () => {
    const { server, fake, sb } = world;
    scriptBrain(fake, batchBrain());
    const tasks = join(sb.tmp, "..", "tasks-tty.jsonl");
    writeTasks(tasks, server, { count: 2 });
    const r = await svcInPty(["batch", tasks, "--concurrency", "1"], [], sb.env, 90_000);
    expect(r.code, r.out).toBe(0);
    // eslint-disable-next-line no-control-regex
    const out = r.out.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "");
    // Something shows from the start, before the bar and the first browser are up.
    expect(out.trimStart()).toMatch(/^svc batch: starting 2 tasks on local pool…/);
    expect(out).toContain("✓ #0 (t0) Task 0: Red Rose costs 12.50");
    expect(out).toContain("✓ #1 (t1) Task 1: Yellow Tulip costs 4.20");
    expect(out).toMatch(/█+ 2\/2/);
    expect(out).toContain("2/2 succeeded");
    expect(out).not.toContain('"schemaVersion"');
  }, 120_000);
});
