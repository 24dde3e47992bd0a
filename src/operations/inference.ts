/**
 * One model call for an operation: send, parse the JSON, validate; a reply that does not parse or fit is
 * sent back once with the problem, then the operation fails with LLMResponseError. Usage is reported for
 * every call, the failed ones too (they were paid for).
 */
import { LLMResponseError, ServiceAbortedError, ServiceError } from "../errors.js";
import type { LLMClient, ModelImage, ModelMessage, ModelUsage, StructuredOutput } from "../model/types.js";
import { jsonFromText } from "../util/json-text.js";
import type { Abortable } from "../util/abort.js";

export interface InferenceRecord {
  operation: string;
  model: string;
  system: string;
  messages: ModelMessage[];
  reply: string;
  usage: ModelUsage;
}

export interface InferenceContext extends Abortable {
  client: LLMClient;
  onUsage(usage: ModelUsage): void;
  /** Sees every exchange (for logInferenceToFile); the caller masks secrets before writing. */
  onInference?(record: InferenceRecord): void;
}

export interface InferRequest<T> {
  system: string;
  user: string;
  /** Sent with the user message (a screenshot for the hybrid agent). */
  images?: ModelImage[];
  output: StructuredOutput;
  /** Throws (any Error) with a one-line reason when the reply does not fit. */
  validate(value: unknown): T | Promise<T>;
}

export async function infer<T>(ctx: InferenceContext, req: InferRequest<T>): Promise<T> {
  const messages: ModelMessage[] = [{ role: "user", content: req.user, ...(req.images?.length ? { images: req.images } : {}) }];
  let lastProblem = "";
  for (let attempt = 0; attempt < 2; attempt++) {
    if (ctx.signal?.aborted) throw new ServiceAbortedError(`${req.output.name} was cancelled`);
    let result;
    try {
      result = await ctx.client.generate({ system: req.system, messages, output: req.output, ...(ctx.signal ? { signal: ctx.signal } : {}) });
    } catch (e) {
      if (e instanceof ServiceError) throw e;
      throw new LLMResponseError(`${req.output.name}: the model call failed: ${(e as Error).message?.split("\n")[0] ?? String(e)}`, { cause: e });
    }
    ctx.onUsage(result.usage);
    ctx.onInference?.({ operation: req.output.name, model: ctx.client.modelName, system: req.system, messages: [...messages], reply: result.text, usage: result.usage });
    // Reasoning blocks, code fences and prose around the JSON (local models) are looked past.
    const found = jsonFromText(result.text);
    if (!found) {
      lastProblem = "the reply was not valid JSON";
      messages.push({ role: "assistant", content: result.text.slice(0, 2000) }, { role: "user", content: `Your reply was not valid JSON. Answer again with only a JSON object that follows the schema.` });
      continue;
    }
    try {
      return await req.validate(found.value);
    } catch (e) {
      lastProblem = (e as Error).message.split("\n")[0] ?? "it did not fit the schema";
      messages.push({ role: "assistant", content: result.text.slice(0, 4000) }, { role: "user", content: `Your reply did not fit the schema: ${lastProblem}. Answer again with a corrected JSON object.` });
    }
  }
  throw new LLMResponseError(`${req.output.name}: the model's reply was unusable twice (${lastProblem})`, { hint: "try a more capable model" });
}
