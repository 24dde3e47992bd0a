/**
 * The fake model behaving like the local and proxy servers people run (`fake.mode = localServer(...)`):
 * features refused with a 400 in the words and error-body shapes those servers use, and replies wrapped
 * the way small models wrap JSON (reasoning blocks, code fences, prose). The answer inside is the fake's
 * automatic one (or `brain`'s), so act, observe, extract and agent runs still work end to end.
 */
import type { FakeReply, FakeReplyFn, FakeRequest } from "../fake-model.js";

type Obj = Record<string, any>;

/** A refusal: the status, and the body the server sends (its own shape). */
export interface Refusal {
  status: number;
  body: unknown;
}

export interface LocalServerQuirks {
  /** Refuses `response_format` / `text.format` of type json_schema. */
  jsonSchema?: Refusal;
  /** Refuses type json_object. */
  jsonObject?: Refusal;
  /** Refuses array-form message content (images). */
  arrayContent?: Refusal;
  /** Refuses tool definitions (Anthropic wire's forced tool, any `tools`). */
  tools?: Refusal;
  /** Refuses `max_completion_tokens`. */
  maxCompletionTokens?: Refusal;
  /** How the JSON comes back, outermost last: e.g. ["fence", "prose", "think"]. */
  wrap?: Array<"think" | "fence" | "prose">;
  /** The first `times` requests get a 429 with this Retry-After (seconds). */
  rateLimit?: { times: number; retryAfter: string; status?: 429 | 503 };
}

// Error bodies as each server sends them (the openai SDK reads `error.message`; LM Studio's `error` is a string).
const llamacppError = (message: string): Obj => ({ error: { code: 400, message, type: "invalid_request_error" } });
const vllmError = (message: string): Obj => ({ error: { message, type: "BadRequestError", param: null, code: 400 } });
const ollamaError = (message: string): Obj => ({ error: { message, type: "api_error", param: null, code: null } });
const lmstudioError = (message: string): Obj => ({ error: message });
const anthropicError = (message: string): Obj => ({ type: "error", error: { type: "invalid_request_error", message } });

/** The servers' own words for each refusal. */
export const REFUSALS = {
  /** llama.cpp's server before it took json_schema. */
  llamacppJsonSchema: { status: 400, body: llamacppError('response_format type must be one of "text" or "json_object", but got: json_schema') },
  /** llama.cpp's server without a multimodal projector. */
  llamacppImages: { status: 400, body: llamacppError("image input is not supported - hint: if this is unexpected, you may need to provide the mmproj") },
  /** llama.cpp's server started without --jinja (its Anthropic /v1/messages endpoint too). */
  llamacppTools: { status: 400, body: anthropicError("tools param requires --jinja flag") },
  /** vLLM whose guided-decoding backend cannot take the schema. */
  vllmJsonSchema: { status: 400, body: vllmError("The provided JSON schema contains features not supported by xgrammar.") },
  /** A proxy (LiteLLM in front of a text-completion model) that takes no response_format at all. */
  proxyResponseFormat: { status: 400, body: vllmError("response_format is not supported for this model") },
  /** Ollama with a model whose template has no tools. */
  ollamaTools: { status: 400, body: ollamaError("registry.ollama.ai/library/gemma2:2b does not support tools") },
  /** LM Studio, which takes json_schema but not json_object. */
  lmstudioJsonObject: { status: 400, body: lmstudioError("'response_format.type' must be 'json_schema' or 'text'") },
  /** A chat-only endpoint whose messages must be strings. */
  stringContent: { status: 400, body: vllmError("1 validation error: messages.1.content: Input should be a valid string") },
} satisfies Record<string, Refusal>;

function structuredLevel(body: Obj): "json_schema" | "json_object" | undefined {
  const t = body.response_format?.type ?? body.text?.format?.type ?? body.output_config?.format?.type;
  return t === "json_schema" || t === "json_object" ? t : undefined;
}

