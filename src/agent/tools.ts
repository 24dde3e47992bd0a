/**
 * The agent's one tool registry: each tool is a name, a description, a zod input schema (the JSON Schema
 * the model sees is derived from it by zod, never written by hand) and a run function over the existing
 * operations. The step reply schema — `{reasoning, tool, args}` — is built from the registry, so a
 * provider needs structured output only, not native tool calling.
 */
import { z } from "zod";
import type { Page } from "../browser/page.js";
import type { Action } from "../operations/action.js";
import type { OperationContext } from "../operations/context.js";
import type { PageSnapshots } from "../operations/snapshots.js";
import type { SecretLookup, Variables } from "../operations/variables.js";
import type { ModelImage, StructuredOutput } from "../model/types.js";
import type { RefMap } from "../snapshot/index.js";
import type { DialogControl } from "./tools-dialog.js";
import type { HumanAnswer } from "./tools-human.js";
import type { ResolvedExecuteOptions } from "./options.js";

/** What a tool works with during one step. */
export interface ToolEnv {
  page: Page;
  /** Refs of the outline the model was shown this step (undefined during a cache replay). */
  refs: RefMap | undefined;
  snapshots: PageSnapshots;
  variables: Variables;
  /** The session's masked values: `%name%` in a tool's text argument maps back to one (resolveArgument). */
  secrets: SecretLookup;
  /** Aborted when the run stops or the tool overruns toolTimeout. */
  signal: AbortSignal;
  /** Epoch ms shortly before toolTimeout: an action's wait for its element ends then, with its own error. */
  deadline?: number;
  /** A context for a sub-operation (act, extract, observe) on the execution model. */
  operation(op: "act" | "extract" | "observe"): OperationContext;
  selfHeal: boolean;
  highlightCursor: boolean;
  /** How the next JavaScript dialog is answered (the dialog tool). */
  dialogs?: DialogControl | undefined;
  /** Asks the person watching and waits for them (the askHuman tool; tools-human.ts). */
  askHuman?: ((message: string, signal: AbortSignal) => Promise<HumanAnswer>) | undefined;
}

/** A step as the agent cache stores it: the tool and its arguments, refs replaced by XPaths. */
export interface ReplayStep {
  tool: string;
  args: Record<string, unknown>;
}

export interface ToolOutcome {
  ok: boolean;
  /** One line for the history, events and the AgentAction. */
  summary: string;
  /** Longer output (an extraction, an outline) shown to the model once, in the next step. */
  detail?: string;
  actions?: Action[];
  pageText?: string;
  instruction?: string;
  image?: ModelImage;
  done?: { message: string; success: boolean; output?: unknown };
  /** How to redo this step without a model (undefined: it cannot be cached; []: nothing to redo). */
  replay?: ReplayStep[];
}

export interface AgentTool<A = any> {
  name: string;
  description: string;
  input: z.ZodType<A>;
  /** Refs the arguments name: each must be in the outline the model was shown. */
  refs?(args: A): string[];
  /** What is being done, one line (`click e5 link "Boston Fern"`). */
  describe?(args: A, refs: RefMap | undefined): string;
  run(env: ToolEnv, args: A): Promise<ToolOutcome>;
  /** This tool's own time limit, when not toolTimeout (askHuman waits for a person). */
  timeoutMs?(options: ResolvedExecuteOptions): number;
}

export function defineTool<S extends z.ZodType>(tool: Omit<AgentTool<z.output<S>>, "input"> & { input: S }): AgentTool<z.output<S>> {
  return tool as AgentTool<z.output<S>>;
}

/** The JSON Schema of a tool's arguments, derived by zod. */
export function argsSchema(tool: AgentTool): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.input, { target: "draft-2020-12", io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete schema.$schema;
  return { title: tool.name, ...schema };
}

/** The step reply: `{reasoning, tool, args}` where args is one of the tools' argument objects. */
export function stepOutput(tools: readonly AgentTool[]): StructuredOutput {
  return {
    name: "agent_step",
    strict: false,
    schema: {
      type: "object",
      additionalProperties: false,
      required: ["reasoning", "tool", "args"],
      properties: {
        reasoning: { type: "string", description: "briefly: what the page shows and why this tool is next" },
        tool: { type: "string", enum: tools.map((t) => t.name) },
        args: { description: "the arguments of the chosen tool (the variant titled with its name)", anyOf: tools.map(argsSchema) },
      },
    },
  };
}

const StepReply = z.object({ reasoning: z.string(), tool: z.string(), args: z.unknown() });

export interface ParsedStep {
  reasoning: string;
  tool: AgentTool;
  args: unknown;
}

/** For infer's validate: the tool exists, its arguments fit its schema, its refs are on the page. */
export function parseStep(tools: readonly AgentTool[], value: unknown, refs: RefMap | undefined): ParsedStep {
  const reply = StepReply.parse(value);
  const tool = tools.find((t) => t.name === reply.tool);
  if (!tool) throw new Error(`unknown tool "${reply.tool}"; use one of ${tools.map((t) => t.name).join(", ")}`);
  const parsed = tool.input.safeParse(reply.args ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`args of ${tool.name}: ${issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "invalid"}`);
  }
  for (const ref of tool.refs?.(parsed.data) ?? []) {
    if (!refs?.has(ref)) throw new Error(`ref "${ref}" is not in the current page outline; use one of the e-numbers shown`);
  }
  return { reasoning: reply.reasoning, tool, args: parsed.data };
}

/** `link "Boston Fern"` for a ref of the outline (or the selector itself during a replay). */
export function targetLabel(refs: RefMap | undefined, ref: string): string {
  const t = refs?.get(ref);
  return t ? `${ref} ${t.role}${t.name ? ` "${t.name}"` : ""}` : ref;
}

export function oneLine(text: string, max = 160): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A dot where the pointer goes (highlightCursor): drawn in the page, ignored by pointer events and the outline. */
export async function highlight(page: Page, x: number, y: number): Promise<void> {
  const script = `(() => {
    let d = document.getElementById("__svc_cursor");
    if (!d) {
      d = document.createElement("div");
      d.id = "__svc_cursor";
      d.setAttribute("aria-hidden", "true");
      d.style.cssText = "position:fixed;z-index:2147483647;width:16px;height:16px;margin:-8px 0 0 -8px;border-radius:50%;background:rgba(255,64,64,.6);border:2px solid #fff;pointer-events:none;transition:left .1s,top .1s";
      document.documentElement.appendChild(d);
    }
    d.style.left = ${x} + "px";
    d.style.top = ${y} + "px";
  })()`;
  await page.evaluate(script).catch(() => {});
}
