/**
 * What an endpoint supports (structured output, images, tools), as stated in `model.capabilities` or learnt from its
 * 400s. Local and proxy servers differ from OpenAI here, so a client starts from what is stated (else the best) and
 * steps down once per endpoint when the server rejects a feature, remembering it for the process.
 */
import { z } from "zod";
import type { StructuredOutput } from "./types.js";

/** How JSON is asked for, best first: a schema the server enforces, JSON mode plus the schema in the prompt, the prompt alone. */
export const STRUCTURED_OUTPUT_LEVELS = ["json_schema", "json_object", "prompt"] as const;
export type StructuredOutputLevel = (typeof STRUCTURED_OUTPUT_LEVELS)[number];
export type MaxTokensField = "max_tokens" | "max_completion_tokens";

export const ModelCapabilitiesSchema = z.strictObject({
  /** json_schema (response_format / text.format json_schema), json_object (JSON mode + the schema in the prompt), prompt (the schema in the prompt only). */
  structuredOutput: z.enum(STRUCTURED_OUTPUT_LEVELS).optional(),
  /** Whether the server takes tool definitions (Anthropic wire: the reply comes as a forced tool call; cua mode's computer tool). */
  tools: z.boolean().optional(),
  /** Whether a message's content may be an array of parts (text + image); false: text only, screenshots are left out. */
  imageInput: z.boolean().optional(),
  /** Which field carries the output-token limit on Chat Completions. */
  maxTokensField: z.enum(["max_tokens", "max_completion_tokens"]).optional(),
});
export type ModelCapabilities = z.infer<typeof ModelCapabilitiesSchema>;

/** Capabilities in force for one endpoint: what the user stated, else what was learned, else the defaults. */
export interface EndpointCapabilities {
  structuredOutput: StructuredOutputLevel;
  tools: boolean;
  imageInput: boolean;
  maxTokensField: MaxTokensField;
}

/** What was learned from endpoints' rejections during this process, by `baseURL model`. */
const learned = new Map<string, Partial<EndpointCapabilities>>();

export function endpointKey(baseURL: string | undefined, model: string): string {
  return `${baseURL ?? ""} ${model}`;
}

/** An endpoint's key for one schema: what its server refused about that schema alone (`Invalid schema …`). */
export function schemaKey(key: string, schema: Record<string, unknown>): string {
  return `${key}\n${JSON.stringify(schema)}`;
}

/** Schema-specific entries (a caller's extract schemas) are many: the oldest go past this. */
const MAX_LEARNED = 500;

/** The capabilities for an endpoint (and a schema) now: stated > learned > defaults. */
export function capabilitiesFor(key: string, stated: ModelCapabilities | undefined, defaults: EndpointCapabilities, schema?: Record<string, unknown>): EndpointCapabilities {
  const forSchema = schema ? learned.get(schemaKey(key, schema)) : undefined;
  return { ...defaults, ...learned.get(key), ...forSchema, ...definedOnly(stated ?? {}) };
}

/** Remember a step down for an endpoint (the rest of the process starts there). */
export function learn(key: string, change: Partial<EndpointCapabilities>): void {
  const before = learned.get(key);
  // Concurrent calls may report refusals out of order: a level once stepped down never goes back up.
  const lower = (a: StructuredOutputLevel | undefined, b: StructuredOutputLevel | undefined) =>
    a && b ? STRUCTURED_OUTPUT_LEVELS[Math.max(STRUCTURED_OUTPUT_LEVELS.indexOf(a), STRUCTURED_OUTPUT_LEVELS.indexOf(b))] : (a ?? b);
  const structuredOutput = lower(before?.structuredOutput, change.structuredOutput);
  learned.delete(key);
  learned.set(key, { ...before, ...change, ...(structuredOutput ? { structuredOutput } : {}) });
  if (learned.size > MAX_LEARNED) learned.delete(learned.keys().next().value!);
}

/** What was learned about an endpoint (tests). */
export function learnedFor(key: string): Partial<EndpointCapabilities> | undefined {
  return learned.get(key);
}

