/**
 * The capabilities that ask a model about the page: act (one thing done), observe (the Actions it finds) and extract
 * (what it reads).
 * The door finds the model before any browser starts (asksModel, CapabilityContext.model); the variables are one
 * object by the time the handler runs, made by `read` from what each door takes: the CLI's `--var name=value`
 * pairs and `--var-file`, MCP's `variables` object.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import type { Action } from "../index.js";
import { ServiceInvalidArgumentError } from "../errors.js";
import { readJsonObject } from "../util/json-file.js";
import { looksLikeUrl } from "../util/typed-url.js";
import { acts, type Capability, capability, type CapabilityContext, readOnly, type Spell } from "./declare.js";
import { SHARED_DESCRIPTIONS as D } from "./descriptions.js";
import { ONE_SHOT_FLAGS, ONE_SHOT_INPUT, ONE_SHOT_ONLY } from "./page.js";

const MODEL_ONLY = { door: "cli", why: "an MCP server asks the model it started with (svc mcp --model)" } as const;
const PAIRS_ONLY = { door: "cli", why: "a command line says name=value pairs or names a file; an MCP client sends the object (variables)" } as const;
const OBJECT_ONLY = { door: "mcp", why: "an MCP client sends the object; the CLI makes it from --var name=value and --var-file" } as const;

const POSITIVE_MS = "expected a positive whole number of milliseconds";

/** What every model call takes: which model (CLI), how long, and the %name% variables each door's way. */
export const MODEL_INPUT = {
  model: z.string().max(200).optional().describe("model to use (default: SVC_MODEL, config `model`, openai/gpt-4.1-mini)"),
  timeout: z.number({ error: POSITIVE_MS }).int({ error: POSITIVE_MS }).min(1, { error: POSITIVE_MS }).max(3_600_000).optional().describe("give up after this many milliseconds"),
  var: z.array(z.string().max(100_000)).max(1000).optional().describe("a %name% variable as name=value; its value is never sent to the model (repeatable; --variables is the same flag)"),
  varFile: z.string().min(1).max(4096).optional().describe('variables from a JSON object of name → value or {"value","description"}'),
  variables: z.record(z.string().max(200), z.string().max(100_000)).optional().describe("values for %name% placeholders in the instruction; never sent to the model"),
};
export const MODEL_ONLY_DOORS = { model: MODEL_ONLY, var: PAIRS_ONLY, varFile: PAIRS_ONLY, variables: OBJECT_ONLY };
/** `--variables` and `--var` are one flag (the library's word and the agent's). */
export const MODEL_FLAGS = { model: "--model <provider/model>", timeout: "--timeout <ms>", var: "--variables, --var <name=value>", varFile: "--var-file <file.json>" };

type VariableInput = { var?: string[] | undefined; varFile?: string | undefined; variables?: Record<string, string> | undefined };

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

const DEFAULT_INSTRUCTION = "Extract the data described by the schema.";

/** The CLI's words: at most one instruction and at most one URL, in either order. */
function splitArguments(args: readonly string[]): { instruction?: string; url?: string } {
  let instruction: string | undefined;
  let url: string | undefined;
  for (const arg of args) {
    if (looksLikeUrl(arg)) {
      if (url !== undefined) throw new ServiceInvalidArgumentError(`extract takes at most one URL, got "${url}" and "${arg}"`);
      url = arg.trim();
    } else {
      if (instruction !== undefined) throw new ServiceInvalidArgumentError(`extract takes at most one instruction, got "${instruction}" and "${arg}"`, { hint: "quote the instruction as one argument" });
      instruction = arg;
    }
  }
  return { ...(instruction !== undefined ? { instruction } : {}), ...(url !== undefined ? { url } : {}) };
}

/** A JSON Schema as zod (src/util/json-schema.ts); the message names where it came from. */
async function zodOf(schema: Record<string, unknown>, where: string): Promise<z.ZodType> {
  const { fromJsonSchema } = await import("../util/json-schema.js");
  try {
    return fromJsonSchema(schema);
  } catch (e) {
    throw new ServiceInvalidArgumentError(`${where} is not a JSON Schema zod can use: ${(e as Error).message.split("\n")[0]}`);
  }
}

