/** `svc eval "js"` on the session's selected tab: the value as JSON (back, forward and reload are capabilities). */
import { ServiceEvalError, ServiceInvalidArgumentError } from "../../src/base.js";
import type { GlobalOptions } from "../core/output.js";
import { withSession } from "../core/runtime.js";

/** The value as JSON text; a value JSON cannot express (undefined, a function) prints as `undefined`. */
function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? "undefined";
}

export async function evaluate(g: GlobalOptions, expression: string): Promise<void> {
  if (!expression.trim()) throw new ServiceInvalidArgumentError("eval: the expression is empty", { hint: 'svc eval "document.title"' });
  await withSession(g, async ({ svc, out, session }) => {
    let value: unknown;
    try {
      value = await svc.page.evaluate(expression);
    } catch (e) {
      if (e instanceof ServiceEvalError) throw new ServiceEvalError(e.message.replace(/^evaluate failed: /, "eval: the page threw "), { cause: e });
      throw e;
    }
    out.result({ session: session?.id, result: value ?? null }, () => jsonText(value));
  });
}
