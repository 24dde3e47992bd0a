/**
 * cua mode: the provider's computer-use tool drives the page. Each step sends a screenshot and runs every action
 * returned as real input (clicks and drags as hybrid mode's clickAt / dragAt). Actions go through run.ts's `execute`, so
 * events, toolTimeout, budgets, abort and the cache work as in dom mode. Coordinates are screenshot pixels, divided by
 * the picture's scale.
 */
import { z } from "zod";
import type { Page } from "../browser/page.js";
import { UnsupportedModelError } from "../errors.js";
import type { ComputerAction, ComputerCallResult, ComputerUseSession } from "../model/computer-use.js";
import type { LLMClient, ModelUsage } from "../model/types.js";
import { promptVariables, resolveArgument, type Variables } from "../operations/variables.js";
import { abortable, sleep, throwIfAborted } from "../util/abort.js";
import { hybridTools, ratio, stepScreenshot } from "./tools-hybrid.js";
import { defineTool, oneLine, type AgentTool, type ParsedStep, type ToolEnv, type ToolOutcome } from "./tools.js";

const Coord = z.number().min(0).max(100_000);
const Point = z.object({ x: Coord, y: Coord });

/** The neutral computer action (model/computer-use.ts) as the `computer` tool's input. */
const ComputerActionSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("click"), x: Coord, y: Coord, button: z.enum(["left", "right", "middle"]).optional(), clickCount: z.number().int().min(1).max(3).optional() }),
  z.object({ type: z.literal("move"), x: Coord, y: Coord }),
  z.object({ type: z.literal("drag"), path: z.array(Point).min(2) }),
  z.object({ type: z.literal("scroll"), x: Coord, y: Coord, scrollX: z.number(), scrollY: z.number() }),
  z.object({ type: z.literal("type"), text: z.string() }),
  z.object({ type: z.literal("keypress"), keys: z.array(z.string().min(1)).min(1) }),
  z.object({ type: z.literal("wait"), ms: z.number().int().min(0).max(60_000).optional() }),
  z.object({ type: z.literal("screenshot") }),
  z.object({ type: z.literal("unsupported"), name: z.string() }),
]);

const DEFAULT_WAIT_MS = 1000;

function describeComputerAction(a: ComputerAction): string {
  switch (a.type) {
    case "click":
      return `${a.clickCount === 2 ? "double-click" : a.clickCount === 3 ? "triple-click" : a.button && a.button !== "left" ? `${a.button}-click` : "click"} at (${a.x}, ${a.y})`;
    case "move":
      return `move to (${a.x}, ${a.y})`;
    case "drag":
      return `drag ${a.path.map((p) => `(${p.x}, ${p.y})`).join(" → ")}`;
    case "scroll":
      return `scroll (${a.scrollX}, ${a.scrollY}) at (${a.x}, ${a.y})`;
    case "type":
      return `type ${JSON.stringify(oneLine(a.text, 60))}`;
    case "keypress":
      return `press ${a.keys.join("+")}`;
    case "wait":
      return `wait ${a.ms ?? DEFAULT_WAIT_MS} ms`;
    case "screenshot":
      return "screenshot";
    default:
      return `unsupported action ${a.name}`;
  }
}

const [clickAt, , dragAt] = hybridTools() as [AgentTool, AgentTool, AgentTool];

async function runAction(env: ToolEnv, a: ComputerAction): Promise<ToolOutcome> {
  const said = describeComputerAction(a);
  const ok = (summary = said): ToolOutcome => ({ ok: true, summary, replay: [{ tool: "computer", args: a as Record<string, unknown> }] });
  switch (a.type) {
    case "click": {
      const out = await clickAt.run(env, { x: a.x, y: a.y, ...(a.button ? { button: a.button } : {}), ...(a.clickCount ? { clickCount: a.clickCount } : {}) });
      return out.ok ? ok() : out;
    }
    case "drag": {
      // Intermediate points are not replayed one by one: the pointer goes from the first to the last.
      const from = a.path[0]!;
      const to = a.path[a.path.length - 1]!;
      const out = await dragAt.run(env, { x1: from.x, y1: from.y, x2: to.x, y2: to.y });
      return out.ok ? ok() : out;
    }
    case "move": {
      const r = await ratio(env.page);
      await env.page.input.move({ x: a.x / r, y: a.y / r });
      return ok();
    }
    case "scroll": {
      const r = await ratio(env.page);
      await env.page.input.move({ x: a.x / r, y: a.y / r });
      await env.page.input.wheel({ x: a.x / r, y: a.y / r }, a.scrollX / r, a.scrollY / r);
      await env.page.settle();
      return ok();
    }
    case "type":
      await env.page.type(resolveArgument(a.text, env.variables, env.secrets));
      await env.page.settle();
      return ok(`typed ${a.text.length} characters`);
    case "keypress":
      await env.page.keyPress(a.keys.join("+"));
      return ok(`pressed ${a.keys.join("+")}`);
    case "wait":
      await sleep(a.ms ?? DEFAULT_WAIT_MS, env.signal);
      return ok();
    case "screenshot":
      return ok("a new screenshot is sent with the next step");
    default:
      return { ok: false, summary: `svc does not support the computer action "${a.name}"` };
  }
}