/** An instruction or a schema asks a model; neither reads the page's text. */
const asksExtract = (i: { instruction?: string | undefined; schema?: unknown }) => i.instruction !== undefined || i.schema !== undefined;

export const extract = capability({
  name: "extract",
  description: "Read data from the page: an instruction, optionally a JSON Schema for the result",
  input: {
    ...ONE_SHOT_INPUT,
    instruction: z.string().max(10_000).optional().describe("what to read, e.g. the article titles; the page's text when left out with no schema"),
    // One property, each door's form: the CLI's flag names a file, an MCP client sends the object.
    schema: z
      .union([z.string().min(1).max(4096), z.record(z.string(), z.unknown())])
      .optional()
      .describe("a JSON Schema the result must fit, URL fields as real URLs (on the CLI: the file that holds it)"),
    selector: z.string().min(1).max(10_000).optional().describe(D.extractSelector),
    ...MODEL_INPUT,
  },
  only: {
    ...ONE_SHOT_ONLY,
    ...MODEL_ONLY_DOORS,
  },
  mcp: { cap: "core", annotations: readOnly("Extract data") },
  cli: {
    verb: "extract",
    args: "[args...]",
    usage: '["instruction"] [url] [options]',
    positional: (args) => splitArguments(args),
    fills: ["instruction", "url"],
    description: "print the page text; with an instruction, what the model extracts (--schema: JSON validated against it); with a URL, on the current live session (a one-shot browser when there is none, or with --new)",
    examples: ["svc extract https://example.com", 'svc extract "the article titles" --schema=schema.json'],
    hosted: false,
    opensUrl: true,
    flags: { ...ONE_SHOT_FLAGS, ...MODEL_FLAGS, schema: "--schema <schema.json>", selector: "--selector <selector>" },
  },
  check: (i, spell) => {
    if (i.instruction !== undefined && !i.instruction.trim()) return "the instruction is empty";
    if (asksExtract(i)) return undefined;
    const set = (["model", "timeout", "var", "varFile", "variables"] as const).find((p) => i[p] !== undefined);
    return set ? `${spell(set)} applies to an instruction or ${spell("schema")}` : undefined;
  },
  asksModel: asksExtract,
  // The schema (the CLI's file read) and the variables are checked before any browser starts.
  read: async (i, spell, door) => {
    if (!asksExtract(i)) return {};
    // A file of this machine only for the CLI's user: an MCP client (maybe remote) sends the object.
    if (typeof i.schema === "string" && door !== "cli") throw new ServiceInvalidArgumentError(`${spell("schema")}: expected a JSON Schema object`);
    const schema = typeof i.schema === "string" ? readJsonObject(i.schema, spell("schema"), "a JSON Schema object") : i.schema;
    if (schema) await zodOf(schema, typeof i.schema === "string" ? `${spell("schema")} ${i.schema}` : spell("schema"));
    return { schema, variables: await callVariables(i, spell) };
  },
  run: async (ctx, i) => {
    const page = await ctx.page();
    const scope = i.selector ? { selector: i.selector } : {};
    if (!asksExtract(i)) {
      const { pageText } = i.selector ? ((await ctx.svc.extract(scope)) as { pageText: string }) : await ctx.svc.extract();
      return { kind: "report", text: pageText, data: { url: page.url(), pageText } };
    }
    const options = { ...modelOptions(ctx, i), ...scope };
    // read() made the CLI's file the object it holds.
    const schema = i.schema ? await zodOf(i.schema as Record<string, unknown>, ctx.spell("schema")) : undefined;
    const result: unknown = schema ? await ctx.svc.extract(i.instruction ?? DEFAULT_INSTRUCTION, schema, options) : await ctx.svc.extract(i.instruction!, options);
    const extraction = !schema ? (result as { extraction?: unknown }).extraction : undefined;
    return { kind: "report", text: typeof extraction === "string" ? extraction : JSON.stringify(result, null, 2), data: { url: page.url(), ...modelName(ctx), result } };
  },
});

const ACTION_HINT = 'expected {"selector":"...","description":"...","method":"click","arguments":[]}';

