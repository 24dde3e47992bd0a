/**
 * The provider-neutral model contract. Operations build a request (system prompt, messages, the JSON Schema
 * the reply must follow); a client for one wire format (OpenAI Responses, Chat Completions, Anthropic
 * Messages) sends it and returns the reply's JSON text and its usage. Parsing and validating the JSON is the
 * operation's job, so a reply that does not fit can be retried with the validation error.
 */
import type { ComputerUseSession, ComputerUseSetup } from "./computer-use.js";
import type { Abortable } from "../util/abort.js";

/** An image sent with a user message (a screenshot): base64 data, no data: prefix. */
export interface ModelImage {
  mediaType: "image/png" | "image/jpeg" | "image/webp";
  data: string;
}

export interface ModelMessage {
  role: "user" | "assistant";
  content: string;
  /** Images after the text; user messages only (the wire formats take no images from the assistant). */
  images?: ModelImage[];
}

export interface StructuredOutput {
  /** `act`, `observe`, `extract`, … (also the tool name where a wire format needs a tool for JSON). */
  name: string;
  /** JSON Schema (draft 2020-12 subset) of the reply object. */
  schema: Record<string, unknown>;
  /** Ask the provider to enforce the schema strictly (only for schemas written to allow it). */
  strict: boolean;
}

export interface GenerateRequest extends Abortable {
  system: string;
  messages: ModelMessage[];
  output: StructuredOutput;
  maxOutputTokens?: number;
  temperature?: number;
}

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  cachedInputTokens: number;
  inferenceTimeMs: number;
}

export interface GenerateResult {
  /** The reply's JSON text (for Anthropic: the forced tool call's input, serialized). */
  text: string;
  usage: ModelUsage;
  /** The model that answered, as the provider reports it. */
  model: string;
}

/** What every model client implements; a user may pass their own as `llmClient`. */
export interface LLMClient {
  /** `provider/model`, for logs, metrics and cache keys. */
  readonly modelName: string;
  generate(request: GenerateRequest): Promise<GenerateResult>;
  /** Tokens the endpoint takes per request (prompt + answer), when known: snapshots are budgeted to fit (src/model/context-window.ts). */
  readonly contextWindow?: number;
  /** A computer-use conversation (cua mode); absent when the client has no computer-use tool. */
  computerUse?(setup: ComputerUseSetup): ComputerUseSession;
}

export function emptyUsage(): ModelUsage {
  return { inputTokens: 0, outputTokens: 0, reasoningTokens: 0, cachedInputTokens: 0, inferenceTimeMs: 0 };
}