/** Forget everything learned (tests). */
export function forgetLearned(): void {
  learned.clear();
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The next structured-output level down, or undefined at the bottom. */
function stepDown(level: StructuredOutputLevel): StructuredOutputLevel | undefined {
  return STRUCTURED_OUTPUT_LEVELS[STRUCTURED_OUTPUT_LEVELS.indexOf(level) + 1];
}

/**
 * Which feature a 400/422 rejected, read from the server's words: those of llama.cpp's server, vLLM, Ollama, LM
 * Studio and OpenAI (`max_tokens` → `max_completion_tokens`), and text-only endpoints refusing array content. The
 * patterns below name each.
 */
export type Rejected = "schema" | "structuredOutput" | "tools" | "imageInput" | "max_tokens" | "max_completion_tokens";

const WORDINGS: Array<[Rejected, RegExp]> = [
  ["max_tokens", /unsupported parameter:? '?max_tokens'?|use '?max_completion_tokens'? instead/],
  ["max_completion_tokens", /unsupported parameter:? '?max_completion_tokens'?|max_completion_tokens.*(not (supported|permitted|allowed)|unrecognized|unknown)|(unrecognized|unknown|extra).*max_completion_tokens/],
  // This schema, not structured output as such (OpenAI's `Invalid schema for response_format`, vLLM's xgrammar): that schema only.
  ["schema", /invalid (json )?schema|schema is invalid|schema (contains|has|uses) features? not supported|not supported by (xgrammar|outlines|guidance|llguidance)/],
  ["structuredOutput", /response_format|json_schema|json_object|structured output|guided[_ ]?(decoding|json)|xgrammar|grammar|text\.format/],
  // Narrow on purpose: a provider's 400 about one tool or one image (too large) must not switch tools or images off.
  ["tools", /does not support (tools|tool[ _]calling|function[ _]calling)|tools? (param|parameter|use|calling|calls) (requires|is not supported|are not supported|not supported)|tools are not (supported|enabled)|tool[ _]choice.*requires|(tool|function)[ _]call(ing|s)? (is |are )?not supported/],
  ["imageInput", /(image|vision|multimodal)[^.]*not (supported|enabled|available)|does not support (image|vision)|not a multimodal model|content[^.]*(should|must) be (a )?(valid )?string/],
];

/** Every feature a 400/422/501's words may be about (the caller takes the first it actually sent). */
export function rejectedFeatures(status: number, message: string | undefined): Rejected[] {
  if (status !== 400 && status !== 422 && status !== 501) return [];
  const m = (message ?? "").toLowerCase();
  return WORDINGS.filter(([, re]) => re.test(m)).map(([f]) => f);
}

/** The system-prompt addition that carries the schema when the server does not enforce it. */
export function schemaInstructions(output: StructuredOutput): string {
  return [
    `Reply with only one JSON object (no prose, no code fence) for "${output.name}" that follows this JSON Schema:`,
    JSON.stringify(output.schema),
  ].join("\n");
}

/** A note standing in for images the endpoint cannot take. */
export function imagesLeftOut(count: number): string {
  return `\n\n(${count === 1 ? "A screenshot was" : `${count} screenshots were`} left out: this model endpoint takes text only.)`;
}

/** What a request used of the features a server may reject. */
export interface SentFeatures {
  /** The structured-output level sent (absent: the wire asked for JSON another way). */
  structuredOutput?: StructuredOutputLevel;
  tools: boolean;
  images: boolean;
  /** The output-limit field sent, if any. */
  maxTokensField?: MaxTokensField;
}

/** A step down, and whether it holds for the whole endpoint or for the refused schema only. */
export interface Adaptation {
  change: Partial<EndpointCapabilities>;
  remember: boolean;
}

/**
 * The step down a rejection calls for, or undefined when there is none to take (the server rejected
 * something else, or the user stated the capability it rejected: their statement stands and the error is
 * theirs to see).
 */
export function adaptTo(rejected: readonly Rejected[], sent: SentFeatures, stated: ModelCapabilities | undefined): Adaptation | undefined {
  for (const r of rejected) {
    const change = adaptOne(r, sent, stated);
    if (change) return { change, remember: r !== "schema" };
  }
  return undefined;
}

function adaptOne(rejected: Rejected, sent: SentFeatures, stated: ModelCapabilities | undefined): Partial<EndpointCapabilities> | undefined {
  switch (rejected) {
    case "schema":
      // The Anthropic wire carries the schema as its forced tool: that schema goes in the prompt instead.
      if (!sent.structuredOutput) return sent.tools && stated?.tools === undefined ? { tools: false } : undefined;
      return adaptOne("structuredOutput", sent, stated);
    case "structuredOutput": {
      const next = sent.structuredOutput && stated?.structuredOutput === undefined ? stepDown(sent.structuredOutput) : undefined;
      return next ? { structuredOutput: next } : undefined;
    }
    case "tools":
      return sent.tools && stated?.tools === undefined ? { tools: false } : undefined;
    case "imageInput":
      return sent.images && stated?.imageInput === undefined ? { imageInput: false } : undefined;
    case "max_tokens":
    case "max_completion_tokens":
      return sent.maxTokensField === rejected && stated?.maxTokensField === undefined ? { maxTokensField: rejected === "max_tokens" ? "max_completion_tokens" : "max_tokens" } : undefined;
  }
}
