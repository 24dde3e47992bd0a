/**
 * Loop detection (agent/loop-detect.ts) with the fake model's looping mode: clicking a button that changes nothing is
 * warned in the next prompts, then stopped (`completed: false`, stopReason "loop", a message naming step and count),
 * with loop events on the stream. The same click on a button that does change the page is no loop, and
 * `loopDetection: false` runs on to maxSteps.
 */
import { describe, expect, it } from "vitest";
import { ServiceInvalidArgumentError } from "../../src/errors.js";
import type { RunEvent } from "../../src/events.js";
import { loopingModel } from "../support/fake-model/local-modes.js";
import { rejection } from "../support/rejection.js";
import { useModelService, useModelWorld, WIRES } from "../support/models.js";
import { eventLog, scriptTimes, stepRequests } from "./agent-support.js";

const world = useModelWorld();
const env = useModelService(() => ({ model: WIRES[1]!.model(world.fake) }));

const STUCK = `data:text/html,${encodeURIComponent("<title>Stuck</title><h1>Results</h1><p>3 items</p><button>Load more</button>")}`;
const COUNTER = `data:text/html,${encodeURIComponent('<title>Counter</title><p id="c">0</p><button onclick="c.textContent=Number(c.textContent)+1">Add one</button>')}`;

type LoopEvent = Extract<RunEvent, { type: "loop" }>;
const loopEvents = (events: RunEvent[]) => events.filter((e): e is LoopEvent => e.type === "loop");

describe("agent loop detection", () => {
  it("warns a model that repeats a click on an unchanged page, then stops it naming the loop", async () => {
    await env.svc.page.goto(STUCK);
    scriptTimes(world.fake, loopingModel("Load more"), 12);
    const agent = env.svc.agent();
    const log = eventLog();
    agent.subscribe(log.listener);
    const result = await agent.execute({ instruction: "load all the items", maxSteps: 12 });

    expect(result.completed).toBe(false);
    expect(result.success).toBe(false);
    expect(result.metadata).toMatchObject({ stopReason: "loop", steps: 5, loop: { tool: "perform", count: 5 } });
    expect(result.message).toMatch(/^stopped: the agent is stuck in a loop: it repeated perform \{"ref":"e\d+","method":"click","arguments":\[\]\} 5 times in a row with no change to the page$/);
    // Defaults: warned after 3 and 4 identical clicks, stopped after the 5th (maxWarnings 2) with no 6th model call.
    expect(result.actions).toHaveLength(5);
    expect(stepRequests(world.fake)).toHaveLength(5);
    const loops = loopEvents(log.events);
    expect(loops.map((e) => [e.count, e.warning, e.stopped])).toEqual([
      [3, 1, false],
      [4, 2, false],
      [5, 3, true],
    ]);
    expect(loops[0]!.message).toContain("warned the model: it repeated perform");
    // The model hears it in the next step's prompt.
    const prompts = stepRequests(world.fake).map((r) => r.userText);
    expect(prompts[2]).not.toContain("Warning: you repeated");
    expect(prompts[3]).toContain('Warning: you repeated perform {"ref"');
    expect(prompts[3]).toContain("3 times in a row with no change to the page (same URL, same outline). It is not working.");
    expect(prompts[4]).toContain("4 times in a row");
    expect(prompts[4]).toContain("The run stops at the next repeat.");
    expect(log.types().at(-1)).toBe("run_end");
  });

  it("the same click that changes the page each time is not a loop", async () => {
    await env.svc.page.goto(COUNTER);
    scriptTimes(world.fake, loopingModel("Add one"), 6);
    const agent = env.svc.agent();
    const log = eventLog();
    agent.subscribe(log.listener);
    const result = await agent.execute({ instruction: "add one six times", maxSteps: 6 });
    expect(result.metadata).toMatchObject({ stopReason: "maxSteps", steps: 6 });
    expect(loopEvents(log.events)).toEqual([]);
    expect(await env.svc.page.evaluate("document.getElementById('c').textContent")).toBe("6");
  });

  it("configurable: loopDetection false runs to maxSteps; repeats and maxWarnings move the stop; bad values are refused", async () => {
    await env.svc.page.goto(STUCK);
    scriptTimes(world.fake, loopingModel("Load more"), 7);
    const off = await env.svc.agent().execute({ instruction: "load all the items", maxSteps: 7, loopDetection: false });
    expect(off.metadata).toMatchObject({ stopReason: "maxSteps", steps: 7 });

    world.fake.reset();
    scriptTimes(world.fake, loopingModel("Load more"), 7);
    const strict = await env.svc.agent().execute({ instruction: "load all the items", maxSteps: 7, loopDetection: { repeats: 2, maxWarnings: 0 } });
    expect(strict.metadata).toMatchObject({ stopReason: "loop", steps: 2 });
    expect(strict.message).toContain("2 times in a row");

    const e = await rejection(env.svc.agent().execute({ instruction: "x", loopDetection: { repeats: 1 } }));
    expect(e).toBeInstanceOf(ServiceInvalidArgumentError);
    expect(e.message).toContain("execute.loopDetection");
  });
});
