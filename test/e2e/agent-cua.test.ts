/**
 * cua mode: the provider's computer-use tool drives the fixture site (click the search box, type "fern",
 * press Enter, click Boston Fern) through OpenAI computer use (Responses API) and Anthropic computer use,
 * with the fake model answering in each wire format. Coordinates are measured in the page, as a model
 * would read them off the screenshot. Checks the page effect, that screenshots go back with each turn,
 * the requests' computer-use shape, events and the result's seed shape.
 */
import { describe, expect, it } from "vitest";
import { AgentResultSchema } from "../../src/agent/result.js";
import type { Page } from "../../src/browser/page.js";
import { useModelService, useModelWorld, WIRES } from "../support/models.js";
import type { FakeReply } from "../support/fake-model.js";
import { centerOf, eventLog } from "./agent-support.js";

const world = useModelWorld();
const TASK = "Find the Boston Fern and open its page";

/** Screenshot pixels of an element's center (CSS pixels × devicePixelRatio). */
async function pixelsOf(page: Page, selector: string): Promise<{ x: number; y: number }> {
  const c = await centerOf(page, selector);
  const r = Number(await page.evaluate("window.devicePixelRatio")) || 1;
  return { x: Math.round(c.x * r), y: Math.round(c.y * r) };
}

const PROVIDERS = [
  {
    wire: WIRES.find((w) => w.format === "responses")!,
    script: (page: () => Page): FakeReply[] => [
      async () => ({ kind: "computer", actions: [{ type: "click", button: "left", ...(await pixelsOf(page(), "#q")) }] }),
      { kind: "computer", actions: [{ type: "type", text: "fern" }] },
      { kind: "computer", actions: [{ type: "keypress", keys: ["ENTER"] }] },
      async () => ({ kind: "computer", actions: [{ type: "click", button: "left", ...(await pixelsOf(page(), "#item-fern")) }] }),
      { kind: "computer", actions: [], text: "Boston Fern's page is open." },
    ],
  },
  {
    wire: WIRES.find((w) => w.format === "anthropic")!,
    script: (page: () => Page): FakeReply[] => {
      const click = (selector: string) => async () => {
        const p = await pixelsOf(page(), selector);
        return { kind: "computer", text: `clicking ${selector}`, actions: [{ action: "left_click", coordinate: [p.x, p.y] }] } as FakeReply;
      };
      return [
        click("#q"),
        { kind: "computer", actions: [{ action: "type", text: "fern" }] },
        { kind: "computer", actions: [{ action: "key", text: "Return" }] },
        click("#item-fern"),
        { kind: "computer", actions: [], text: "Boston Fern's page is open." },
      ];
    },
  },
];

/** Images (media types) anywhere in a request body, tool results included. */
function imagesIn(body: Record<string, any>): string[] {
  const out: string[] = [];
  const walk = (v: any): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!v || typeof v !== "object") return;
    if (v.type === "input_image" || v.type === "computer_screenshot") out.push(/^data:([^;]+);base64,/.exec(v.image_url)?.[1] ?? "?");
    else if (v.type === "image") out.push(v.source?.media_type ?? "?");
    for (const [k, x] of Object.entries(v)) if (k !== "source") walk(x);
  };
  walk(body.input ?? body.messages);
  return out;
}

