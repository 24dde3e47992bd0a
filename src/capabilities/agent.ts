/**
 * The agent: a task in words, run as steps of tool calls until it is done or a budget stops it. One handler for
 * every door; what a door shows while it runs (the CLI's live view or JSON lines, its --record and --ask-human) is
 * the door's AgentWatch. The start URL and every goto of the run go through the door's URL policy (Page.goto).
 */
import { z } from "zod";
import type { AgentResultData } from "../index.js";
import { typedUrl } from "../util/typed-url.js";
import { acts, capability } from "./declare.js";
import { SHARED_DESCRIPTIONS as D } from "./descriptions.js";
import { callVariables, MODEL_FLAGS, MODEL_INPUT, MODEL_ONLY_DOORS } from "./model.js";
import { URL_TEXT } from "./navigate.js";
import { ONE_SHOT_FLAGS } from "./page.js";

const MODEL_WHY = { door: "cli", why: "an MCP server asks the model it started with (svc mcp --model)" } as const;
const TERMINAL_WHY = { door: "cli", why: "a person at the CLI's terminal answers it (its stdin, or the session's live view)" } as const;
const FILES_WHY = { door: "cli", why: "a directory of the machine the CLI runs on; an MCP server's browser has its own options, set at its start" } as const;
const ONE_SHOT_WHY = { door: "cli", why: "a command may run on a browser of its own; an MCP client has its one browser" } as const;

const whole = (what: string) => `expected ${what}`;
const POSITIVE = whole("a positive whole number");
/** A positive whole number up to `max` (the CLI reads the flag's text as one). */
const positive = (max: number) => z.number({ error: POSITIVE }).int({ error: POSITIVE }).min(1, { error: POSITIVE }).max(max, { error: `must be at most ${max}` });

/** The longest a run's own bound may be: a day. */
const MAX_RUN_MS = 86_400_000;

