/**
 * act(instruction) through the action cache: replay a stored success with zero model calls when every
 * element is still there and still the same (role and accessible name); otherwise ask the model and refresh
 * the entry.
 */
import type { Page } from "../browser/page.js";
import type { ActCache, CachedAction } from "../cache/act-cache.js";
import { ServiceError, errorMessage } from "../errors.js";
import { displayRole } from "../snapshot/index.js";
import type { ActResult, Action } from "./action.js";
import { actWithModel, fallbackDeadline, type ModelActOptions, type TargetIdentity } from "./act-model.js";
import type { OperationContext } from "./context.js";
import { performAction, resolveTarget } from "./perform.js";
import { resolveArgument } from "./variables.js";

type CachedActionWithTarget = CachedAction & { target?: TargetIdentity };

async function replay(ctx: OperationContext, actions: CachedActionWithTarget[]): Promise<boolean> {
  for (const { target, ...a } of actions) {
    try {
      // Waits for an actionable element like any action, but briefly: a failed replay falls back to the model.
      const wait = { deadline: fallbackDeadline(ctx.deadline), ...(ctx.inference.signal ? { signal: ctx.inference.signal } : {}) };
      await performAction(ctx.page, { ...a, arguments: a.arguments.map((x) => resolveArgument(x, ctx.variables, ctx.secrets)) }, undefined, { ...wait, ...(target ? { expect: target } : {}) });
    } catch (e) {
      if (e instanceof ServiceError && e.code !== "INVALID_ARGUMENT") return false;
      throw e;
    }
  }
  return true;
}

export async function actWithCache(ctx: OperationContext, instruction: string, options: ModelActOptions & { cache: ActCache | undefined; onCache?: (status: "HIT" | "MISS") => void; warn?: (message: string) => void }): Promise<ActResult> {
  const cache = options.cache;
  if (!cache) return (await actWithModel(ctx, instruction, options)).result;
  const url = ctx.page.url();
  const names = Object.keys(ctx.variables);
  const key = cache.key(instruction, url, names);
  const entry = cache.get(key);
  if (entry && (await replay(ctx, entry.actions))) {
    const actions: Action[] = entry.actions.map(({ selector, description, method, arguments: args }) => ({ selector, description, method, arguments: args }));
    return { success: true, message: `replayed ${actions.length} cached action(s)`, actionDescription: instruction, actions, cacheStatus: "HIT" };
  }
  const { result, targets } = await actWithModel(ctx, instruction, options);
  const mask = ctx.mask ?? (<T>(v: T) => v);
  if (result.success) {
    try {
      // Written down: the URL and a value the model wrote out literally are stored masked (selectors never are).
      cache.set(key, mask({ instruction, url, variableNames: names, actions: result.actions.map((a, i) => ({ ...a, ...(targets[i] ? { target: targets[i] } : {}) })) }));
    } catch (e) {
      // The act happened: a cache that cannot be written is a warning, never the act's failure.
      options.warn?.(`the action cache was not written: ${errorMessage(e)}`);
    }
  }
  return { ...result, cacheStatus: "MISS" };
}
