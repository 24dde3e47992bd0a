/**
 * Human in the loop: with an askHuman handler the agent gets the askHuman tool; it waits for the person (events
 * ask_human / human_reply around the wait), and the next step sees what the person did to the page and their
 * reply. Nobody answering within askHumanTimeoutMs is a failed step the model hears about, not a hung run;
 * without a handler the tool is not offered.
 */
import { describe, expect, it } from "vitest";
import type { FakeRequest } from "../support/fake-model.js";
import { useModelService, useModelWorld, WIRES } from "../support/models.js";
import { eventLog, scriptSteps, step, stepRequests } from "./agent-support.js";

const world = useModelWorld();
const wire = WIRES[0]!;
const env = useModelService(() => ({ model: wire.model(world.fake) }));


const offered = (req: FakeRequest) => JSON.stringify(req.body).includes('"askHuman"');

describe("agent askHuman", () => {
  it("waits for the person, who changes the page and replies; the next step sees both", async () => {
    await env.svc.page.goto(world.server.url("forms.html"));
    scriptSteps(world.fake, step("askHuman", { message: "type your name into Full name, then continue" }), step("done", { message: "the person typed it", success: true }));
    const log = eventLog();
    const asked: string[] = [];
    const agent = env.svc.agent();
    agent.subscribe(log.listener);
    const result = await agent.execute({
      instruction: "get the name typed",
      askHuman: async ({ message }) => {
        asked.push(message);
        // The person acts on the page while the run waits.
        await env.svc.page.evaluate("document.querySelector('#name').value = 'Ada'");
        return { reply: "done, I typed Ada" };
      },
    });
    expect(result).toMatchObject({ success: true, completed: true });
    expect(asked).toEqual(["type your name into Full name, then continue"]);
    expect(result.actions[0]).toMatchObject({ type: "askHuman", ok: true });
    const types = log.types();
    expect(types.indexOf("ask_human")).toBeGreaterThan(types.indexOf("tool_call"));
    expect(types.indexOf("human_reply")).toBeGreaterThan(types.indexOf("ask_human"));
    expect(log.events.find((e) => e.type === "human_reply")).toMatchObject({ answered: true, reply: "done, I typed Ada" });
    // The step after the wait: the model hears the reply and sees the page as the person left it.
    const next = stepRequests(world.fake)[1]!;
    expect(JSON.stringify(next.body)).toContain("done, I typed Ada");
    expect(JSON.stringify(next.body)).toMatch(/e\d+ textbox Full name: Ada\\n/);
    expect(offered(stepRequests(world.fake)[0]!)).toBe(true);
  }, 60_000);

  it("nobody answering within askHumanTimeoutMs is a failed step the model hears about; the handler's signal aborts", async () => {
    await env.svc.page.goto(world.server.url("forms.html"));
    scriptSteps(world.fake, step("askHuman", { message: "solve the check" }), step("done", { message: "nobody came", success: false }));
    let aborted = false;
    const log = eventLog();
    const agent = env.svc.agent();
    agent.subscribe(log.listener);
    const result = await agent.execute({
      instruction: "needs a person",
      askHumanTimeoutMs: 1000,
      askHuman: ({ signal }) => new Promise((resolve) => signal.addEventListener("abort", () => ((aborted = true), resolve()), { once: true })),
    });
    expect(result.completed).toBe(true);
    expect(result.actions[0]).toMatchObject({ type: "askHuman", ok: false });
    expect(log.events.find((e) => e.type === "human_reply")).toMatchObject({ answered: false });
    expect(aborted).toBe(true);
    expect(JSON.stringify(stepRequests(world.fake)[1]!.body)).toContain("nobody answered in time");
  }, 60_000);

  it("is not offered without a handler", async () => {
    await env.svc.page.goto(world.server.url("forms.html"));
    scriptSteps(world.fake, step("done", { message: "ok", success: true }));
    await env.svc.agent().execute("nothing to ask");
    expect(offered(stepRequests(world.fake)[0]!)).toBe(false);
  }, 60_000);
});
