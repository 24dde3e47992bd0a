/**
 * The agent solves the multi-page fixture site end to end with a scripted model reading each step's prompt, in dom
 * mode (refs) and hybrid mode (coordinates, a screenshot per step), through each wire format. Checks what the page
 * ends up showing, the result's shape, the events' order, what each step sent, metrics and history.
 */
import { describe, expect, it } from "vitest";
import { AgentResultSchema } from "../../src/agent/result.js";
import { textIn } from "../support/browser.js";
import { useModelService, useModelWorld, WIRES } from "../support/models.js";
import { eventLog, scriptTimes, siteBrain, stepRequests } from "./agent-support.js";

const world = useModelWorld();
const variables = { customer: { value: "Ada Lovelace", description: "the customer's full name" }, email: "ada@example.com" };
const TASK = "Order two Boston Ferns with express delivery and tell me the order number";

const AGENT_RESULT_KEYS = ["success", "message", "actions", "completed", "metadata", "usage"];

describe.each(WIRES)("$label", (wire) => {
  const env = useModelService(() => ({ model: wire.model(world.fake) }));
  const start = () => world.server.url("site/index.html");

  it("dom mode: solves the site from about:blank, one page per step", async () => {
    await env.svc.page.goto("about:blank");
    scriptTimes(world.fake, siteBrain({ start: start() }));
    const agent = env.svc.agent();
    const log = eventLog();
    agent.subscribe(log.listener);
    const metricsBefore = await env.svc.metrics;

    const result = await agent.execute({ instruction: TASK, variables });

    // The page shows what was submitted.
    expect(await textIn(env.svc.page, "#summary")).toBe("Ada Lovelace ordered 2 × Boston Fern, delivery: Express.");
    const number = await textIn(env.svc.page, "#order-number");
    expect(result).toMatchObject({ success: true, completed: true, message: `Order ${number} is placed.` });
    if (process.env.DEBUG_AGENT) console.log(JSON.stringify(result.actions.map(({ reasoning, action, result, ok }) => ({ reasoning, action, result, ok })), null, 1));
    expect(result.actions.map((a) => a.type)).toEqual(["goto", "perform", "keys", "perform", "perform", "fillForm", "perform", "done"]);
    expect(result.actions.at(-1)).toMatchObject({ taskCompleted: true, pageUrl: expect.stringContaining("/site/confirm.html") });
    expect(result.actions[1]).toMatchObject({ action: 'fill e1 searchbox "Search plants" ["fern"]', ok: true, reasoning: "search" });
    for (const a of result.actions) expect(a.timeMs).toBeGreaterThanOrEqual(0);

    // Exactly the agent result of docs/wire-formats.md, strict where it allows no other properties.
    expect(AgentResultSchema.safeParse(result).success).toBe(true);
    expect(Object.keys(result).every((k) => AGENT_RESULT_KEYS.includes(k))).toBe(true);
    expect(Object.keys(result.usage!).sort()).toEqual(["cached_input_tokens", "inference_time_ms", "input_tokens", "output_tokens", "reasoning_tokens"]);
    expect(result.metadata).toMatchObject({ mode: "dom", steps: 8, stopReason: "done" });

    // One model call per step, each with the current page only and the history as lines.
    const reqs = stepRequests(world.fake);
    expect(reqs).toHaveLength(8);
    expect(world.fake.requests).toHaveLength(8);
    for (const r of reqs) expect(r.format).toBe(wire.format);
    const last = reqs.at(-1)!;
    expect(last.url).toContain("/site/confirm.html");
    expect(last.snapshot).toContain("Order number: GS-");
    // Earlier pages' outlines are not resent: only their one-line history entries.
    for (const old of ["Red Rose", "list Plants", "Order this plant\n", "spinbutton Quantity"]) expect(last.userText).not.toContain(old);
    expect(last.userText).toContain("Step 8 of 20");
    expect(last.note).toMatch(/^1\. goto \{"url":".*site\/index\.html"\} → ok: opened/m);
    expect(last.note).toMatch(/^6\. fillForm .*%customer%.*→ ok: filled 4 fields/m);
    expect(last.instruction).toBe(TASK);
    expect(last.variables).toEqual(["customer", "email"]);
    expect(last.systemText).toContain("- perform:");
    expect(last.schema).toMatchObject({ required: ["reasoning", "tool", "args"] });

    // Events: in order, every step framed by step_start … tool_result, run_end last with the result.
    const core = log.types().filter((t) => t !== "usage" && t !== "page");
    expect(core[0]).toBe("run_start");
    expect(core.at(-1)).toBe("run_end");
    expect(core.slice(1, -1)).toEqual(Array.from({ length: 8 }, () => ["step_start", "tool_call", "tool_result"]).flat());
    const end = log.events.at(-1)!;
    expect(end.type === "run_end" && end.result.completed).toBe(true);
    expect(log.events.filter((e) => e.type === "usage")).toHaveLength(8);
    const pages = log.events.flatMap((e) => (e.type === "page" ? [e.url] : []));
    expect(pages[0]).toBe("about:blank");
    expect(pages.some((u) => u.includes("/site/item.html?id=fern"))).toBe(true);
    const steps = log.events.flatMap((e) => ("step" in e ? [e.step] : []));
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    expect(new Set(log.events.map((e) => e.runId)).size).toBe(1);

    // Metrics: the run's usage in the agent bucket; history: one agent entry.
    const metrics = await env.svc.metrics;
    expect(metrics.agentPromptTokens - metricsBefore.agentPromptTokens).toBe(result.usage!.input_tokens);
    expect(metrics.agentCompletionTokens - metricsBefore.agentCompletionTokens).toBe(result.usage!.output_tokens);
    expect(result.usage!.input_tokens).toBeGreaterThan(0);
    const history = await env.svc.history;
    const entry = history.filter((h) => h.method === "agent").at(-1)!;
    expect(entry.parameters).toMatchObject({ instruction: TASK, mode: "dom", maxSteps: 20, variables: ["customer", "email"] });
    expect(entry.result).toMatchObject({ success: true, completed: true });
  });

  it("hybrid mode: clicks and types by coordinates, a screenshot with every step", async () => {
    await env.svc.page.goto(start());
    scriptTimes(world.fake, siteBrain({ start: start(), page: () => env.svc.page }));
    const result = await env.svc.agent({ mode: "hybrid" }).execute({ instruction: TASK, variables, highlightCursor: true });

    expect(await textIn(env.svc.page, "#summary")).toBe("Ada Lovelace ordered 2 × Boston Fern, delivery: Express.");
    expect(result).toMatchObject({ success: true, completed: true, metadata: { mode: "hybrid" } });
    expect(result.actions.map((a) => a.type)).toEqual(["typeAt", "keys", "clickAt", "clickAt", "typeAt", "fillForm", "clickAt", "done"]);

    const reqs = stepRequests(world.fake);
    expect(reqs).toHaveLength(8);
    expect(reqs[0]!.systemText).toContain("- clickAt:");
    expect(reqs[0]!.userText).toMatch(/Screenshot: attached, \d+×\d+ pixels\./);
    for (const r of reqs) expect(imagesIn(r.body)).toEqual(["image/png"]);
  });
});

/** Media types of the images in a request body, whatever the wire format. */
function imagesIn(body: Record<string, any>): string[] {
  const out: string[] = [];
  const parts = [...(body.input ?? []), ...(body.messages ?? [])].flatMap((m: any) => (Array.isArray(m.content) ? m.content : []));
  for (const p of parts) {
    if (p.type === "input_image") out.push(/^data:([^;]+);base64,/.exec(p.image_url)?.[1] ?? "?");
    if (p.type === "image_url") out.push(/^data:([^;]+);base64,/.exec(p.image_url.url)?.[1] ?? "?");
    if (p.type === "image") out.push(p.source.media_type);
  }
  return out;
}