/** The CLI's `--action`: the Action's JSON, or `@file.json`; each message names where it came from. */
function actionJson(raw: string, flag: string): unknown {
  const file = raw.startsWith("@") ? raw.slice(1) : undefined;
  let text = raw;
  if (file !== undefined) {
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new ServiceInvalidArgumentError(`cannot read action file ${file}: ${code === "ENOENT" ? "no such file" : (e as Error).message}`);
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ServiceInvalidArgumentError(`${file ?? flag} is not valid JSON: ${(e as Error).message.split("\n")[0]}`, { hint: ACTION_HINT });
  }
}

/** What only an instruction takes: an Action is run as it is. */
const INSTRUCTION_ONLY = ["model", "var", "varFile", "variables", "cacheDir"] as const;

/** An Action asks nothing; nor does a literal instruction up front (done with no model when one element fits it, else the model at hand). */
async function asksAct(i: { instruction?: string | undefined; action?: unknown }): Promise<boolean> {
  if (i.action !== undefined || i.instruction === undefined) return false;
  const { parseLiteral } = await import("../internal.js");
  return !parseLiteral(i.instruction);
}

export const act = capability({
  name: "act",
  description: "Do one thing on the page, said in words (or run one Action, with no model)",
  input: {
    instruction: z.string().max(10_000).optional().describe("what to do, e.g. click the sign-in button"),
    // One property, each door's form: the CLI's flag is JSON or @file.json, an MCP client sends the object.
    action: z
      .union([z.string().min(1).max(100_000), z.record(z.string(), z.unknown())])
      .optional()
      .describe('an Action to run with no model, as observe lists them: {"selector","description","method","arguments"} (on the CLI: its JSON or @file.json)'),
    cacheDir: z.string().min(1).max(4096).optional().describe("replay a stored success for the same instruction and page with no model call; store new ones"),
    ...MODEL_INPUT,
  },
  only: {
    ...MODEL_ONLY_DOORS,
    cacheDir: { door: "cli", why: "an MCP server keeps the cache it was started with (svc mcp --cache-dir)" },
  },
  mcp: { cap: "core", annotations: acts("Act on the page") },
  cli: {
    verb: "act",
    args: "[instruction]",
    description: "do what the instruction says (one model call; none for a literal one), or run one Action deterministically with --action",
    examples: ['svc act "click the sign in button"', 'svc act "type %pass% into the password field" --variables pass=s3cret', "svc act --action @action.json"],
    hosted: false,
    flags: { ...MODEL_FLAGS, action: "--action <json|@file>", cacheDir: "--cache-dir <dir>" },
  },
  check: (i, spell) => {
    if (i.action === undefined) return i.instruction?.trim() ? undefined : `give an instruction or ${spell("action")}`;
    if (i.instruction !== undefined) return `give either an instruction or ${spell("action")}, not both`;
    const set = INSTRUCTION_ONLY.find((p) => i[p] !== undefined);
    return set ? `${spell(set)} applies to an instruction, not to ${spell("action")}` : undefined;
  },
  asksModel: asksAct,
  // The Action (the CLI's JSON or file) and the variables are checked before any browser starts.
  read: async (i, spell, door) => {
    if (i.action === undefined) return { variables: await callVariables(i, spell) };
    // A file of this machine only for the CLI's user: an MCP client (maybe remote) sends the object.
    if (typeof i.action === "string" && door !== "cli") throw new ServiceInvalidArgumentError(`${spell("action")}: expected an Action object`, { hint: ACTION_HINT });
    const { parseAction } = await import("../index.js");
    return { action: parseAction(typeof i.action === "string" ? actionJson(i.action, spell("action")) : i.action) };
  },
  run: async (ctx, i) => {
    // read() made it the Action the library checked.
    if (i.action !== undefined) return { kind: "act", result: await ctx.svc.act(i.action as Action, { ...(i.timeout !== undefined ? { timeout: i.timeout } : {}), signal: ctx.signal }) };
    // As returned: the library never rewrites a result (it holds `%name%` where the model wrote one).
    const result = await ctx.svc.act(i.instruction!, modelOptions(ctx, i));
    return { kind: "act", result, chosen: { model: result.model ?? ctx.model()?.name } };
  },
});

export const MODEL_CAPABILITIES: readonly Capability[] = [act, observe, extract] as readonly Capability[];
