/**
 * Budgets, timeouts and cancellation of agent runs (real Chrome, scripted fake model): a tool that overruns
 * toolTimeout reports an error to the model and the run goes on; an AbortSignal ends a run at once (in a
 * model call, in a tool, or before it starts); maxSteps, maxTokens and timeoutMs each end a run cleanly with
 * `completed: false` and a message naming the limit; config and reply errors.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { LLMResponseError, ServiceInvalidArgumentError } from "../../src/errors.js";
import { useModelService, useModelWorld, WIRES } from "../support/models.js";
import { eventLog, scriptTimes, step, stepRequests } from "./agent-support.js";
import { SLACK_MS } from "../support/timing.js";

const world = useModelWorld();
const wire = WIRES[0]!;
const env = useModelService(() => ({ model: wire.model(world.fake) }));
const open = () => env.svc.page.goto(world.server.url("site/index.html"));
const think = step("think", { thought: "hmm" });
const done = step("done", { message: "finished", success: true });

describe("toolTimeout", () => {
  it("a tool that overruns returns an error to the model; the run continues", async () => {
    await open();
    world.fake.script(step("wait", { ms: 10_000 }), done);
    const t0 = Date.now();
    const result = await env.svc.agent().execute({ instruction: "wait a bit, then finish", toolTimeout: 300 });
    expect(Date.now() - t0).toBeLessThan(300 + SLACK_MS);
    expect(result).toMatchObject({ completed: true, success: true, message: "finished" });
    expect(result.actions[0]).toMatchObject({ type: "wait", ok: false, result: "wait did not finish within 300 ms (toolTimeout) and was stopped" });
    expect(stepRequests(world.fake)[1]!.note).toContain("1. wait {\"ms\":10000} → error: wait did not finish within 300 ms (toolTimeout)");
  });
});

describe("abort", () => {
  it("mid model call: ends at once with completed false and message aborted", async () => {
    await open();
    world.fake.script(think, { kind: "hang" });
    const controller = new AbortController();
    const agent = env.svc.agent();
    const log = eventLog();
    agent.subscribe(log.listener);
    agent.subscribe((e) => {
      if (e.type === "step_start" && e.step === 2) setTimeout(() => controller.abort(), 150);
    });
    const t0 = Date.now();
    const result = await agent.execute({ instruction: "think forever", signal: controller.signal });
    expect(Date.now() - t0).toBeLessThan(SLACK_MS);
    expect(result).toMatchObject({ completed: false, success: false, message: "aborted", metadata: { stopReason: "aborted", steps: 2 } });
    expect(result.actions).toHaveLength(1);
    expect(log.types().at(-1)).toBe("run_end");
    // The in-flight request was abandoned: the client closed it before the fake answered.
    expect(world.fake.requests).toHaveLength(2);
    expect(world.fake.requests[1]!.response).toEqual({ status: 0 }); // never answered
  });

  it("mid tool: a long wait stops at once", async () => {
    await open();
    world.fake.script(step("wait", { ms: 10_000 }), done);
    const controller = new AbortController();
    const agent = env.svc.agent();
    agent.subscribe((e) => {
      if (e.type === "tool_call") setTimeout(() => controller.abort(), 100);
    });
    const t0 = Date.now();
    const result = await agent.execute({ instruction: "wait", signal: controller.signal });
    expect(Date.now() - t0).toBeLessThan(SLACK_MS);
    expect(result).toMatchObject({ completed: false, message: "aborted" });
    expect(world.fake.requests).toHaveLength(1);
  });

  it("an already aborted signal: no model call at all", async () => {
    await open();
    const result = await env.svc.agent().execute({ instruction: "anything", signal: AbortSignal.abort() });
    expect(result).toMatchObject({ completed: false, success: false, message: "aborted", actions: [] });
    expect(world.fake.requests).toHaveLength(0);
  });
});

describe("budgets", () => {
  it("maxSteps", async () => {
    await open();
    scriptTimes(world.fake, think);
    const result = await env.svc.agent().execute({ instruction: "think", maxSteps: 3 });
    expect(result).toMatchObject({ completed: false, success: false, message: "stopped: reached the step limit (maxSteps 3) before the task was done", metadata: { stopReason: "maxSteps" } });
    expect(result.actions).toHaveLength(3);
    expect(stepRequests(world.fake)).toHaveLength(3);
    expect(stepRequests(world.fake)[2]!.userText).toContain("Step 3 of 3 (1 left including this one).");
  });

  it("maxTokens: input + output over the run; the step that crosses it is not executed", async () => {
    await open();
    scriptTimes(world.fake, { kind: "object", value: think, usage: { input: 1000, output: 100 } });
    const result = await env.svc.agent().execute({ instruction: "think", maxTokens: 2500 });
    expect(result).toMatchObject({ completed: false, success: false, message: "stopped: reached the token limit (maxTokens 2500; 3300 used)", metadata: { stopReason: "maxTokens" } });
    expect(result.usage).toMatchObject({ input_tokens: 3000, output_tokens: 300 });
    expect(result.actions).toHaveLength(2);
    expect(stepRequests(world.fake)).toHaveLength(3);
  });

  it("maxTokens: a done that crosses the limit still finishes the run", async () => {
    await open();
    world.fake.script({ kind: "object", value: done, usage: { input: 5000, output: 10 } });
    const result = await env.svc.agent().execute({ instruction: "finish", maxTokens: 100 });
    expect(result).toMatchObject({ completed: true, success: true, message: "finished" });
  });

  it("timeoutMs: the in-flight call is cancelled and the run ends at the limit", async () => {
    await open();
    // One step, then a model call that never answers: the run ends only if the limit cancels it.
    world.fake.script(think, { kind: "hang" });
    const t0 = Date.now();
    const result = await env.svc.agent().execute({ instruction: "think slowly", timeoutMs: 3000 });
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(2900);
    expect(took).toBeLessThan(3000 + SLACK_MS);
    expect(result).toMatchObject({ completed: false, success: false, message: "stopped: reached the time limit (timeoutMs 3000)", metadata: { stopReason: "timeout" } });
    expect(result.actions.length).toBeGreaterThanOrEqual(1);
  });
});

describe("replies and config", () => {
  it("a ref that is not on the page is sent back once with the problem", async () => {
    await open();
    world.fake.script(step("perform", { ref: "e999", method: "click", arguments: [] }), done);
    const result = await env.svc.agent().execute("click something");
    expect(result.completed).toBe(true);
    // Among this run's requests (on a loaded run a request can be sent twice), exactly the one after the bad
    // ref carries the problem: the first does not, and the problem is sent once.
    const mine = stepRequests(world.fake).filter((r) => r.userText.includes("Instruction: click something"));
    expect(mine[0]!.userText).not.toContain('ref "e999"');
    expect(mine.filter((r) => r.userText.includes('ref "e999" is not in the current page outline'))).toHaveLength(1);
  });

  it("a reply unusable twice fails the run with LLMResponseError, after a run_end event", async () => {
    await open();
    world.fake.script(step("fly", {}), step("fly", {}));
    const agent = env.svc.agent();
    const log = eventLog();
    agent.subscribe(log.listener);
    await expect(agent.execute("fly away")).rejects.toBeInstanceOf(LLMResponseError);
    const end = log.events.at(-1)!;
    expect(end.type).toBe("run_end");
    expect(end.type === "run_end" && end.result).toMatchObject({ completed: false, success: false, metadata: { stopReason: "error", error: { code: "LLM_RESPONSE_ERROR" } } });
    const history = await env.svc.history;
    expect(history.at(-1)).toMatchObject({ method: "agent", result: { error: expect.stringContaining("unusable twice") } });
  });

  it("done with an output schema: validated, retried when it does not fit, returned in metadata.output", async () => {
    await open();
    const Output = z.object({ plants: z.number().int() });
    world.fake.script(step("done", { message: "counted", success: true, output: { plants: "six" } }), step("done", { message: "counted", success: true, output: { plants: 6 } }));
    const result = await env.svc.agent().execute({ instruction: "count the plants", output: Output });
    expect(result).toMatchObject({ completed: true, metadata: { output: { plants: 6 } } });
    const [first, second] = stepRequests(world.fake);
    expect(JSON.stringify(first!.schema)).toContain('"plants"');
    expect(second!.userText).toContain("args of done: output.plants");
  });

  it("mode cua (or the deprecated cua flag) is accepted; mode wins over cua; bad config is named", () => {
    expect(env.svc.agent({ mode: "cua" }).config.mode).toBe("cua");
    expect(env.svc.agent({ cua: true }).config.mode).toBe("cua");
    expect(env.svc.agent({ cua: true, mode: "dom" }).config.mode).toBe("dom");
    expect(env.svc.agent({ cua: false, mode: "hybrid" }).config.mode).toBe("hybrid");
    expect(() => env.svc.agent({ mode: "vision" as never })).toThrow(ServiceInvalidArgumentError);
    expect(() => env.svc.agent({ tools: [] } as never)).toThrow(/unknown option "tools"/);
    expect(() => env.svc.agent({ model: "no-slash-model-zzz" })).toThrow();
  });

  it("execute options are validated before anything runs", async () => {
    const agent = env.svc.agent();
    await expect(agent.execute("  ")).rejects.toBeInstanceOf(ServiceInvalidArgumentError);
    await expect(agent.execute({ instruction: "x", maxSteps: 0 })).rejects.toThrow(/maxSteps/);
    await expect(agent.execute({ instruction: "x", variables: { "bad name": "v" } })).rejects.toThrow(/variables/);
    expect(world.fake.requests).toHaveLength(0);
  });
});
