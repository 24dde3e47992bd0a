/** `svc observe ["instruction"]`: the Actions a model finds on the page (selector, description, method, arguments). */
import type { ModelFlags } from "../core/model.js";
import { readVariables, requireModel, resolveCliModel, withModelKey } from "../core/model.js";
import type { GlobalOptions } from "../core/output.js";
import { withSession } from "../core/runtime.js";

export interface ObserveFlags extends ModelFlags {
  selector?: string;
  variables?: string[];
  varFile?: string;
}

export async function observe(g: GlobalOptions, instruction: string | undefined, opts: ObserveFlags): Promise<void> {
  const variables = await readVariables(opts.variables, opts.varFile);
  const spec = await requireModel(g, await resolveCliModel(opts));
  const text = instruction?.trim() ? instruction : undefined;
  await withSession(g, async ({ svc, out, session }) => {
    const actions = await withModelKey(g, spec, (model) =>
      svc.observe(text, {
        model,
        variables,
        ...(opts.selector ? { selector: opts.selector } : {}),
        ...(spec.timeout !== undefined ? { timeout: spec.timeout } : {}),
      }),
    );
    out.result({ session: session?.id, model: spec.model.modelName, actions }, () =>
      actions.length === 0
        ? ["no matching elements"]
        : actions.map((a) => `${a.selector}  ${a.method}${a.arguments.length ? `(${a.arguments.map((x) => JSON.stringify(x)).join(", ")})` : ""}  ${a.description}`),
    );
  });
}
