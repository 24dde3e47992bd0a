/**
 * dom-mode tools. Each is a thin call into an operation: perform (deterministic, on a ref of the outline
 * the model was shown), act / extract (a sub-call on the execution model), goto, back, … The arguments'
 * shapes come from the operations' own contracts (MODEL_ACTION_METHODS, the Action record).
 */
import { z } from "zod";
import { ServiceInvalidArgumentError } from "../errors.js";
import { MODEL_ACTION_METHODS, type Action } from "../operations/action.js";
import { actWithModel } from "../operations/act-model.js";
import { toAction } from "../operations/context.js";
import { extractWithModel } from "../operations/extract.js";
import { isRef, performAction, resolveTarget } from "../operations/perform.js";
import { clickablePoint } from "../browser/element.js";
import { resolveArgument, substitute } from "../operations/variables.js";
import { sleep } from "../util/abort.js";
import { fromJsonSchema } from "../util/json-schema.js";
import { defineTool, highlight, oneLine, targetLabel, type AgentTool, type ReplayStep, type ToolEnv } from "./tools.js";

const MAX_WAIT_MS = 10_000;
const MAX_DETAIL = 4000;

/** Runs one Action on a ref (or, in a replay, a selector); returns the record with an XPath and %var% arguments kept. */
const POINTER_METHODS = new Set(["click", "doubleClick", "hover", "dragAndDrop"]);

async function performOn(env: ToolEnv, ref: string, method: string, args: string[], description: string): Promise<Action> {
  if (env.highlightCursor && POINTER_METHODS.has(method)) {
    // Show where the pointer is about to go; measuring scrolls the element into view, as the action will.
    const at = await clickablePoint(env.page, await resolveTarget(env.page, ref, env.refs)).catch(() => undefined);
    if (at) await highlight(env.page, at.x, at.y);
  }
  const recordedArgs = method === "dragAndDrop" && args[0] && isRef(args[0]) && env.refs ? (await toAction(env.page, env.refs, { ref, method, arguments: args, description })).arguments : args;
  // The wait for an actionable element ends with the tool (toolTimeout or the run's end).
  const result = await performAction(env.page, { selector: ref, description, method, arguments: args.map((a) => resolveArgument(a, env.variables, env.secrets)) }, env.refs, { signal: env.signal, ...(env.deadline !== undefined ? { deadline: env.deadline } : {}) });
  return { ...result.actions[0]!, arguments: recordedArgs };
}

const asReplay = (actions: Action[]): ReplayStep[] => actions.map((a) => ({ tool: "perform", args: { ref: a.selector, method: a.method, arguments: a.arguments } }));

const goto = defineTool({
  name: "goto",
  description: "open a URL in the current tab",
  input: z.object({ url: z.string().min(1) }),
  describe: (a) => `goto ${a.url}`,
  async run(env, a) {
    const r = await env.page.goto(substitute(a.url, env.variables));
    return { ok: true, summary: `opened ${r.url}${r.status ? ` (HTTP ${r.status})` : ""}`, replay: [{ tool: "goto", args: a }] };
  },
});

const perform = defineTool({
  name: "perform",
  description: `act directly on an element of the page outline by its ref, no extra model call. method: ${MODEL_ACTION_METHODS.join(", ")}. fill replaces a field's value, type appends, press takes a key (Enter…), selectOptionFromDropdown takes the option text (native dropdowns), scrollTo a percentage, dragAndDrop the drop target's ref`,
  input: z.object({
    ref: z.string().describe("ref of the element, e.g. e12"),
    method: z.enum(MODEL_ACTION_METHODS),
    arguments: z.array(z.string()).default([]),
  }),
  refs: (a) => [a.ref, ...(a.method === "dragAndDrop" && a.arguments[0] && isRef(a.arguments[0]) ? [a.arguments[0]] : [])],
  describe: (a, refs) => `${a.method} ${targetLabel(refs, a.ref)}${a.arguments.length ? ` ${JSON.stringify(a.arguments)}` : ""}`,
  async run(env, a) {
    const label = targetLabel(env.refs, a.ref);
    const action = await performOn(env, a.ref, a.method, a.arguments, label);
    return { ok: true, summary: `${a.method} done on ${label}`, actions: [action], replay: asReplay([action]) };
  },
});

