/** What a model-driven operation needs: the page, its snapshots, the model, and where usage goes. */
import type { Page } from "../browser/page.js";
import { selectorOf } from "../browser/resolve.js";
import { LLMResponseError } from "../errors.js";
import type { RefMap } from "../snapshot/index.js";
import type { Action } from "./action.js";
import type { InferenceContext } from "./inference.js";
import type { PageSnapshots } from "./snapshots.js";
import type { SecretLookup, Variables } from "./variables.js";
import type { Masker } from "../util/secrets.js";

export interface OperationContext {
  page: Page;
  snapshots: PageSnapshots;
  inference: InferenceContext;
  systemPrompt?: string;
  variables: Variables;
  /** The session's masked values: a `%name%` the model answers with maps back to one (variables.ts resolveArgument). */
  secrets?: SecretLookup;
  /** Snapshot token budget per model call (keeps every actionable ref; trims text). */
  maxSnapshotTokens?: number;
  /** Epoch ms when the operation times out: waits for an actionable element end before it. */
  deadline?: number;
  /** Masks the session's secrets in what the operation writes down (the act cache); util/secrets.ts. */
  mask?: Masker;
}

export interface ModelAction {
  ref: string;
  method: string;
  arguments: string[];
  description: string;
}

/** The model's ref-based choice → an Action with a replayable deep XPath (arguments keep %var% references). */
export async function toAction(page: Page, refs: RefMap, choice: ModelAction): Promise<Action> {
  const selector = await refSelector(page, refs, choice.ref);
  const args = choice.method === "dragAndDrop" && choice.arguments[0] && refs.has(choice.arguments[0]) ? [await refSelector(page, refs, choice.arguments[0]), ...choice.arguments.slice(1)] : choice.arguments;
  return { selector, description: choice.description, method: choice.method, arguments: args };
}

async function refSelector(page: Page, refs: RefMap, ref: string): Promise<string> {
  const target = refs.get(ref);
  const frame = target && page.frames.get(target.frameId);
  if (!target || !frame) throw new LLMResponseError(`the model chose ref ${ref}, which is not on the page`);
  return selectorOf(page.frames, { frame, backendNodeId: target.backendNodeId });
}

/** For validate(): a ref the model names must exist in the snapshot it was shown. */
export function checkRef(refs: RefMap, ref: string, allowEmpty: boolean): void {
  if (ref === "" && allowEmpty) return;
  if (!refs.has(ref)) throw new Error(`ref "${ref}" is not in the page outline; use one of the e-numbers shown`);
}