describe.each(PROVIDERS)("$wire.label computer use", ({ wire, script }) => {
  const env = useModelService(() => ({ model: wire.model(world.fake) }));

  it("searches for fern and opens Boston Fern by mapped computer actions", async () => {
    await env.svc.page.goto(world.server.url("site/index.html"));
    world.fake.script(...script(() => env.svc.page));
    const agent = env.svc.agent({ mode: "cua" });
    const log = eventLog();
    agent.subscribe(log.listener);
    const metricsBefore = await env.svc.metrics;

    const result = await agent.execute(TASK);

    // The page effect.
    expect(env.svc.page.url()).toContain("/site/item.html?id=fern");
    // The result: the seed shape, the final message, one action per mapped call plus done.
    expect(AgentResultSchema.safeParse(result).success).toBe(true);
    expect(result).toMatchObject({ success: true, completed: true, message: "Boston Fern's page is open.", metadata: { mode: "cua", steps: 5, stopReason: "done" } });
    expect(result.actions.map((a) => a.type)).toEqual(["computer", "computer", "computer", "computer", "done"]);
    expect(result.actions[0]!.action).toMatch(/^click at \(\d+, \d+\)$/);
    expect(result.actions[1]).toMatchObject({ action: 'type "fern"', ok: true });
    expect(result.actions[2]).toMatchObject({ action: "press Enter", ok: true });
    expect(result.actions[4]).toMatchObject({ taskCompleted: true, pageUrl: expect.stringContaining("/site/item.html?id=fern") });
    expect(result.usage!.input_tokens).toBeGreaterThan(0);

    // Requests: the computer tool each time, the task with the first screenshot, a screenshot back every turn.
    const reqs = world.fake.requests;
    expect(reqs).toHaveLength(5);
    for (const r of reqs) {
      expect(r.format).toBe(wire.format);
      expect(r.operation).toBe("computer_use");
      expect(imagesIn(r.body)).toEqual(["image/png"]);
    }
    if (wire.format === "responses") {
      expect(reqs[0]!.body.tools).toEqual([{ type: "computer_use_preview", display_width: expect.any(Number), display_height: expect.any(Number), environment: "browser" }]);
      expect(reqs[0]!.body.truncation).toBe("auto");
      expect(reqs[0]!.body.input[0].content[0]).toMatchObject({ type: "input_text", text: TASK });
      for (const r of reqs.slice(1)) {
        expect(r.body.previous_response_id).toMatch(/^resp_/);
        expect(r.body.input[0]).toMatchObject({ type: "computer_call_output", call_id: expect.stringMatching(/^call_/), output: { type: "computer_screenshot", image_url: expect.stringMatching(/^data:image\/png;base64,/) } });
      }
    } else {
      expect(reqs[0]!.body.tools).toEqual([{ type: "computer_20250124", name: "computer", display_width_px: expect.any(Number), display_height_px: expect.any(Number) }]);
      expect(String(reqs[0]!.headers["anthropic-beta"])).toContain("computer-use-2025-01-24");
      expect(reqs[0]!.body.messages[0].content[0]).toMatchObject({ type: "text", text: TASK });
      for (const r of reqs.slice(1)) {
        const last = r.body.messages.at(-1);
        expect(last.role).toBe("user");
        expect(last.content[0]).toMatchObject({ type: "tool_result", tool_use_id: expect.stringMatching(/^toolu_/), content: [{ type: "image", source: { type: "base64", media_type: "image/png" } }] });
      }
    }

    // Events: every step framed by step_start … tool_call … tool_result; tool_call carries the mapped action.
    const core = log.types().filter((t) => t !== "usage" && t !== "page");
    expect(core[0]).toBe("run_start");
    expect(core.at(-1)).toBe("run_end");
    expect(core.slice(1, -1)).toEqual(Array.from({ length: 5 }, () => ["step_start", "tool_call", "tool_result"]).flat());
    const calls = log.events.flatMap((e) => (e.type === "tool_call" ? [e.args] : []));
    expect(calls[1]).toEqual({ type: "type", text: "fern" });
    expect(calls[2]).toEqual({ type: "keypress", keys: ["Enter"] });

    // Usage in the agent bucket.
    const metrics = await env.svc.metrics;
    expect(metrics.agentPromptTokens - metricsBefore.agentPromptTokens).toBe(result.usage!.input_tokens);
  });
});

describe("cua with a Chat Completions model", () => {
  const env = useModelService(() => ({ model: WIRES.find((w) => w.format === "chat")!.model(world.fake) }));
  it("fails with a clear UnsupportedModelError", async () => {
    await env.svc.page.goto(world.server.url("site/index.html"));
    await expect(env.svc.agent({ mode: "cua" }).execute(TASK)).rejects.toThrow(/cua mode needs the OpenAI Responses API/);
    expect(world.fake.requests).toHaveLength(0);
  });
});