const act = defineTool({
  name: "act",
  description: "perform one action described in words (e.g. 'open the Delivery dropdown and pick Express'); uses another model call, so prefer perform when the ref is known",
  input: z.object({ instruction: z.string().min(1) }),
  describe: (a) => `act: ${a.instruction}`,
  async run(env, a) {
    const { result } = await actWithModel(env.operation("act"), a.instruction, { selfHeal: env.selfHeal });
    return { ok: result.success, summary: oneLine(result.message), actions: result.actions, instruction: a.instruction, ...(result.success ? { replay: asReplay(result.actions) } : {}) };
  },
});

const fillForm = defineTool({
  name: "fillForm",
  description: "fill several fields at once (text fields and native dropdowns), each by ref; no extra model call",
  input: z.object({ fields: z.array(z.object({ ref: z.string(), value: z.string() })).min(1) }),
  refs: (a) => a.fields.map((f) => f.ref),
  describe: (a, refs) => `fill ${a.fields.map((f) => targetLabel(refs, f.ref)).join(", ")}`,
  async run(env, a) {
    const actions: Action[] = [];
    for (const f of a.fields) actions.push(await performOn(env, f.ref, "fill", [f.value], targetLabel(env.refs, f.ref)));
    const fields = actions.map((x, i) => ({ ref: x.selector, value: a.fields[i]!.value }));
    return { ok: true, summary: `filled ${actions.length} field${actions.length === 1 ? "" : "s"}`, actions, replay: [{ tool: "fillForm", args: { fields } }] };
  },
});

const extract = defineTool({
  name: "extract",
  description: "read data from the current page with another model call; optional JSON Schema for structured data. Usually not needed: the outline already shows the page's text",
  input: z.object({ instruction: z.string().min(1), schema: z.record(z.string(), z.unknown()).optional().describe("JSON Schema of the data") }),
  describe: (a) => `extract: ${a.instruction}`,
  async run(env, a) {
    let schema: z.ZodType | undefined;
    if (a.schema) {
      try {
        schema = fromJsonSchema(a.schema);
      } catch (e) {
        throw new ServiceInvalidArgumentError(`extract: the schema is not usable JSON Schema: ${(e as Error).message}`);
      }
    }
    const data = await extractWithModel(env.operation("extract"), a.instruction, schema);
    const text = typeof data === "object" && data && "extraction" in data && !schema ? String((data as { extraction: unknown }).extraction) : JSON.stringify(data);
    return { ok: true, summary: oneLine(text), detail: text.slice(0, MAX_DETAIL), pageText: text, instruction: a.instruction, replay: [] };
  },
});

const ariaTree = defineTool({
  name: "ariaTree",
  description: "the page outline again, optionally only under an XPath/CSS selector (normally not needed: every step shows the page)",
  input: z.object({ selector: z.string().optional() }),
  describe: (a) => `ariaTree${a.selector ? ` ${a.selector}` : ""}`,
  async run(env, a) {
    // Through the page's refs, so the numbers it shows are the ones the step's outline uses for the same elements.
    const snap = await env.snapshots.take(env.page, a.selector ? { selector: a.selector } : {});
    return { ok: true, summary: `outline of ${snap.refs.size} elements`, detail: snap.text.slice(0, MAX_DETAIL * 2), pageText: snap.text, replay: [] };
  },
});

