/**
 * cua mode: OpenAI's and Anthropic's computer-use tools (the fake model answering in each format) drive the fixture
 * site, with coordinates measured in the page as a model would read them off the screenshot. Checks the page effect,
 * a screenshot per turn, the requests' shape, events and the result's shape; a second run per provider solves the
 * whole site task.
 */
import { describe, expect, it } from "vitest";
import { AgentResultSchema } from "../../src/agent/result.js";
import type { Page } from "../../src/browser/page.js";
import { useModelService, useModelWorld, WIRES } from "../support/models.js";
import type { FakeReply } from "../support/fake-model.js";
import { textIn } from "../support/browser.js";
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
    // The result: the agent result of docs/wire-formats.md, the final message, one action per mapped call plus
    // done.
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

const ORDER_TASK = "Order two Boston Ferns with express delivery and tell me the order number";
const variables = { customer: { value: "Ada Lovelace", description: "the customer's full name" }, email: "ada@example.com" };

/** One provider-neutral step of the whole-site script: click an element (measured at reply time), type, press keys, or finish. */
type SiteStep = { click: string } | { type: string } | { keys: string[] } | { final: true };

/** Search "fern", open Boston Fern, order it (each field clicked then typed, delivery chosen by keys), submit, report. */
const SITE_STEPS: SiteStep[] = [
  { click: "#q" },
  { type: "fern" },
  { keys: ["Enter"] },
  { click: "#item-fern" },
  { click: "#order-link" },
  { click: "#customer" },
  { type: "%customer%" },
  { click: "#email" },
  { type: "%email%" },
  { click: "#quantity" },
  { keys: ["ctrl", "a"] },
  { type: "2" },
  { click: "#delivery" },
  { keys: ["Escape"] },
  { keys: ["Down"] },
  { click: "#place-order" },
  { final: true },
];

/** The order number the confirmation page shows, read off the live page. */
const orderNumberOn = async (page: Page) => String(await page.evaluate(`document.getElementById("order-number").textContent`));

/** SITE_STEPS as one provider's replies, each computed lazily when its request arrives (coordinates on the current page). */
function siteScript(format: string, page: () => Page): FakeReply[] {
  return SITE_STEPS.map((s): FakeReply => async () => {
    if ("final" in s) return { kind: "computer", actions: [], text: `Order ${await orderNumberOn(page())} is placed.` };
    if (format === "responses") {
      if ("click" in s) return { kind: "computer", actions: [{ type: "click", button: "left", ...(await pixelsOf(page(), s.click)) }] };
      if ("type" in s) return { kind: "computer", actions: [{ type: "type", text: s.type }] };
      return { kind: "computer", actions: [{ type: "keypress", keys: s.keys.map((k) => k.toUpperCase()) }] };
    }
    if ("click" in s) {
      const p = await pixelsOf(page(), s.click);
      return { kind: "computer", text: `clicking ${s.click}`, actions: [{ action: "left_click", coordinate: [p.x, p.y] }] };
    }
    if ("type" in s) return { kind: "computer", actions: [{ action: "type", text: s.type }] };
    const xdo: Record<string, string> = { Enter: "Return" };
    return { kind: "computer", actions: [{ action: "key", text: s.keys.map((k) => xdo[k] ?? k).join("+") }] };
  });
}

describe.each(PROVIDERS)("$wire.label computer use, the whole site task", ({ wire }) => {
  const env = useModelService(() => ({ model: wire.model(world.fake) }));

  it("searches, opens Boston Fern, fills and submits the order form by computer actions", async () => {
    await env.svc.page.goto(world.server.url("site/index.html"));
    world.fake.script(...siteScript(wire.format, () => env.svc.page));
    const agent = env.svc.agent({ mode: "cua" });
    const log = eventLog();
    agent.subscribe(log.listener);

    const result = await agent.execute({ instruction: ORDER_TASK, variables });

    // The page: the confirmation with the submitted values.
    const page = env.svc.page;
    expect(page.url()).toContain("/site/confirm.html");
    expect(await textIn(page, "#summary")).toBe("Ada Lovelace ordered 2 × Boston Fern, delivery: Express.");
    expect(await textIn(page, "#sent-to")).toBe("ada@example.com");
    const number = await orderNumberOn(page);
    expect(number).toMatch(/^GS-\d{5}$/);

    // The result: the documented shape, the final message, one computer action per scripted step plus done.
    const n = SITE_STEPS.length;
    expect(AgentResultSchema.safeParse(result).success).toBe(true);
    expect(result).toMatchObject({ success: true, completed: true, message: `Order ${number} is placed.`, metadata: { mode: "cua", steps: n, stopReason: "done" } });
    expect(result.actions.map((a) => a.type)).toEqual([...Array.from({ length: n - 1 }, () => "computer"), "done"]);
    for (const a of result.actions) expect(a.ok).not.toBe(false);
    expect(result.actions[6]).toMatchObject({ action: 'type "%customer%"' });
    expect(result.actions.at(-1)).toMatchObject({ taskCompleted: true, pageUrl: expect.stringContaining("/site/confirm.html") });
    expect(result.usage!.input_tokens).toBeGreaterThan(0);

    // Requests: one per step, each with exactly one screenshot; after the first, it is the previous call's output.
    const reqs = world.fake.requests;
    expect(reqs).toHaveLength(n);
    for (const r of reqs) {
      expect(r.format).toBe(wire.format);
      expect(r.operation).toBe("computer_use");
      expect(imagesIn(r.body)).toEqual(["image/png"]);
    }
    for (const r of reqs.slice(1)) {
      if (wire.format === "responses") expect(r.body.input[0]).toMatchObject({ type: "computer_call_output", output: { type: "computer_screenshot" } });
      else expect(r.body.messages.at(-1).content[0]).toMatchObject({ type: "tool_result", content: [{ type: "image", source: { media_type: "image/png" } }] });
    }

    // Events: every step framed by step_start … tool_call … tool_result; the visited pages.
    const core = log.types().filter((t) => t !== "usage" && t !== "page");
    expect(core.slice(1, -1)).toEqual(Array.from({ length: n }, () => ["step_start", "tool_call", "tool_result"]).flat());
    const pages = log.events.flatMap((e) => (e.type === "page" ? [e.url] : []));
    for (const part of ["/site/item.html?id=fern", "/site/order.html?item=fern", "/site/confirm.html"]) expect(pages.some((u) => u.includes(part))).toBe(true);
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
