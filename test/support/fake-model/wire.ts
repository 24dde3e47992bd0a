/**
 * Response bodies and SSE streams exactly as the providers send them (and as the openai and
 * @anthropic-ai/sdk clients parse them): OpenAI Responses, Chat Completions, Anthropic Messages, and each
 * one's error body.
 */
import type { NormalizedRequest, WireFormat } from "./request.js";

/** Token counts of one reply. `input` counts the whole prompt, cached part included (OpenAI's sense). */
export interface FakeUsage {
  input: number;
  output: number;
  /** Of `input`, read from the provider's cache. */
  cached: number;
  /** Reported as output_tokens_details.reasoning_tokens (OpenAI); not sent for Anthropic. */
  reasoning: number;
}

/** What to answer: the reply text (JSON or not) and its usage. */
export interface Answer {
  text: string;
  usage: FakeUsage;
}

type Obj = Record<string, any>;

let counter = 0;
const id = (prefix: string): string => `${prefix}_fake${(++counter).toString(36).padStart(6, "0")}`;
const now = (): number => Math.floor(Date.now() / 1000);

/** Splits text into stream deltas (a few characters each, like a real stream). */
export function chunks(text: string, size = 16): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [""];
}

/** The reply as a JSON object when it is one (what a forced tool call can carry as its input). */
function asObject(text: string): Obj | undefined {
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

const sse = (event: string | undefined, data: unknown): string => `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;

// ——— OpenAI Responses ———

function responsesUsage(u: FakeUsage): Obj {
  return {
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: u.cached },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: u.input + u.output,
  };
}

function responsesEnvelope(req: NormalizedRequest, body: Obj, status: string, output: Obj[], usage: Obj | null): Obj {
  return {
    id: id("resp"),
    object: "response",
    created_at: now(),
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: req.model ?? "fake-model",
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    service_tier: "default",
    store: false,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: "text" } },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_p: 1,
    truncation: "disabled",
    usage,
    user: null,
    metadata: {},
  };
}

function responsesItem(req: NormalizedRequest, text: string): Obj {
  if (req.jsonVia === "tool") return { id: id("fc"), type: "function_call", status: "completed", call_id: id("call"), name: req.operation ?? "", arguments: text };
  return { id: id("msg"), type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [], logprobs: [] }] };
}

function responsesJson(req: NormalizedRequest, body: Obj, a: Answer): Obj {
  return responsesEnvelope(req, body, "completed", [responsesItem(req, a.text)], responsesUsage(a.usage));
}

function responsesStream(req: NormalizedRequest, body: Obj, a: Answer): string[] {
  let seq = 0;
  const ev = (type: string, data: Obj): string => sse(type, { type, sequence_number: seq++, ...data });
  const item = responsesItem(req, a.text);
  const pending = responsesEnvelope(req, body, "in_progress", [], null);
  const done = { ...pending, status: "completed", output: [item], usage: responsesUsage(a.usage) };
  const at = { item_id: item.id, output_index: 0 };
  const out = [ev("response.created", { response: pending }), ev("response.in_progress", { response: pending })];
  if (item.type === "function_call") {
    out.push(ev("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress", arguments: "" } }));
    for (const delta of chunks(a.text)) out.push(ev("response.function_call_arguments.delta", { ...at, delta }));
    out.push(ev("response.function_call_arguments.done", { ...at, name: item.name, arguments: a.text }));
  } else {
    const part = { type: "output_text", text: "", annotations: [], logprobs: [] };
    out.push(ev("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress", content: [] } }));
    out.push(ev("response.content_part.added", { ...at, content_index: 0, part }));
    for (const delta of chunks(a.text)) out.push(ev("response.output_text.delta", { ...at, content_index: 0, delta, logprobs: [] }));
    out.push(ev("response.output_text.done", { ...at, content_index: 0, text: a.text, logprobs: [] }));
    out.push(ev("response.content_part.done", { ...at, content_index: 0, part: { ...part, text: a.text } }));
  }
  out.push(ev("response.output_item.done", { output_index: 0, item }));
  out.push(ev("response.completed", { response: done }));
  return out;
}

// ——— OpenAI Chat Completions ———

function chatUsage(u: FakeUsage): Obj {
  return {
    prompt_tokens: u.input,
    completion_tokens: u.output,
    total_tokens: u.input + u.output,
    prompt_tokens_details: { cached_tokens: u.cached, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: u.reasoning, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

function chatJson(req: NormalizedRequest, a: Answer): Obj {
  const message =
    req.jsonVia === "tool"
      ? { role: "assistant", content: null, refusal: null, tool_calls: [{ id: id("call"), type: "function", function: { name: req.operation ?? "", arguments: a.text } }] }
      : { role: "assistant", content: a.text, refusal: null, annotations: [] };
  return {
    id: id("chatcmpl"),
    object: "chat.completion",
    created: now(),
    model: req.model ?? "fake-model",
    system_fingerprint: "fp_fake",
    choices: [{ index: 0, message, logprobs: null, finish_reason: req.jsonVia === "tool" ? "tool_calls" : "stop" }],
    usage: chatUsage(a.usage),
  };
}

function chatStream(req: NormalizedRequest, a: Answer): string[] {
  const base = { id: id("chatcmpl"), object: "chat.completion.chunk", created: now(), model: req.model ?? "fake-model", system_fingerprint: "fp_fake" };
  const usage = req.includeUsage ? { usage: null } : {};
  const chunk = (delta: Obj, finish: string | null = null): string => sse(undefined, { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...usage });
  const out: string[] = [];
  if (req.jsonVia === "tool") {
    const call = { index: 0, id: id("call"), type: "function", function: { name: req.operation ?? "", arguments: "" } };
    out.push(chunk({ role: "assistant", content: null, tool_calls: [call] }));
    for (const piece of chunks(a.text)) out.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
    out.push(chunk({}, "tool_calls"));
  } else {
    out.push(chunk({ role: "assistant", content: "", refusal: null }));
    for (const piece of chunks(a.text)) out.push(chunk({ content: piece }));
    out.push(chunk({}, "stop"));
  }
  if (req.includeUsage) out.push(sse(undefined, { ...base, choices: [], usage: chatUsage(a.usage) }));
  out.push(sse(undefined, "[DONE]"));
  return out;
}

// ——— Anthropic Messages ———

/** `u.input` counts every prompt token (OpenAI's sense); Anthropic's input_tokens leaves cache reads out. */
function anthropicUsage(u: FakeUsage): Obj {
  return { input_tokens: Math.max(0, u.input - u.cached), output_tokens: u.output, cache_creation_input_tokens: 0, cache_read_input_tokens: u.cached, service_tier: "standard" };
}

/** A forced tool answers with a tool_use block carrying the object; anything that is not an object is text. */
function anthropicBlock(req: NormalizedRequest, text: string): Obj {
  const input = req.jsonVia === "tool" ? asObject(text) : undefined;
  return input ? { type: "tool_use", id: id("toolu"), name: req.operation ?? "", input } : { type: "text", text, citations: null };
}

function anthropicMessage(req: NormalizedRequest, content: Obj[], stop: string | null, usage: Obj): Obj {
  return { id: id("msg"), type: "message", role: "assistant", model: req.model ?? "fake-model", content, stop_reason: stop, stop_sequence: null, usage };
}

function anthropicJson(req: NormalizedRequest, a: Answer): Obj {
  const block = anthropicBlock(req, a.text);
  return anthropicMessage(req, [block], block.type === "tool_use" ? "tool_use" : "end_turn", anthropicUsage(a.usage));
}

function anthropicStream(req: NormalizedRequest, a: Answer): string[] {
  const ev = (type: string, data: Obj): string => sse(type, { type, ...data });
  const block = anthropicBlock(req, a.text);
  const start = anthropicMessage(req, [], null, { ...anthropicUsage(a.usage), output_tokens: 1 });
  const out = [ev("message_start", { message: start }), ev("ping", {})];
  if (block.type === "tool_use") {
    out.push(ev("content_block_start", { index: 0, content_block: { ...block, input: {} } }));
    for (const partial_json of chunks(JSON.stringify(block.input))) out.push(ev("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json } }));
  } else {
    out.push(ev("content_block_start", { index: 0, content_block: { type: "text", text: "", citations: null } }));
    for (const text of chunks(a.text)) out.push(ev("content_block_delta", { index: 0, delta: { type: "text_delta", text } }));
  }
  out.push(ev("content_block_stop", { index: 0 }));
  const stop = block.type === "tool_use" ? "tool_use" : "end_turn";
  out.push(ev("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: a.usage.output, input_tokens: Math.max(0, a.usage.input - a.usage.cached), cache_read_input_tokens: a.usage.cached } }));
  out.push(ev("message_stop", {}));
  return out;
}

// ——— computer use (JSON only) ———

/** A computer-use reply: OpenAI `computer_call` items (after an optional message), or Anthropic `computer` tool_use blocks (after an optional text block). */
export function computerResponse(format: WireFormat, req: NormalizedRequest, body: Obj, actions: Obj[], text: string, u: FakeUsage): Obj {
  if (format === "anthropic") {
    const content: Obj[] = [...(text ? [{ type: "text", text, citations: null }] : []), ...actions.map((input) => ({ type: "tool_use", id: id("toolu"), name: "computer", input }))];
    return anthropicMessage(req, content, actions.length ? "tool_use" : "end_turn", anthropicUsage(u));
  }
  const message = text ? [{ id: id("msg"), type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [], logprobs: [] }] }] : [];
  const calls = actions.map((action) => ({ id: id("cu"), type: "computer_call", status: "completed", call_id: id("call"), action, pending_safety_checks: [] }));
  return { ...responsesEnvelope(req, body, "completed", [...message, ...calls], responsesUsage(u)), previous_response_id: body.previous_response_id ?? null };
}

// ——— dispatch ———

export function jsonResponse(format: WireFormat, req: NormalizedRequest, body: Obj, a: Answer): Obj {
  return format === "responses" ? responsesJson(req, body, a) : format === "chat" ? chatJson(req, a) : anthropicJson(req, a);
}

export function streamResponse(format: WireFormat, req: NormalizedRequest, body: Obj, a: Answer): string[] {
  return format === "responses" ? responsesStream(req, body, a) : format === "chat" ? chatStream(req, a) : anthropicStream(req, a);
}

const OPENAI_ERRORS: Record<number, [type: string, code: string | null, message: string]> = {
  400: ["invalid_request_error", null, "Invalid request."],
  401: ["invalid_request_error", "invalid_api_key", "Incorrect API key provided."],
  403: ["invalid_request_error", "unsupported_country_region_territory", "Forbidden."],
  404: ["invalid_request_error", "model_not_found", "The model does not exist or you do not have access to it."],
  429: ["requests", "rate_limit_exceeded", "Rate limit reached. Please try again later."],
  500: ["server_error", null, "The server had an error while processing your request."],
  503: ["server_error", null, "The engine is currently overloaded, please try again later."],
};

const ANTHROPIC_ERRORS: Record<number, [type: string, message: string]> = {
  400: ["invalid_request_error", "Invalid request."],
  401: ["authentication_error", "invalid x-api-key"],
  403: ["permission_error", "Your API key does not have permission to use the specified resource."],
  404: ["not_found_error", "Not found."],
  413: ["request_too_large", "Request exceeds the maximum allowed number of bytes."],
  429: ["rate_limit_error", "Number of requests has exceeded your rate limit."],
  500: ["api_error", "Internal server error."],
  529: ["overloaded_error", "Overloaded"],
};

/** The provider's error body for a status (a message may be given). */
export function errorBody(format: WireFormat, status: number, message?: string): Obj {
  if (format === "anthropic") {
    const [type, msg] = ANTHROPIC_ERRORS[status] ?? (status >= 500 ? ANTHROPIC_ERRORS[500]! : ANTHROPIC_ERRORS[400]!);
    return { type: "error", error: { type, message: message ?? msg }, request_id: id("req") };
  }
  const [type, code, msg] = OPENAI_ERRORS[status] ?? (status >= 500 ? OPENAI_ERRORS[500]! : OPENAI_ERRORS[400]!);
  return { error: { message: message ?? msg, type, param: null, code } };
}

export function requestIdHeader(format: WireFormat): Record<string, string> {
  return format === "anthropic" ? { "request-id": id("req") } : { "x-request-id": id("req") };
}
