/**
 * The `svc agent` terminal view (Ink, rendered with ink-testing-library): events are fed one at a time,
 * the way the CLI does, and each frame is checked: the task, every step as it arrives (✓/✗, tool,
 * target, reasoning, duration), the step in progress with a spinner, URL, tokens, elapsed time and the
 * final answer. Also the pure parts: the argument summaries and the HTML escaping of report.html.
 */
import { render } from "ink-testing-library";
import { afterEach, describe, expect, it } from "vitest";
import { type RecordedStep, renderReport } from "../../commands/model/record.js";
import { type AgentViewState, initialState, reduce, summarizeArgs } from "../../commands/ui/agent-state.js";
import { AgentView } from "../../commands/ui/agent-view.js";
import type { AgentResultData, RunEvent } from "../../src/events.js";

type Body = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, "runId" | "elapsedMs"> : never) : never;

let clock = 0;
const ev = (body: Body): RunEvent => ({ runId: "run-1", elapsedMs: (clock += 150), ...body }) as RunEvent;
const totals = (input: number, output: number) => ({ input_tokens: input, output_tokens: output, reasoning_tokens: 0, cached_input_tokens: 0, inference_time_ms: 40 });
const URL1 = "http://shop.test/index.html";

const result: AgentResultData = {
  success: true,
  completed: true,
  message: "Order GS-00042 is placed.",
  actions: [
    { type: "perform", step: 1 },
    { type: "keys", step: 2 },
    { type: "done", step: 3 },
  ],
  metadata: { stopReason: "done", steps: 3 },
  usage: totals(3210, 98),
};

const unmounts: Array<() => void> = [];
afterEach(() => {
  for (const u of unmounts.splice(0)) u();
});

/** Renders the view; `feed(e)` reduces one event into the state and re-renders, returning the frame. */
function mount(live = false) {
  clock = 0;
  let state: AgentViewState = initialState();
  const view = render(<AgentView state={state} live={live} />);
  unmounts.push(view.unmount);
  return {
    view,
    feed(e: RunEvent): string {
      state = reduce(state, e);
      view.rerender(<AgentView state={state} live={live} since={Date.now()} />);
      if (process.env.DEBUG_VIEW) console.log(view.lastFrame());
      return view.lastFrame() ?? "";
    },
  };
}

describe("the agent view", () => {
  it("shows each step as its events arrive, then the final answer", () => {
    const { view, feed } = mount();
    expect(view.lastFrame()).toMatch(/starting…/);

    let f = feed(ev({ type: "run_start", instruction: "order a fern for %customer%", mode: "dom", maxSteps: 20, model: "openai/gpt-test", url: URL1 }));
    expect(f).toContain("Task: order a fern for %customer%");
    expect(f).toContain("mode dom · model openai/gpt-test · up to 20 steps");
    expect(f).toContain(URL1);

    f = feed(ev({ type: "step_start", step: 1 }));
    expect(f).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] 1\. thinking…/);
    f = feed(ev({ type: "usage", step: 1, operation: "agent", input: 1200, output: 30, reasoning: 0, cached: 0, inferenceMs: 40, totals: totals(1200, 30) }));
    expect(f).toContain("1,200 in / 30 out tokens");
    f = feed(ev({ type: "tool_call", step: 1, tool: "perform", args: { ref: "e1", method: "fill", arguments: ["fern"] }, reasoning: "type the search term into the box" }));
    expect(f).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] 1\. perform fill e1 "fern"\s+type the search term/);
    expect(f).not.toContain("thinking");
    f = feed(ev({ type: "tool_result", step: 1, tool: "perform", ok: true, summary: "fill done on e1", timeMs: 45 }));
    expect(f).toMatch(/✓ 1\. perform fill e1 "fern"\s+45 ms/);
    expect(f).toMatch(/^\s+type the search term into the box$/m);
    expect(f).not.toContain("2.");

    feed(ev({ type: "step_start", step: 2 }));
    f = feed(ev({ type: "tool_call", step: 2, tool: "keys", args: { key: "Enter" }, reasoning: "submit" }));
    expect(f).toMatch(/2\. keys key=Enter/);
    f = feed(ev({ type: "tool_result", step: 2, tool: "keys", ok: false, summary: "no focused element to press Enter on", timeMs: 1500 }));
    expect(f).toMatch(/✗ 2\. keys key=Enter\s+1\.5s/);
    expect(f).toContain("no focused element to press Enter on");
    f = feed(ev({ type: "page", step: 2, url: "http://shop.test/item.html?id=fern" }));
    expect(f).toContain("http://shop.test/item.html?id=fern");
    f = feed(ev({ type: "log", level: "warn", message: "the agent cache was not written: disk full" }));
    expect(f).toContain("warn: the agent cache was not written: disk full");

    feed(ev({ type: "step_start", step: 3 }));
    feed(ev({ type: "tool_call", step: 3, tool: "done", args: { message: "Order GS-00042 is placed.", success: true }, reasoning: "the confirmation shows it" }));
    f = feed(ev({ type: "tool_result", step: 3, tool: "done", ok: true, summary: "done", timeMs: 3 }));
    expect(f).toMatch(/✓ 3\. done "Order GS-00042 is placed\."\s+3 ms/);
    f = feed(ev({ type: "run_end", result }));
    expect(f).toContain("✓ Done: Order GS-00042 is placed.");
    expect(f).toMatch(/3 steps · 3,210 in \/ 98 out tokens · \d\.\ds/);
    expect(f).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/); // no spinner once the run is over
    // Every step is still there, in order, each printed once.
    const order = ["✓ 1. perform", "✗ 2. keys", "✓ 3. done"].map((s) => f.indexOf(s));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(f.split("✓ 1. perform").length).toBe(2);
  });

  it("a run stopped by a budget ends with ✗ and the message naming the limit", () => {
    const { feed } = mount();
    feed(ev({ type: "run_start", instruction: "think", mode: "hybrid", maxSteps: 1, model: "m", url: "about:blank" }));
    feed(ev({ type: "step_start", step: 1 }));
    feed(ev({ type: "tool_call", step: 1, tool: "think", args: { thought: "hmm" }, reasoning: "" }));
    feed(ev({ type: "tool_result", step: 1, tool: "think", ok: true, summary: "noted", timeMs: 1 }));
    const f = feed(ev({ type: "run_end", result: { success: false, completed: false, message: "stopped: reached the step limit (maxSteps 1) before the task was done", actions: [{ type: "think" }], usage: totals(10, 2) } }));
    expect(f).toContain("✗ Not completed: stopped: reached the step limit (maxSteps 1) before the task was done");
    expect(f).toContain("1 step ·");
  });

  it("the elapsed time includes the start-up before the run began", () => {
    let state = reduce(initialState(), { runId: "r", elapsedMs: 0, type: "run_start", instruction: "go", mode: "dom", maxSteps: 3, model: "m", url: "about:blank" }, 7_000);
    state = reduce(state, { runId: "r", elapsedMs: 7_500, type: "run_end", result: { success: true, completed: true, message: "ok", actions: [] } });
    expect(state.startupMs).toBe(7_000);
    const view = render(<AgentView state={state} live={false} final />);
    unmounts.push(view.unmount);
    expect(view.lastFrame()).toMatch(/ 14\.5s /);
  });

  it("the spinner and the clock move while the model thinks", async () => {
    const { view, feed } = mount(true);
    feed(ev({ type: "run_start", instruction: "wait", mode: "dom", maxSteps: 5, model: "m", url: "about:blank" }));
    feed(ev({ type: "step_start", step: 1 }));
    await new Promise((r) => setTimeout(r, 400));
    const spinners = new Set(view.frames.flatMap((fr) => /([⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]) 1\. thinking/.exec(fr)?.[1] ?? []));
    expect(spinners.size).toBeGreaterThan(2);
    const clocks = new Set(view.frames.flatMap((fr) => / · (\d+) ms$/m.exec(fr)?.[1] ?? []).map(Number));
    expect(Math.max(...clocks) - Math.min(...clocks)).toBeGreaterThan(200);
  });
});

