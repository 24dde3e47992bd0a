/**
 * The OpenAI wire: the Responses API (default) or Chat Completions, through the openai SDK. Serves OpenAI
 * and every OpenAI-compatible endpoint (Google, Groq, DeepSeek, Ollama, vLLM, LM Studio, Azure, Vertex,
 * Bedrock, …); endpoint.ts has already decided the URL, credential and format.
 */
import { withChildSignal } from "../util/abort.js";
import { wholeBodyFetch } from "./deadline.js";
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, AzureOpenAI, OpenAIError } from "openai";
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ResponseCreateParamsNonStreaming, ResponseInputItem } from "openai/resources/responses/responses";
import { LLMResponseError, ServiceError } from "../errors.js";
import { type ClientPlan, hasHeader } from "./endpoint.js";
import { type Failure, type FailureContext, classifySdkError, failureToError, unknownToError } from "./errors.js";
import type { GenerateRequest, GenerateResult, LLMClient, ModelImage, ModelMessage } from "./types.js";
import { type EndpointCapabilities, type SentFeatures, adaptTo, capabilitiesFor, endpointKey, schemaKey, imagesLeftOut, learn, rejectedFeatures, schemaInstructions } from "./capabilities.js";
import { elapsedMs, usageFromOpenAI } from "./usage.js";

/** OpenAI requires `^[a-zA-Z0-9_-]{1,64}$` for json_schema names. */
function schemaName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64) || "reply";
}

export const dataUrl = (i: ModelImage): string => `data:${i.mediaType};base64,${i.data}`;

/** A text-only endpoint gets the text and a note in place of the images. */
function textOnly(m: ModelMessage): string {
  return m.images?.length ? m.content + imagesLeftOut(m.images.length) : m.content;
}

/** Plain string content unless the message carries images (keeps requests without images unchanged). */
function responsesMessage(m: ModelMessage, images: boolean): ResponseInputItem {
  if (m.role !== "user" || !m.images?.length || !images) return { role: m.role, content: textOnly(m) };
  return { role: "user", content: [{ type: "input_text", text: m.content }, ...m.images.map((i) => ({ type: "input_image" as const, image_url: dataUrl(i), detail: "auto" as const }))] };
}

function chatMessage(m: ModelMessage, images: boolean): ChatCompletionMessageParam {
  if (m.role !== "user" || !m.images?.length || !images) return { role: m.role, content: textOnly(m) };
  return { role: "user", content: [{ type: "text", text: m.content }, ...m.images.map((i) => ({ type: "image_url" as const, image_url: { url: dataUrl(i) } }))] };
}

/** The openai SDK client for a plan (also used by the computer-use client). */
export function makeSdk(plan: ClientPlan): OpenAI {
  const common = {
    maxRetries: plan.maxRetries,
    ...(plan.timeoutMs !== undefined ? { timeout: plan.timeoutMs } : {}),
    fetch: wholeBodyFetch(plan.fetch),
    defaultHeaders: plan.headers,
    ...(plan.defaultQuery ? { defaultQuery: plan.defaultQuery } : {}),
    // OPENAI_ORG_ID / OPENAI_PROJECT_ID belong to OpenAI's own API only (and to the process owner's).
    ...(plan.provider === "openai" && !plan.foreignEndpoint ? {} : { organization: null, project: null }),
  };
  if (plan.azureDeployments) {
    return new AzureOpenAI({
      ...common,
      baseURL: plan.baseURL,
      apiVersion: plan.azureDeployments.apiVersion,
      ...(plan.tokenProvider ? { azureADTokenProvider: plan.tokenProvider } : { apiKey: plan.apiKey }),
    });
  }
  const credential = plan.tokenProvider ?? plan.apiKey;
  // No credential: the SDK insists on a key, so it gets a placeholder and the Authorization header it would
  // make of it is dropped (a null default header removes it); the endpoint sees no credential at all.
  // OPENAI_ADMIN_KEY is never this client's to send.
  const noAuth = credential === undefined && !hasHeader(plan.headers, "authorization") ? { Authorization: null } : {};
  return new OpenAI({ ...common, defaultHeaders: { ...plan.headers, ...noAuth }, baseURL: plan.baseURL, apiKey: credential ?? "none", adminAPIKey: null });
}

const OPENAI_ERRORS = { Abort: APIUserAbortError, Timeout: APIConnectionTimeoutError, Connection: APIConnectionError, Api: APIError };

/** The openai SDK's error classes → a neutral Failure (undefined: not an SDK error). */
export function classifyOpenAIError(e: unknown): Failure | undefined {
  const sdk = classifySdkError(e, OPENAI_ERRORS, (body) => (body as { message?: unknown }).message);
  if (sdk) return sdk;
  const cause = (e as { cause?: unknown }).cause;
  if (e instanceof OpenAIError && cause instanceof Error && !(cause instanceof ServiceError) && /^Failed to get token/.test(e.message))
    return { kind: "credentials", detail: cause.message };
  return undefined;
}

/** What error messages may say about a plan's endpoint. */
export function openAIFailureContext(plan: ClientPlan, sdk: OpenAI): FailureContext {
  return {
    modelName: plan.modelName,
    provider: plan.provider,
    maxRetries: plan.maxRetries,
    secrets: plan.secrets,
    ...(plan.baseURL ? { baseURL: plan.baseURL } : { baseURL: sdk.baseURL }),
    ...(plan.timeoutMs !== undefined ? { timeoutMs: plan.timeoutMs } : {}),
    ...(plan.keyHint ? { keyHint: plan.keyHint } : {}),
  };
}

