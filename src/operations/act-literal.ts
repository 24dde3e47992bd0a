/**
 * act(instruction) tries the literal path first (literal.ts): an instruction naming exactly one element is performed
 * as the model's answer would be, with `model: "none"`. Otherwise the model, as always; and with a model at hand, an
 * element that fails under the action is left to the model too. With none, that failure is the act's.
 */
import type { Page } from "../browser/page.js";
import { callOn } from "../browser/element-call.js";
import { ServiceError } from "../errors.js";
import type { RefTarget } from "../snapshot/index.js";
import { resolveRef } from "../snapshot/index.js";
import type { ActResult } from "./action.js";
import { fallbackDeadline, HEALABLE } from "./act-model.js";
import type { OperationContext } from "./context.js";
import { parseLiteral, resolveLiteral, type LiteralStep } from "./literal.js";
import { performAction } from "./perform.js";
import type { PageSnapshots } from "./snapshots.js";
import { resolveArgument, type SecretLookup, type Variables } from "./variables.js";

/** What the literal path needs: no model. */
export interface LiteralEnv {
  page: Page;
  snapshots: PageSnapshots;
  variables: Variables;
  secrets?: SecretLookup;
  deadline?: number;
  signal?: AbortSignal;
}

/** The model's side of an act: its context (building it throws when no model is configured) and the act. */
export interface ModelSide {
  context(): OperationContext;
  act(ctx: OperationContext): Promise<ActResult>;
}

/** The act: literally when the instruction allows it, else (or when that cannot decide) with the model. */
export async function actInstruction(env: LiteralEnv, instruction: string, model: ModelSide): Promise<ActResult> {
  const step = parseLiteral(instruction);
  if (!step) return model.act(model.context());
  let ctx: OperationContext | undefined;
  let noModel: unknown;
  try {
    ctx = model.context();
  } catch (e) {
    noModel = e;
  }
  try {
    // With a model to fall back on, the element gets the short wait a cached replay gets.
    const done = await actLiterally({ ...env, ...(ctx ? { deadline: fallbackDeadline(env.deadline) } : {}) }, step, instruction);
    if (done) return done;
  } catch (e) {
    if (!ctx || !(e instanceof ServiceError) || !HEALABLE.has(e.code)) throw e;
  }
  if (!ctx) throw noModel;
  return model.act(ctx);
}

/** The step performed on the one element it names; undefined when no single element fits (nothing was done). */
export async function actLiterally(env: LiteralEnv, step: LiteralStep, instruction: string): Promise<ActResult | undefined> {
  const args = substituted(step.arguments, env);
  if (!args) return undefined;
  const wait = { ...(env.deadline !== undefined ? { deadline: env.deadline } : {}), ...(env.signal ? { signal: env.signal } : {}) };
  if (step.method === "press") {
    const performed = await performAction(env.page, { selector: "", description: `press ${args[0]}`, method: "press", arguments: args }, undefined, wait);
    return { ...performed, actionDescription: instruction, model: "none" };
  }
  const snap = await env.snapshots.take(env.page, { interactiveOnly: true });
  const target = resolveLiteral(snap.refs, step);
  if (!target) return undefined;
  if (step.method === "selectOptionFromDropdown" && !(await holdsOption(env.page, snap.refs, target, args[0]!))) return undefined;
  const description = `${target.role} "${target.name}"`;
  const performed = await performAction(env.page, { selector: target.ref, description, method: step.method, arguments: args }, snap.refs, wait);
  // As the model's answer is recorded: the arguments keep their %name% references.
  return { ...performed, actionDescription: instruction, actions: [{ ...performed.actions[0]!, arguments: step.arguments }], model: "none" };
}

/** The arguments with their `%name%`s substituted; undefined when one names nothing (the model's case then). */
function substituted(args: string[], env: LiteralEnv): string[] | undefined {
  try {
    return args.map((a) => resolveArgument(a, env.variables, env.secrets));
  } catch {
    return undefined;
  }
}

/** A native select holding an option whose value or text is exactly `want` (select.ts would also take a part of a text). */
async function holdsOption(page: Page, refs: { get(ref: string): RefTarget | undefined }, target: RefTarget, want: string): Promise<boolean> {
  const el = await resolveRef(page, refs, target.ref);
  return callOn<boolean>(
    el,
    function (this: Element, w: string) {
      const norm = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();
      if (this.localName !== "select") return false;
      return Array.from((this as HTMLSelectElement).options).some((o) => o.value === w || norm(o.text) === norm(w));
    },
    want,
  );
}