export const agent = capability({
  name: "agent",
  description: "Run a multi-step task in the browser",
  input: {
    instruction: z.string().regex(/\S/, "is empty").max(100_000).describe("the task, in words"),
    url: URL_TEXT.optional().describe("open this URL first (the URL policy of navigate applies)"),
    mode: z.enum(["dom", "hybrid", "cua"]).optional().describe("dom (page outline, default), hybrid (adds screenshots and coordinate tools) or cua"),
    model: MODEL_INPUT.model.describe("model for the agent's steps (default: SVC_MODEL, config `model`, openai/gpt-4.1-mini)"),
    executionModel: z.string().max(200).optional().describe("model for the act/extract tools' own calls (default: --model)"),
    maxSteps: positive(1000).optional().describe(D.maxSteps),
    maxTokens: positive(1_000_000_000).optional().describe("stop once the run's model calls used n tokens (input + output)"),
    timeout: positive(MAX_RUN_MS).optional().describe("stop the run after this many milliseconds"),
    toolTimeout: positive(3_600_000).optional().describe("a tool that runs longer reports an error to the model (default 30000)"),
    var: MODEL_INPUT.var.describe("a %name% variable as name=value; its value is never sent to the model nor printed (repeatable; --variables is the same flag)"),
    varFile: MODEL_INPUT.varFile,
    variables: MODEL_INPUT.variables,
    cacheDir: z.string().min(1).max(4096).optional().describe("replay the steps of a stored successful run with no model calls (the model then answers from the page); store new ones"),
    search: z.boolean().optional().describe("give the agent a web search tool (the browser's search backend: SVC_SEARCH_URL, config search.url on the CLI; without one the tool is absent)"),
    loopRepeats: z.number({ error: POSITIVE }).int({ error: POSITIVE }).min(2, { error: "must be at least 2" }).max(100, { error: "must be at most 100" }).optional().describe("identical steps on an unchanged page before the agent is warned it is looping (default 3)"),
    loopWarnings: z.number({ error: whole("a whole number (0 or more)") }).int({ error: whole("a whole number (0 or more)") }).min(0, { error: whole("a whole number (0 or more)") }).max(100, { error: "must be at most 100" }).optional().describe("loop warnings before the run stops with completed false (default 2)"),
    loopDetection: z.boolean().default(true).describe("warn about and stop a looping agent (false: never)"),
    record: z.string().min(1).max(4096).optional().describe("write a screenshot per step and a self-contained report.html to this directory"),
    askHuman: z.boolean().optional().describe("let the agent pause and ask you to do what it cannot (log in, solve a check): a line on stdin (Enter) continues"),
    askHumanTimeout: positive(3600).optional().describe("with --ask-human: how long the agent waits for you, in seconds (default 600, at most 3600)"),
    new: z.boolean().optional().describe("a browser of its own for this command, even when a session is live"),
    headed: z.boolean().optional().describe("one-shot browser: show the window"),
    viewport: z.string().min(1).max(32).optional().describe("one-shot browser: viewport size"),
    executablePath: z.string().min(1).max(4096).optional().describe("one-shot browser: Chrome/Chromium to launch"),
  },
  only: {
    ...MODEL_ONLY_DOORS,
    executionModel: MODEL_WHY,
    cacheDir: FILES_WHY,
    record: FILES_WHY,
    askHuman: TERMINAL_WHY,
    askHumanTimeout: TERMINAL_WHY,
    new: ONE_SHOT_WHY,
    headed: ONE_SHOT_WHY,
    viewport: ONE_SHOT_WHY,
    executablePath: ONE_SHOT_WHY,
  },
  models: ["executionModel"],
  mcp: { cap: "agent", annotations: acts("Run a task") },
  cli: {
    verb: "agent",
    args: "<instruction>",
    description:
      "run a multi-step task on the current live session (a one-shot browser when there is none, or with --new): a live view at a terminal; JSON lines (one per event, then the result) with --json or when piped",
    examples: ['svc agent "find the cheapest flight to Oslo" --url https://example.com --max-steps 20'],
    hosted: false,
    live: true,
    urls: { url: "any" },
    flags: {
      ...ONE_SHOT_FLAGS,
      ...MODEL_FLAGS,
      url: "--url <url>",
      executionModel: "--execution-model <provider/model>",
      cacheDir: "--cache-dir <dir>",
      record: "--record <dir>",
      askHumanTimeout: "--ask-human-timeout <seconds>",
    },
  },
  check: (i, spell) => {
    if (i.loopDetection === false && (i.loopRepeats !== undefined || i.loopWarnings !== undefined)) return `${spell("loopDetection")} cannot be combined with ${spell("loopRepeats")} or ${spell("loopWarnings")}`;
    if (i.askHumanTimeout !== undefined && !i.askHuman) return `${spell("askHumanTimeout")} goes with ${spell("askHuman")}`;
    return undefined;
  },
  asksModel: () => true,
  read: async (i, spell) => ({ variables: await callVariables(i, spell) }),
  run: async (ctx, i) => {
    const page = await ctx.page();
    // Through Page.goto: the door's URL policy, as every goto of the run.
    if (i.url !== undefined) await page.goto(typedUrl(i.url));
    const model = ctx.model();
    const executionModel = ctx.model("executionModel");
    const runner = ctx.svc.agent({ ...(model ? { model: model.config } : {}), ...(executionModel ? { executionModel: executionModel.config } : {}), ...(i.mode ? { mode: i.mode } : {}) });
    const watch = await ctx.agentWatch(page);
    runner.subscribe((event) => watch.onEvent(event));
    let result: AgentResultData;
    let added: Record<string, unknown>;
    try {
      result = await runner.execute({
        instruction: i.instruction,
        signal: ctx.signal,
        ...(i.variables ? { variables: i.variables } : {}),
        ...(i.maxSteps !== undefined ? { maxSteps: i.maxSteps } : {}),
        ...(i.maxTokens !== undefined ? { maxTokens: i.maxTokens } : {}),
        ...(i.timeout !== undefined ? { timeoutMs: i.timeout } : {}),
        ...(i.toolTimeout !== undefined ? { toolTimeout: i.toolTimeout } : {}),
        ...(i.search ? { useSearch: true } : {}),
        ...loopDetection(i),
        ...watch.options,
      });
    } finally {
      added = await watch.finish();
    }
    const printed = withoutImages(result);
    return { kind: "report", text: `${result.success ? "done" : "not done"}: ${result.message}`, data: { ...added, result: printed }, pageChanged: true };
  },
});

/** The loop flags as the library's loopDetection option (none set: its default). */
function loopDetection(i: { loopDetection: boolean; loopRepeats?: number | undefined; loopWarnings?: number | undefined }) {
  if (!i.loopDetection) return { loopDetection: false as const };
  if (i.loopRepeats === undefined && i.loopWarnings === undefined) return {};
  return { loopDetection: { ...(i.loopRepeats !== undefined ? { repeats: i.loopRepeats } : {}), ...(i.loopWarnings !== undefined ? { maxWarnings: i.loopWarnings } : {}) } };
}

/** Screenshots (hybrid mode keeps one per action) stay out of a report. */
export function withoutImages(result: AgentResultData): AgentResultData {
  return { ...result, actions: result.actions.map(({ image: _image, ...a }) => a) };
}