const computer = defineTool({
  name: "computer",
  description: "one action of the provider's computer-use tool, on screenshot pixels",
  input: ComputerActionSchema,
  describe: (a) => describeComputerAction(a as ComputerAction),
  run: (env, a) => runAction(env, a as ComputerAction),
});

const done = defineTool({
  name: "done",
  description: "finish: the model's final message",
  input: z.object({ message: z.string(), success: z.boolean().default(true) }),
  describe: (a) => `done: ${oneLine(a.message, 80)}`,
  async run(_env, a) {
    return { ok: true, summary: oneLine(a.message), done: { message: a.message, success: a.success }, replay: [{ tool: "done", args: a }] };
  },
});

/** cua mode's registry: the computer action and the final message (both also replayed from the agent cache). */
export function cuaTools(): AgentTool[] {
  return [computer, done];
}

/** The instructions sent with the computer-use tool. */
export function cuaSystemPrompt(systemPrompt: string | undefined, variables: Variables, maxSteps: number): string {
  const names = promptVariables(variables)
    .map((v) => (v.description ? `%${v.name}% (${v.description})` : `%${v.name}%`))
    .join(", ");
  return [
    "You operate a web browser page through the computer tool: look at each screenshot and act on it until the task is done, then answer with a short final message and no action.",
    `You have at most ${maxSteps} steps.`,
    ...(names ? [`Variables: ${names}. Type a variable as written (%name%): its value is filled in for you and never shown.`] : []),
    ...(systemPrompt ? [systemPrompt] : []),
  ].join("\n");
}

/** What the cua loop needs from the run (run.ts). */
export interface CuaRun {
  instruction: string;
  system: string;
  client: LLMClient;
  signal: AbortSignal;
  page(): Page;
  /** Checks maxSteps / maxTokens and starts a step (step_start); false: a budget stopped the run. */
  begin(): boolean;
  /** After a model call: true when maxTokens is now exceeded (the run stops before acting). */
  overTokens(): boolean;
  onUsage(usage: ModelUsage): void;
  execute(call: ParsedStep): Promise<ToolOutcome>;
  finished(): boolean;
}

export async function cuaLoop(run: CuaRun): Promise<void> {
  if (!run.client.computerUse) {
    throw new UnsupportedModelError(`${run.client.modelName}: this model client has no computer-use tool, so it can't run in cua mode`, {
      hint: 'use an OpenAI (Responses API) or Anthropic computer-use model, or mode "hybrid"',
    });
  }
  let session: ComputerUseSession | undefined;
  let results: ComputerCallResult[] = [];
  while (!run.finished()) {
    if (!run.begin()) return;
    const shot = await abortable(stepScreenshot(run.page()), run.signal);
    session ??= run.client.computerUse({ system: run.system, instruction: run.instruction, display: { width: shot.width, height: shot.height } });
    const turn = await abortable(session.next({ screenshot: shot.image, results, signal: run.signal }), run.signal);
    run.onUsage(turn.usage);
    results = [];
    if (turn.calls.length === 0) {
      await run.execute({ tool: done, args: { message: turn.text || "(no message)", success: true }, reasoning: "the model answered without an action" });
      return;
    }
    if (run.overTokens()) return;
    for (const call of turn.calls) {
      throwIfAborted(run.signal);
      const parsed = ComputerActionSchema.safeParse(call.action);
      const outcome = parsed.success
        ? await run.execute({ tool: computer, args: parsed.data, reasoning: turn.text })
        : { ok: false, summary: `the action does not fit: ${parsed.error.issues[0]?.message ?? "invalid"}` };
      results.push({ id: call.id, ok: outcome.ok, ...(outcome.ok ? {} : { error: outcome.summary }) });
    }
  }
}