describe("argument summaries", () => {
  it("name what a tool acts on", () => {
    expect(summarizeArgs({ ref: "e5", method: "click", arguments: [] })).toBe("click e5");
    expect(summarizeArgs({ url: "https://example.com/a" })).toBe("https://example.com/a");
    expect(summarizeArgs({ instruction: "click the blue button" })).toBe('"click the blue button"');
    expect(summarizeArgs({ fields: [{}, {}] })).toBe("2 fields");
    expect(summarizeArgs({ x: 10, y: 20, text: "%email%" })).toBe('(10, 20) "%email%"');
    expect(summarizeArgs({ direction: "down", amount: 3 })).toBe("direction=down amount=3");
    expect(summarizeArgs({ thought: "x".repeat(200) }).length).toBeLessThanOrEqual(70);
  });
});

describe("report.html", () => {
  it("escapes every text it shows and embeds the screenshots", () => {
    const step: RecordedStep = {
      step: 1,
      tool: "act",
      args: { instruction: '<img src=x onerror="alert(1)">' },
      reasoning: "the <b>bold</b> & brave",
      cached: false,
      ok: false,
      summary: "failed: </section><script>alert(2)</script>",
      timeMs: 12,
      url: "http://shop.test/?q=<x>",
      screenshot: { file: "step-001.png", base64: "iVBORw0KGgo=" },
    };
    const html = renderReport({
      start: { runId: "r", elapsedMs: 0, type: "run_start", instruction: "find <things>", mode: "dom", maxSteps: 3, model: "m", url: "about:blank" },
      steps: [step],
      result: { success: false, completed: false, message: "stopped: <limit>", actions: [], usage: totals(5, 1) },
      elapsedMs: 1234,
    });
    expect(html).not.toMatch(/<script|<b>|<img src=x|<x>|<things>|<limit>/);
    expect(html).toContain("the &lt;b&gt;bold&lt;/b&gt; &amp; brave");
    expect(html).toContain("&lt;/section&gt;&lt;script&gt;alert(2)&lt;/script&gt;");
    expect(html).toContain("find &lt;things&gt;");
    expect(html).toContain('src="data:image/png;base64,iVBORw0KGgo="');
    expect(html).toContain("not completed");
    expect(html.match(/<section /g)).toHaveLength(1);
  });
});