function hasArrayContent(body: Obj): boolean {
  const items: Obj[] = Array.isArray(body.messages) ? body.messages : Array.isArray(body.input) ? body.input : [];
  return items.some((m) => Array.isArray(m?.content) && m.content.some((p: Obj) => p?.type !== "text" && p?.type !== "input_text"));
}

/** Which quirk refuses this request, if any. */
export function refusalFor(q: LocalServerQuirks, body: Obj): Refusal | undefined {
  const level = structuredLevel(body);
  if (level === "json_schema" && q.jsonSchema) return q.jsonSchema;
  if (level === "json_object" && q.jsonObject) return q.jsonObject;
  if (q.tools && Array.isArray(body.tools) && body.tools.length) return q.tools;
  if (q.arrayContent && hasArrayContent(body)) return q.arrayContent;
  if (q.maxCompletionTokens && body.max_completion_tokens !== undefined) return q.maxCompletionTokens;
  return undefined;
}

/** The JSON text wrapped the way small models wrap it. */
export function wrapJson(json: string, wrap: LocalServerQuirks["wrap"] = []): string {
  let text = json;
  for (const w of wrap) {
    if (w === "fence") text = `\`\`\`json\n${text}\n\`\`\``;
    else if (w === "prose") text = `Sure! Looking at the page, here is my answer:\n\n${text}\n\nLet me know if you need anything else {or more}.`;
    else text = `<think>\nThe user wants {something}. Let me look at the outline: {"ref": "e0"} is not it.\n</think>\n${text}`;
  }
  return text;
}

/** The JSON text of a reply the fake would give (plain object, `{kind: "object"}`, or an automatic answer). */
async function answerText(req: FakeRequest, auto: () => unknown, brain: FakeReplyFn | undefined): Promise<string | FakeReply> {
  let r: unknown = brain ? await brain(req, auto) : undefined;
  if (r === undefined) return JSON.stringify(auto());
  if (typeof r === "function") return r as FakeReply;
  const o = r as Obj;
  if (o.kind === "object") r = o.value;
  else if (typeof o.kind === "string" && o.kind !== "auto") return o as FakeReply;
  else if (o.kind === "auto") return JSON.stringify(auto());
  return JSON.stringify(r);
}

/** A `fake.mode` that behaves like a server with these quirks; `brain` answers (default: automatically). */
export function localServer(q: LocalServerQuirks, brain?: FakeReplyFn): FakeReplyFn {
  let limited = 0;
  return async (req, auto) => {
    if (q.rateLimit && limited < q.rateLimit.times) {
      limited++;
      return { kind: "status", status: q.rateLimit.status ?? 429, headers: { "retry-after": q.rateLimit.retryAfter } };
    }
    const refusal = refusalFor(q, req.body);
    if (refusal) return { kind: "status", status: refusal.status, body: refusal.body };
    const text = await answerText(req, auto, brain);
    return typeof text === "string" ? { kind: "json", text: wrapJson(text, q.wrap) } : text;
  };
}

/** The modes the local-model tests run through, named after the servers they stand for. */
export const LOCAL_SERVERS: Array<{ label: string; quirks: LocalServerQuirks }> = [
  { label: "llama.cpp: no json_schema, fenced JSON", quirks: { jsonSchema: REFUSALS.llamacppJsonSchema, wrap: ["fence"] } },
  { label: "vLLM: schema refused by xgrammar, reasoning block", quirks: { jsonSchema: REFUSALS.vllmJsonSchema, wrap: ["think"] } },
  { label: "proxy: no response_format at all, prose around JSON", quirks: { jsonSchema: REFUSALS.proxyResponseFormat, jsonObject: REFUSALS.proxyResponseFormat, wrap: ["fence", "prose"] } },
  { label: "Ollama: reasoning model, <think> + fence + prose", quirks: { wrap: ["fence", "prose", "think"] } },
  { label: "LM Studio: json_schema only (no json_object), reasoning block", quirks: { jsonObject: REFUSALS.lmstudioJsonObject, wrap: ["think"] } },
];
