/**
 * agentExecute's cacheEntry in the official client's shape (src/server/stagehand/agent-entry.ts): what it
 * refuses to hand over (steps Stagehand would replay differently, masks it would type as written). The key and
 * replay against the real client are in test/e2e/server-official-client.test.ts.
 */
import { describe, expect, it } from "vitest";
import { stagehandAgentEntry, type EntryInput } from "../../src/server/stagehand/agent-entry.js";

const input = (steps: EntryInput["steps"], variables: Record<string, unknown> = {}): EntryInput => ({
  instruction: " sign up ",
  startUrl: "https://example.test/",
  executeOptions: { maxSteps: 5, variables },
  agentConfig: { model: { modelName: "openai/gpt-test", apiKey: "sk-secret" } },
  sessionModel: "openai/gpt-test",
  sessionSystemPrompt: undefined,
  steps,
  result: { success: true, message: "done", actions: [], completed: true },
  viewportHeight: 700,
});

describe("the official client's agent cache entry", () => {
  it("maps svc's steps (a fill on a <select> becomes selectOptionFromDropdown, a screen of scroll a deltaY) and ends with done", () => {
    const e = stagehandAgentEntry(
      input(
        [
          { tool: "perform", args: { ref: "xpath=/html/body/form/select[2]", method: "fill", arguments: ["Express"] } },
          { tool: "fillForm", args: { fields: [{ ref: "xpath=/html/body/input", value: "%email%" }] } },
          { tool: "scroll", args: { direction: "down" } },
          { tool: "wait", args: { ms: 300 } },
          { tool: "back", args: {} },
        ],
        { email: "ada@example.com" },
      ),
    )!;
    expect(e.cacheKey).toMatch(/^[0-9a-f]{64}$/);
    expect(e.entry).toMatchObject({ version: 1, instruction: "sign up", options: { maxSteps: 5 } });
    expect(e.entry.steps.map((s) => s.type)).toEqual(["act", "fillForm", "scroll", "wait", "navback", "done"]);
    expect((e.entry.steps[0]!.actions as Array<{ method: string }>)[0]!.method).toBe("selectOptionFromDropdown");
    expect(e.entry.steps[2]).toMatchObject({ deltaY: 700 });
    expect(JSON.parse(e.entry.configSignature)).toEqual({ v3Model: "openai/gpt-test", systemPrompt: "", agent: { cua: false, model: null, executionModel: null, systemPrompt: null } });
    expect(JSON.stringify(e)).not.toContain("sk-secret");
  });

  it("no entry for a step it would replay differently, or a %name% the client's variables do not give", () => {
    expect(stagehandAgentEntry(input([{ tool: "scroll", args: { percent: 50 } }]))).toBeUndefined();
    expect(stagehandAgentEntry(input([{ tool: "dialog", args: { action: "accept" } }]))).toBeUndefined();
    expect(stagehandAgentEntry(input([{ tool: "perform", args: { ref: "xpath=/html/body/input", method: "fill", arguments: ["%password%"] } }], { email: "x" }))).toBeUndefined();
  });
});
