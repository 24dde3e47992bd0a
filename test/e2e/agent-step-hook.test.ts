/**
 * The agent's `onStepEnd` execute option: awaited after each step, before the next one starts, on the page
 * as the step left it (fixtures/pages/steps.html: each key press moves its title on); a hook that throws is a
 * warning event and the run goes on.
 */
import { describe, expect, it } from "vitest";
import { useModelService, useModelWorld, WIRES } from "../support/models.js";
import { eventLog, step } from "./agent-support.js";

const world = useModelWorld();
const env = useModelService(() => ({ model: WIRES[0]!.model(world.fake) }));

describe("onStepEnd", () => {
  it("runs after each step and before the next, on the page that step left", async () => {
    await env.svc.page.goto(world.server.url("steps.html"));
    world.fake.script(step("keys", { key: "n" }), step("keys", { key: "n" }), step("keys", { key: "n" }), step("done", { message: "pressed three times", success: true }));
    const order: string[] = [];
    const agent = env.svc.agent();
    agent.subscribe((e) => void (e.type === "tool_call" && order.push(`call ${e.step}`)));
    const result = await agent.execute({
      instruction: "press n three times",
      onStepEnd: async ({ step: n, tool, ok, url, signal }) => {
        expect(signal).toBeInstanceOf(AbortSignal);
        expect(url).toContain("/steps.html");
        // Slow on purpose: the next step must wait for it, and see the page unchanged meanwhile.
        await new Promise((r) => setTimeout(r, 150));
        order.push(`end ${n} ${tool} ${ok} ${await env.svc.page.title()}`);
      },
    });
    expect(result).toMatchObject({ success: true, message: "pressed three times" });
    expect(order).toEqual(["call 1", "end 1 keys true step 1", "call 2", "end 2 keys true step 2", "call 3", "end 3 keys true step 3", "call 4", "end 4 done true step 3"]);
  });

  it("a hook that throws is a warning event; the run goes on", async () => {
    await env.svc.page.goto(world.server.url("steps.html"));
    world.fake.script(step("keys", { key: "n" }), step("done", { message: "pressed", success: true }));
    const log = eventLog();
    const agent = env.svc.agent();
    agent.subscribe(log.listener);
    const result = await agent.execute({
      instruction: "press n",
      onStepEnd: () => {
        throw new Error("disk full");
      },
    });
    expect(result).toMatchObject({ success: true, completed: true, message: "pressed" });
    const warnings = log.events.filter((e) => e.type === "log" && e.level === "warn").map((e) => (e.type === "log" ? e.message : ""));
    expect(warnings).toEqual(["the onStepEnd hook of step 1 failed: disk full; the run goes on", "the onStepEnd hook of step 2 failed: disk full; the run goes on"]);
  });
});
