/**
 * Evaluating JavaScript in a tab: its value as JSON, the same on every door. The MCP tool keeps its name,
 * `evaluate`, and the CLI its verb, `eval`.
 */
import { z } from "zod";
import { ServiceEvalError } from "../errors.js";
import { acts, type Capability, capability, type Report } from "./declare.js";
import { TAB } from "./element.js";

export const evaluate = capability({
  name: "evaluate",
  description: "Evaluate a JavaScript expression in the page and return its value as JSON",
  input: {
    expression: z.string().regex(/\S/, "is empty").max(100_000).describe("a JavaScript expression; a promise is awaited"),
    tab: TAB,
  },
  mcp: { cap: "devtools", annotations: acts("Evaluate JavaScript") },
  cli: {
    verb: "eval",
    args: "<expression>",
    description: "evaluate a JavaScript expression in the selected tab and print its value as JSON (a promise is awaited)",
    examples: ['svc eval "document.title"', 'svc eval "location.href" --tab 2'],
    hosted: true,
  },
  run: async (ctx, i): Promise<Report> => {
    const page = await ctx.page(i.tab);
    let value: unknown;
    try {
      value = await page.evaluate<unknown>(i.expression);
    } catch (e) {
      if (e instanceof ServiceEvalError) throw new ServiceEvalError(e.message.replace(/^evaluate failed: /, "eval: the page threw "), { cause: e });
      throw e;
    }
    // A value JSON cannot express (undefined, a function) is said as `undefined`, not passed off as null.
    return { kind: "report", text: JSON.stringify(value) ?? "undefined", data: { result: value ?? null } };
  },
});

export const EVALUATE_CAPABILITIES: readonly Capability[] = [evaluate] as readonly Capability[];
