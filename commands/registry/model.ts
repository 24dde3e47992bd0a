/** The commands that ask a model: agent (act, observe, extract, search and fetch are capabilities: src/capabilities/model.ts, web.ts). */
import { SHARED_DESCRIPTIONS as SHARED } from "../../src/mcp/descriptions.js";
import { ONE_SHOT, choice, command, flag, list, negated, value } from "./types.js";

const VARIABLES = {
  var: list("--var <name=value>", "a %name% variable; its value is never sent to the model (repeatable; --variables is the same flag)"),
  variables: list("--variables <name=value>", "same as --var"),
  varFile: value("--var-file <file.json>", 'variables from a JSON object of name → value or {"value","description"}'),
} as const;

/** `--var` and `--variables` are one flag under two names (the agent's and the library's word for it). */
function vars<T extends { var?: string[] | undefined; variables?: string[] | undefined }>(o: T): T {
  const all = [...(o.variables ?? []), ...(o.var ?? [])];
  return { ...o, var: all.length ? all : undefined, variables: all.length ? all : undefined };
}

export const MODEL_COMMANDS = [
  command({
    name: "agent",
    args: "<instruction>",
    description: "run a multi-step task on the current live session (a one-shot browser when there is none, or with --new): a live view at a terminal; JSON lines (one per event, then the result) with --json or when piped",
    options: {
      url: value("--url <url>", "open this URL first"),
      mode: choice("--mode <mode>", "dom (page outline, default), hybrid (adds screenshots and coordinate tools) or cua", ["dom", "hybrid", "cua"]),
      model: value("--model <provider/model>", "model for the agent's steps (default: SVC_MODEL, config `model`, openai/gpt-4.1-mini)"),
      executionModel: value("--execution-model <provider/model>", "model for the act/extract tools' own calls (default: --model)"),
      maxSteps: value("--max-steps <n>", SHARED.maxSteps),
      maxTokens: value("--max-tokens <n>", "stop once the run's model calls used n tokens (input + output)"),
      timeout: value("--timeout <ms>", "stop the run after this many milliseconds"),
      toolTimeout: value("--tool-timeout <ms>", "a tool that runs longer reports an error to the model (default 30000)"),
      var: list("--var <name=value>", "a %name% variable; its value is never sent to the model nor printed (repeatable; --variables is the same flag)"),
      variables: VARIABLES.variables,
      varFile: VARIABLES.varFile,
      cacheDir: value("--cache-dir <dir>", "replay the steps of a stored successful run with no model calls (the model then answers from the page); store new ones"),
      search: flag("--search", "give the agent a web search tool (backend: config search.url / SVC_SEARCH_URL; with --env BROWSERBASE, the server's)"),
      loopRepeats: value("--loop-repeats <n>", "identical steps on an unchanged page before the agent is warned it is looping (default 3)"),
      loopWarnings: value("--loop-warnings <n>", "loop warnings before the run stops with completed false (default 2)"),
      loopDetection: negated("--no-loop-detection", "never warn about or stop a looping agent"),
      record: value("--record <dir>", "write a screenshot per step and a self-contained report.html to this directory"),
      askHuman: flag("--ask-human", "let the agent pause and ask you to do what it cannot (log in, solve a check): a line on stdin (Enter) continues"),
      askHumanTimeout: value("--ask-human-timeout <seconds>", "with --ask-human: how long the agent waits for you (default 600, at most 3600)"),
      ...ONE_SHOT,
    },
    examples: ['svc agent "find the cheapest flight to Oslo" --url https://example.com --max-steps 20'],
    jsonLines: true,
    mcpTool: "agent",
    run: async (c, [instruction], o) => (await import("../model/agent.js")).agent(c.globals, instruction as string, vars(o)),
  }),
];
