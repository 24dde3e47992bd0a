/** The commands that ask a model: act (observe, extract, agent, search and fetch are capabilities: src/capabilities/model.ts, agent.ts, web.ts). */
import { command, list, value } from "./types.js";

/** The model-backed commands share these options. */
const MODEL = {
  model: value("--model <provider/model>", "model to use (default: SVC_MODEL, config `model`, openai/gpt-4.1-mini)"),
  timeout: value("--timeout <ms>", "give up after this many milliseconds"),
} as const;

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
    name: "act",
    args: "[instruction]",
    description: "do what the instruction says (one model call), or run one Action deterministically with --action",
    options: {
      action: value("--action <json|@file>", `Action JSON {"selector","description","method","arguments"} or @file.json (no model)`),
      cacheDir: value("--cache-dir <dir>", "replay a stored success for the same instruction and page with no model call; store new ones"),
      ...MODEL,
      ...VARIABLES,
    },
    examples: ['svc act "click the sign in button"', 'svc act "type %pass% into the password field" --variables pass=s3cret'],
    mcpTool: "act",
    run: async (c, [instruction], o) => (await import("../model/act.js")).act(c.globals, instruction as string | undefined, vars(o)),
  }),
];
