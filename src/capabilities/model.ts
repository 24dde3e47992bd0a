/**
 * The capabilities that ask a model about the page: observe (the Actions it finds) and extract (what it reads).
 * The door finds the model before any browser starts (asksModel, CapabilityContext.model); the variables are one
 * object by the time the handler runs, made by `read` from what each door takes: the CLI's `--var name=value`
 * pairs and `--var-file`, MCP's `variables` object.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { ServiceInvalidArgumentError } from "../errors.js";
import { type Capability, capability, type CapabilityContext, readOnly, type Spell } from "./declare.js";

const MODEL_ONLY = { door: "cli", why: "an MCP server asks the model it started with (svc mcp --model)" } as const;
const PAIRS_ONLY = { door: "cli", why: "a command line says name=value pairs or names a file; an MCP client sends the object (variables)" } as const;
const OBJECT_ONLY = { door: "mcp", why: "an MCP client sends the object; the CLI makes it from --var name=value and --var-file" } as const;

const POSITIVE_MS = "expected a positive whole number of milliseconds";

/** What every model call takes: which model (CLI), how long, and the %name% variables each door's way. */
export const MODEL_INPUT = {
  model: z.string().max(200).optional().describe("model to use (default: SVC_MODEL, config `model`, openai/gpt-4.1-mini)"),
  timeout: z.number({ error: POSITIVE_MS }).int({ error: POSITIVE_MS }).min(1, { error: POSITIVE_MS }).max(3_600_000).optional().describe("give up after this many milliseconds"),
  var: z.array(z.string().max(100_000)).max(1000).optional().describe("a %name% variable as name=value; its value is never sent to the model (repeatable; --var is the same flag)"),
  varFile: z.string().min(1).max(4096).optional().describe('variables from a JSON object of name → value or {"value","description"}'),
  variables: z.record(z.string().max(200), z.string().max(100_000)).optional().describe("values for %name% placeholders in the instruction; never sent to the model"),
};
export const MODEL_ONLY_DOORS = { model: MODEL_ONLY, var: PAIRS_ONLY, varFile: PAIRS_ONLY, variables: OBJECT_ONLY };
/** `--variables` and `--var` are one flag (the library's word and the agent's). */
export const MODEL_FLAGS = { model: "--model <provider/model>", timeout: "--timeout <ms>", var: "--variables, --var <name=value>", varFile: "--var-file <file.json>" };

type VariableInput = { var?: string[] | undefined; varFile?: string | undefined; variables?: Record<string, string> | undefined };

/** A JSON object from a file the input names; the message names the property as the door spells it. */
export function readJsonObject(file: string, flag: string, what: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ServiceInvalidArgumentError(`cannot read ${flag} ${file}: ${code === "ENOENT" ? "no such file" : (e as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ServiceInvalidArgumentError(`${flag} ${file} is not valid JSON: ${(e as Error).message.split("\n")[0]}`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new ServiceInvalidArgumentError(`${flag} ${file} must hold ${what}`);
  return parsed as Record<string, unknown>;
}

/**
 * The call's variables as one object: the file's, overlaid by each name=value pair, overlaid by the object; checked
 * by the library's own rule. Values go nowhere but the library.
 */
export async function callVariables(i: VariableInput, spell: Spell): Promise<Record<string, string> | undefined> {
  if (i.var === undefined && i.varFile === undefined && i.variables === undefined) return undefined;
  const vars: Record<string, unknown> = i.varFile !== undefined ? readJsonObject(i.varFile, spell("varFile"), 'a JSON object of name → value or {"value","description"}') : {};
  for (const pair of i.var ?? []) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new ServiceInvalidArgumentError(`${spell("var")} expects name=value, got "${pair.includes("=") ? pair : pair.slice(0, 40)}"`);
    vars[pair.slice(0, eq).trim()] = pair.slice(eq + 1);
  }
  Object.assign(vars, i.variables);
  const { parseVariables } = await import("../internal.js");
  const field = i.varFile !== undefined ? `${spell("varFile")} ${i.varFile}` : spell(i.variables !== undefined ? "variables" : "var");
  // The library's type: a value, or {value, description} from a file.
  return parseVariables(vars, field) as Record<string, string>;
}

/** The options every model call takes: the door's model, the variables, the call's bound and cancellation. */
export function modelOptions(ctx: CapabilityContext, i: { timeout?: number | undefined; variables?: Record<string, string> | undefined }) {
  const m = ctx.model();
  return { ...(m ? { model: m.config } : {}), ...(i.variables ? { variables: i.variables } : {}), ...(i.timeout !== undefined ? { timeout: i.timeout } : {}), signal: ctx.signal };
}

/** The model's name for a report, where the door chose it (the CLI); MCP's is the server's. */
function modelName(ctx: CapabilityContext): { model?: string } {
  const m = ctx.model();
  return m ? { model: m.name } : {};
}

export const observe = capability({
  name: "observe",
  description: "List actions possible on the page (for an instruction)",
  input: {
    instruction: z.string().max(10_000).optional().describe("what to look for; every actionable element when left out"),
    selector: z.string().min(1).max(10_000).optional().describe("only look inside this element"),
    ...MODEL_INPUT,
  },
  only: MODEL_ONLY_DOORS,
  mcp: { cap: "core", annotations: readOnly("Observe actions") },
  cli: {
    verb: "observe",
    args: "[instruction]",
    description: "list the Actions a model finds on the page for the instruction (or every actionable element)",
    examples: ['svc observe "find the search box"', 'svc observe "the field for %who%" --var who=Ada'],
    hosted: false,
    flags: { ...MODEL_FLAGS, selector: "--selector <selector>" },
  },
  asksModel: () => true,
  read: async (i, spell) => ({ variables: await callVariables(i, spell) }),
  run: async (ctx, i) => {
    const text = i.instruction?.trim() ? i.instruction : undefined;
    const actions = await ctx.svc.observe(text, { ...modelOptions(ctx, i), ...(i.selector ? { selector: i.selector } : {}) });
    const lines = actions.map((a) => `${a.selector}  ${a.method}${a.arguments.length ? `(${a.arguments.map((x) => JSON.stringify(x)).join(", ")})` : ""}  ${a.description}`);
    return { kind: "report", text: lines.length ? lines.join("\n") : "no matching elements", data: { ...modelName(ctx), actions } };
  },
});

export const MODEL_CAPABILITIES: readonly Capability[] = [observe] as readonly Capability[];
