/**
 * The Anthropic Messages wire through @anthropic-ai/sdk. Structured output is a forced tool call: one tool
 * whose input_schema is the reply schema, `tool_choice` naming it; the tool call's input is the reply.
 */
import { withChildSignal } from "../util/abort.js";
import { wholeBodyFetch } from "./deadline.js";
import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import type { MessageCreateParamsNonStreaming, MessageParam, Tool } from "@anthropic-ai/sdk/resources/messages/messages";
import { type ClientPlan, hasHeader } from "./endpoint.js";
import { type Failure, type FailureContext, classifySdkError, failureToError, unknownToError } from "./errors.js";
import type { GenerateRequest, GenerateResult, LLMClient, ModelMessage } from "./types.js";
import { elapsedMs, usageFromAnthropic } from "./usage.js";
import { type EndpointCapabilities, adaptTo, capabilitiesFor, endpointKey, schemaKey, imagesLeftOut, learn, rejectedFeatures, schemaInstructions } from "./capabilities.js";

const DEFAULT_MAX_TOKENS = 4096;

/** Tool names: `^[a-zA-Z0-9_-]{1,64}$`. */
function toolName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64) || "reply";
}

/** Plain string content unless the message carries images (an image block after the text). */
function anthropicMessage(m: ModelMessage, images: boolean): MessageParam {
  if (m.role !== "user" || !m.images?.length) return { role: m.role, content: m.content };
  if (!images) return { role: m.role, content: m.content + imagesLeftOut(m.images.length) };
  return {
    role: "user",
    content: [{ type: "text", text: m.content }, ...m.images.map((i) => ({ type: "image" as const, source: { type: "base64" as const, media_type: i.mediaType, data: i.data } }))],
  };
}

const ANTHROPIC_ERRORS = { Abort: APIUserAbortError, Timeout: APIConnectionTimeoutError, Connection: APIConnectionError, Api: APIError };

/** The Anthropic SDK's error classes → a neutral Failure (undefined: not an SDK error). */
export function classifyAnthropicError(e: unknown): Failure | undefined {
  return classifySdkError(e, ANTHROPIC_ERRORS, (body) => (body as { error?: { message?: unknown } }).error?.message);
}

/** The @anthropic-ai/sdk client for a plan (also used by the computer-use client). */
export function makeAnthropicSdk(plan: ClientPlan): Anthropic {
  const credential = plan.tokenProvider ?? plan.apiKey;
  // No credential: the SDK insists on one (passing it also keeps it from reading ANTHROPIC_AUTH_TOKEN), so
  // it gets a placeholder whose header is dropped (null default headers remove it): no credential is sent.
  const noAuth = credential === undefined && !hasHeader(plan.headers, "authorization") && !hasHeader(plan.headers, "x-api-key") ? { "x-api-key": null, Authorization: null } : {};
  return new Anthropic({
    apiKey: credential ?? "none",
    ...(plan.baseURL ? { baseURL: plan.baseURL } : {}),
    maxRetries: plan.maxRetries,
    ...(plan.timeoutMs !== undefined ? { timeout: plan.timeoutMs } : {}),
    fetch: wholeBodyFetch(plan.fetch),
    defaultHeaders: { ...plan.headers, ...noAuth },
  });
}

/** What error messages may say about a plan's endpoint. */
export function anthropicFailureContext(plan: ClientPlan, sdk: Anthropic): FailureContext {
  return {
    modelName: plan.modelName,
    provider: plan.provider,
    maxRetries: plan.maxRetries,
    secrets: plan.secrets,
    baseURL: plan.baseURL ?? sdk.baseURL,
    ...(plan.timeoutMs !== undefined ? { timeoutMs: plan.timeoutMs } : {}),
    ...(plan.keyHint ? { keyHint: plan.keyHint } : {}),
  };
}

export function createAnthropicClient(plan: ClientPlan): LLMClient {
  const sdk = makeAnthropicSdk(plan);
  const ctx = anthropicFailureContext(plan, sdk);
  const key = endpointKey(plan.baseURL ?? sdk.baseURL, plan.model);
  // JSON comes as a forced tool call; a server without tools gets the schema in the prompt instead.
  const defaults: EndpointCapabilities = { structuredOutput: "json_schema", tools: true, imageInput: true, maxTokensField: "max_tokens" };

  async function call(req: GenerateRequest, caps: EndpointCapabilities): Promise<GenerateResult> {
    const name = toolName(req.output.name);
    const temperature = req.temperature ?? plan.defaults.temperature;
    const tool: Tool = {
      name,
      description: `Give your answer as the input of this tool (the ${req.output.name} result).`,
      input_schema: req.output.schema as Tool["input_schema"],
    };
    const body: MessageCreateParamsNonStreaming = {
      model: plan.model,
      system: caps.tools ? req.system : `${req.system}\n\n${schemaInstructions(req.output)}`,
      messages: req.messages.map((m) => anthropicMessage(m, caps.imageInput)),
      max_tokens: req.maxOutputTokens ?? plan.defaults.maxOutputTokens ?? DEFAULT_MAX_TOKENS,
      ...(caps.tools ? { tools: [tool], tool_choice: { type: "tool" as const, name } } : {}),
      ...(temperature !== undefined ? { temperature } : {}),
    };
    const start = performance.now();
    const msg = await withChildSignal(req.signal, (signal) => sdk.messages.create(body, signal ? { signal } : undefined));
    const ms = elapsedMs(start);
    const use = msg.content.find((b) => b.type === "tool_use");
    // Without a tool call (max_tokens hit, a refusal) the text is returned as is: the operation's JSON
    // check fails and it asks again, like any reply that does not fit.
    const text =
      use && use.type === "tool_use"
        ? JSON.stringify(use.input)
        : msg.content
            .filter((b) => b.type === "text")
            .map((b) => (b.type === "text" ? b.text : ""))
            .join("");
    return { text, usage: usageFromAnthropic(msg.usage, ms), model: msg.model ?? plan.model };
  }

  return {
    modelName: plan.modelName,
    async generate(req) {
      for (let step = 0; ; step++) {
        const caps = capabilitiesFor(key, plan.capabilities, defaults, req.output.schema);
        try {
          return await call(req, caps);
        } catch (e) {
          const f = classifyAnthropicError(e);
          const sent = { tools: caps.tools, images: caps.imageInput && req.messages.some((m) => m.images?.length) };
          const adapted = f?.kind === "status" && step < 4 ? adaptTo(rejectedFeatures(f.status, f.message), sent, plan.capabilities) : undefined;
          if (adapted) {
            learn(adapted.remember ? key : schemaKey(key, req.output.schema), adapted.change);
            continue;
          }
          throw f ? failureToError(f, ctx) : unknownToError(e, ctx, req.signal);
        }
      }
    },
  };
}
