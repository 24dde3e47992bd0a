/**
 * `svc back`, `svc forward`, `svc reload` (each with `--timeout MS`) and `svc eval "js"` on the session's
 * selected tab. back/forward with nowhere to go is an error naming it (exit 5), not a silent no-op.
 */
import { ServiceEvalError, ServiceInvalidArgumentError, ServiceNavigationError } from "../src/base.js";
import { pageLine } from "./goto.js";
import { parseTimeout } from "./model.js";
import type { GlobalOptions } from "./output.js";
import { withSession } from "./runtime.js";

export type HistoryMove = "back" | "forward" | "reload";

export async function move(g: GlobalOptions, which: HistoryMove, flags: { timeout?: string }): Promise<void> {
  const timeout = parseTimeout(flags.timeout);
  const options = timeout !== undefined ? { timeout } : {};
  await withSession(g, async ({ svc, out, session, note }) => {
    const page = svc.page;
    if (which === "reload") await page.reload(options);
    else {
      const moved = which === "back" ? await page.goBack(options) : await page.goForward(options);
      if (!moved) throw new ServiceNavigationError(`${which}: no ${which === "back" ? "previous" : "next"} page in this tab's history`);
    }
    const title = await page.title().catch(() => "");
    const url = page.url();
    note({ method: which === "reload" ? "reload" : which === "back" ? "goBack" : "goForward", parameters: {}, result: { url, title } });
    out.result({ session: session?.id, url, title }, () => pageLine(url, title, null));
  });
}

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