const STATE_IT = 'if the endpoint does not take response_format json_schema, set capabilities: { structuredOutput: "json_object" } (or "prompt") in the model config (CLI: svc config set model.structuredOutput)';

/** The system prompt, with the schema written in when the server does not enforce it. */
function systemFor(req: GenerateRequest, caps: EndpointCapabilities): string {
  return caps.structuredOutput === "json_schema" ? req.system : `${req.system}\n\n${schemaInstructions(req.output)}`;
}

export function createOpenAIClient(plan: ClientPlan): LLMClient {
  const sdk = makeSdk(plan);
  const ctx = openAIFailureContext(plan, sdk);
  const key = endpointKey(plan.baseURL ?? sdk.baseURL, plan.model);
  const defaults: EndpointCapabilities = { structuredOutput: "json_schema", tools: true, imageInput: true, maxTokensField: plan.maxTokensField };

  async function viaResponses(req: GenerateRequest, caps: EndpointCapabilities): Promise<GenerateResult> {
    const maxOut = req.maxOutputTokens ?? plan.defaults.maxOutputTokens;
    const temperature = req.temperature ?? plan.defaults.temperature;
    const level = caps.structuredOutput;
    const body: ResponseCreateParamsNonStreaming = {
      model: plan.model,
      instructions: systemFor(req, caps),
      input: req.messages.map((m) => responsesMessage(m, caps.imageInput)),
      ...(level === "json_schema"
        ? { text: { format: { type: "json_schema", name: schemaName(req.output.name), schema: req.output.schema, strict: req.output.strict } } }
        : level === "json_object"
          ? { text: { format: { type: "json_object" } } }
          : {}),
      ...(maxOut !== undefined ? { max_output_tokens: maxOut } : {}),
      ...(temperature !== undefined ? { temperature } : {}),
    };
    const start = performance.now();
    const r = await withChildSignal(req.signal, (signal) => sdk.responses.create(body, signal ? { signal } : undefined));
    const ms = elapsedMs(start);
    for (const item of r.output ?? []) {
      if (item.type !== "message") continue;
      for (const part of item.content) if (part.type === "refusal") throw new LLMResponseError(`${plan.modelName}: the model refused: ${part.refusal.slice(0, 200)}`);
    }
    return { text: r.output_text ?? "", usage: usageFromOpenAI(r.usage, ms), model: r.model ?? plan.model };
  }

  async function viaChat(req: GenerateRequest, caps: EndpointCapabilities): Promise<GenerateResult> {
    const maxOut = req.maxOutputTokens ?? plan.defaults.maxOutputTokens;
    const temperature = req.temperature ?? plan.defaults.temperature;
    const level = caps.structuredOutput;
    const body: ChatCompletionCreateParamsNonStreaming = {
      model: plan.model,
      // `system`, never `developer`: every compatible server knows system, and OpenAI maps it for its reasoning models.
      messages: [{ role: "system", content: systemFor(req, caps) }, ...req.messages.map((m) => chatMessage(m, caps.imageInput))],
      ...(level === "json_schema"
        ? { response_format: { type: "json_schema", json_schema: { name: schemaName(req.output.name), schema: req.output.schema, strict: req.output.strict } } }
        : level === "json_object"
          ? { response_format: { type: "json_object" } }
          : {}),
      ...(maxOut !== undefined ? { [caps.maxTokensField]: maxOut } : {}),
      ...(temperature !== undefined ? { temperature } : {}),
    };
    const start = performance.now();
    const c = await withChildSignal(req.signal, (signal) => sdk.chat.completions.create(body, signal ? { signal } : undefined));
    const ms = elapsedMs(start);
    const message = c.choices?.[0]?.message;
    if (message?.refusal) throw new LLMResponseError(`${plan.modelName}: the model refused: ${message.refusal.slice(0, 200)}`);
    return { text: message?.content ?? "", usage: usageFromOpenAI(c.usage, ms), model: c.model ?? plan.model };
  }

  return {
    modelName: plan.modelName,
    async generate(req) {
      // Each rejected feature is stepped down once and remembered; a handful of steps covers them all.
      for (let step = 0; ; step++) {
        const caps = capabilitiesFor(key, plan.capabilities, defaults, req.output.schema);
        try {
          return plan.format === "chat" ? await viaChat(req, caps) : await viaResponses(req, caps);
        } catch (e) {
          const f = classifyOpenAIError(e);
          const maxOut = req.maxOutputTokens ?? plan.defaults.maxOutputTokens;
          const sent: SentFeatures = {
            structuredOutput: caps.structuredOutput,
            tools: false,
            images: caps.imageInput && req.messages.some((m) => m.images?.length),
            ...(maxOut !== undefined && plan.format === "chat" ? { maxTokensField: caps.maxTokensField } : {}),
          };
          const adapted = f?.kind === "status" && step < 6 ? adaptTo(rejectedFeatures(f.status, f.message), sent, plan.capabilities) : undefined;
          if (adapted) {
            learn(adapted.remember ? key : schemaKey(key, req.output.schema), adapted.change);
            continue;
          }
          // A 400 in words svc does not know may still be a structured-output refusal: say how to state it.
          const unstated = caps.structuredOutput !== "prompt" && plan.capabilities?.structuredOutput === undefined;
          throw f ? failureToError(f, unstated ? { ...ctx, badRequestHint: STATE_IT } : ctx) : unknownToError(e, ctx, req.signal);
        }
      }
    },
  };
}