const scroll = defineTool({
  name: "scroll",
  description: "scroll the page one screen up or down, or to a percentage of its height",
  input: z.object({ direction: z.enum(["up", "down"]).optional(), percent: z.number().min(0).max(100).optional() }),
  describe: (a) => (a.percent !== undefined ? `scroll to ${a.percent}%` : `scroll ${a.direction ?? "down"}`),
  async run(env, a) {
    const method = a.percent !== undefined ? "scrollTo" : a.direction === "up" ? "prevChunk" : "nextChunk";
    await performAction(env.page, { selector: "", description: "page", method, arguments: a.percent !== undefined ? [`${a.percent}%`] : [] });
    return { ok: true, summary: a.percent !== undefined ? `scrolled to ${a.percent}%` : `scrolled ${a.direction ?? "down"}`, replay: [{ tool: "scroll", args: a }] };
  },
});

const keys = defineTool({
  name: "keys",
  description: "press a key or combination on the focused element (Enter, Tab, Escape, ArrowDown, Control+A…)",
  input: z.object({ key: z.string().min(1) }),
  describe: (a) => `press ${a.key}`,
  async run(env, a) {
    await performAction(env.page, { selector: "", description: "page", method: "press", arguments: [a.key] });
    return { ok: true, summary: `pressed ${a.key}`, replay: [{ tool: "keys", args: a }] };
  },
});

const wait = defineTool({
  name: "wait",
  description: `wait for the page (ms, at most ${MAX_WAIT_MS})`,
  input: z.object({ ms: z.number().int().min(0).max(MAX_WAIT_MS) }),
  describe: (a) => `wait ${a.ms} ms`,
  async run(env, a) {
    await sleep(a.ms, env.signal);
    await env.page.settle(undefined, env.signal);
    return { ok: true, summary: `waited ${a.ms} ms`, replay: [{ tool: "wait", args: a }] };
  },
});

const back = defineTool({
  name: "back",
  description: "go back to the previous page",
  input: z.object({}),
  describe: () => "back",
  async run(env) {
    const moved = await env.page.goBack();
    return moved ? { ok: true, summary: `back to ${env.page.url()}`, replay: [{ tool: "back", args: {} }] } : { ok: false, summary: "there is no previous page" };
  },
});

const screenshot = defineTool({
  name: "screenshot",
  description: "save a screenshot of the page into the run's result (you do not see it)",
  input: z.object({}),
  describe: () => "screenshot",
  async run(env) {
    const png = await env.page.screenshot();
    return { ok: true, summary: "saved", image: { mediaType: "image/png", data: png.toString("base64") }, replay: [] };
  },
});

const think = defineTool({
  name: "think",
  description: "think or plan without acting",
  input: z.object({ thought: z.string() }),
  describe: (a) => `think: ${oneLine(a.thought, 80)}`,
  async run() {
    return { ok: true, summary: "noted", replay: [] };
  },
});

/** `done` ends the run; with an execute `output` schema, its `output` must fit that schema. */
function doneTool(output: z.ZodType | undefined): AgentTool {
  const base = { message: z.string().describe("the final answer for the user"), success: z.boolean().default(true).describe("false when the task could not be done") };
  const input = output ? z.object({ ...base, output: output.describe("the structured result") }) : z.object(base);
  return defineTool({
    name: "done",
    description: output ? "finish: the final answer, whether the task succeeded, and the structured output" : "finish: the final answer and whether the task succeeded",
    input,
    describe: (a) => `done: ${oneLine(a.message, 80)}`,
    async run(_env, a) {
      const args = a as { message: string; success: boolean; output?: unknown };
      return { ok: true, summary: oneLine(args.message), done: { message: args.message, success: args.success, ...(output ? { output: args.output } : {}) }, replay: [{ tool: "done", args: args as Record<string, unknown> }] };
    },
  });
}

// useSearch adds the `search` tool (tools-search.ts) when the service has a search backend: see run.ts toolsFor.
export function domTools(output: z.ZodType | undefined): AgentTool[] {
  return [goto, perform, fillForm, act, extract, ariaTree, scroll, keys, wait, back, screenshot, think, doneTool(output)];
}
