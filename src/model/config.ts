/**
 * ModelConfig as docs/wire-formats.md "Model config" records it: a `provider/model` string, or one of three strict objects
 * (generic, Vertex, Azure Entra / API-key). Everything is resolved once into a ResolvedModel, the only
 * shape the clients see.
 */
import { z } from "zod";
import { InvalidAISDKModelFormatError, ServiceInvalidArgumentError } from "../errors.js";
import { describeIssue } from "../util/zod.js";
import { type ModelCapabilities, ModelCapabilitiesSchema } from "./capabilities.js";
import { type OpenAIEndpointFormat, type ProviderName, defaultFormat, isKnownProvider, normalizeProvider } from "./providers.js";

const Uri = z.url({ protocol: /^https?$/, error: "expected an http(s) URL" });
const Headers = z.record(z.string(), z.string());

export const GoogleServiceAccountCredentials = z.strictObject({
  type: z.literal("service_account").optional(),
  project_id: z.string().optional(),
  private_key_id: z.string().optional(),
  private_key: z.string(),
  client_email: z.string(),
  client_id: z.string().optional(),
  auth_uri: Uri.optional(),
  token_uri: Uri.optional(),
  auth_provider_x509_cert_url: Uri.optional(),
  client_x509_cert_url: Uri.optional(),
  universe_domain: z.string().optional(),
});

export const GoogleServiceAccountAuth = z.strictObject({
  type: z.literal("googleServiceAccount"),
  credentials: GoogleServiceAccountCredentials,
  scopes: z.union([z.string(), z.array(z.string())]).optional(),
  projectId: z.string().optional(),
  universeDomain: z.string().optional(),
});

export const AzureEntraIdAuth = z.strictObject({ type: z.literal("azureEntraId"), token: z.string().min(1) });

export const VertexProviderOptions = z.strictObject({
  project: z.string(),
  location: z.string(),
  baseURL: Uri.optional(),
  headers: Headers.optional(),
});

export const AzureProviderOptions = z.strictObject({
  resourceName: z.string().optional(),
  baseURL: Uri.optional(),
  apiVersion: z.string().optional(),
  useDeploymentBasedUrls: z.boolean().optional(),
  headers: Headers.optional(),
});

/** How long one request may wait for its answer before it is retried or fails (svc's own field; default 60 s). */
const TimeoutMs = z.number().int().min(1).max(3_600_000);
/** Tokens the endpoint takes per request, prompt + answer (svc's own field; see context-window.ts). */
const ContextWindowSchema = z.number().int().min(1024, "expected at least 1024 tokens").max(100_000_000);
const base = {
  modelName: z.string().min(1),
  apiKey: z.string().optional(),
  baseURL: Uri.optional(),
  headers: Headers.optional(),
  timeoutMs: TimeoutMs.optional(),
  /** What the endpoint supports, when svc should not find out from its 400s (svc's own field; see capabilities.ts). */
  capabilities: ModelCapabilitiesSchema.optional(),
  contextWindow: ContextWindowSchema.optional(),
};

export const GenericModelConfigObject = z.strictObject({
  ...base,
  openaiEndpointFormat: z.enum(["responses", "chat"]).optional(),
  provider: z.enum(["openai", "anthropic", "google", "microsoft", "bedrock"]).optional(),
});

export const VertexModelConfigObject = z.strictObject({
  ...base,
  provider: z.literal("vertex"),
  auth: GoogleServiceAccountAuth,
  providerOptions: z.strictObject({ vertex: VertexProviderOptions }),
});

const azureBase = { modelName: base.modelName, baseURL: base.baseURL, headers: base.headers, timeoutMs: base.timeoutMs, capabilities: base.capabilities, contextWindow: base.contextWindow, provider: z.literal("azure"), providerOptions: z.strictObject({ azure: AzureProviderOptions }) };
export const AzureEntraModelConfigObject = z.strictObject({ ...azureBase, auth: AzureEntraIdAuth });
export const AzureApiKeyModelConfigObject = z.strictObject({ ...azureBase, apiKey: z.string().optional() });
export const AzureModelConfigObject = z.union([AzureEntraModelConfigObject, AzureApiKeyModelConfigObject]);

export const ModelConfigObjectSchema = z.union([VertexModelConfigObject, AzureModelConfigObject, GenericModelConfigObject]);
export const ModelConfigSchema = z.union([z.string(), ModelConfigObjectSchema]);

export type GoogleServiceAccountAuth = z.infer<typeof GoogleServiceAccountAuth>;
export type AzureEntraIdAuth = z.infer<typeof AzureEntraIdAuth>;
export type VertexProviderOptions = z.infer<typeof VertexProviderOptions>;
export type AzureProviderOptions = z.infer<typeof AzureProviderOptions>;
export type GenericModelConfigObject = z.infer<typeof GenericModelConfigObject>;
export type VertexModelConfigObject = z.infer<typeof VertexModelConfigObject>;
export type AzureModelConfigObject = z.infer<typeof AzureModelConfigObject>;
export type ModelConfig = z.infer<typeof ModelConfigSchema>;

/** The one shape the clients see, whatever form the user wrote. */
export interface ResolvedModel {
  /** The `provider/` prefix, lower-cased, aliases folded (`microsoft` → azure, `gemini` → google). */
  provider: ProviderName;
  /** What is sent as `model` (the Azure deployment name for azure). */
  model: string;
  /** `provider/model`, for logs, metrics and cache keys. */
  modelName: string;
  apiKey?: string;
  baseURL?: string;
  headers?: Record<string, string>;
  openaiEndpointFormat: OpenAIEndpointFormat;
  azure?: AzureProviderOptions;
  vertex?: VertexProviderOptions;
  auth?: GoogleServiceAccountAuth | AzureEntraIdAuth;
  /** Older-generation modelClientOptions: defaults for every request. */
  temperature?: number;
  maxTokens?: number;
  /** The deadline of one request, per attempt (the config's `timeoutMs`). */
  timeoutMs?: number;
  /** What the user stated the endpoint supports (`capabilities`). */
  capabilities?: ModelCapabilities;
  /** The config's `contextWindow` (tokens per request); see context-window.ts for the defaults. */
  contextWindow?: number;
}

const MODEL_FORM = /^([A-Za-z0-9][A-Za-z0-9._-]*)\/(\S+)$/;

/** A best guess at the provider of a bare older-generation model name (`gpt-4o`, `claude-3-5-sonnet`). */
export function guessProvider(bare: string): { provider: ProviderName; model: string } | undefined {
  const m = bare.trim();
  if (/^(gpt-|o[1-9]([-.]|$)|chatgpt-|computer-use-|codex-)/i.test(m)) return { provider: "openai", model: m };
  if (/^claude-/i.test(m)) return { provider: "anthropic", model: m };
  if (/^gemini-/i.test(m)) return { provider: "google", model: m };
  if (/^groq-/i.test(m)) return { provider: "groq", model: m.slice(5) };
  if (/^cerebras-/i.test(m)) return { provider: "cerebras", model: m.slice(9) };
  if (/^deepseek-/i.test(m)) return { provider: "deepseek", model: m };
  return undefined;
}

function formatError(value: string, field: string): InvalidAISDKModelFormatError {
  const guess = guessProvider(value);
  const example = guess ? `${guess.provider}/${guess.model}` : "openai/gpt-4.1-mini";
  return new InvalidAISDKModelFormatError(`${field}: "${value}" is not in provider/model form`, { hint: `use "${example}"` });
}

/** A model name without a provider prefix (`llama3.1:8b`): no slash, no whitespace. */
export function isBareModelName(value: string): boolean {
  const v = value.trim();
  return v.length > 0 && !/[\s/]/.test(v);
}

/** `provider/model` → its parts; the model part may itself contain slashes (`openrouter/meta/llama`). */
export function parseModelString(value: string, field = "model"): { provider: ProviderName; model: string } {
  const m = MODEL_FORM.exec(value.trim());
  if (!m) throw formatError(value, field);
  return { provider: normalizeProvider(m[1]!), model: m[2]! };
}

function invalid(error: z.ZodError, field: string): ServiceInvalidArgumentError {
  return new ServiceInvalidArgumentError(describeIssue(error, field));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Splits an object's modelName, where a fixed provider (vertex, azure, the `provider` field) may stand in for the prefix. */
function splitObjectName(modelName: string, field: string, fixed: ProviderName | undefined, hasBaseURL: boolean): { provider: ProviderName; model: string } {
  const m = MODEL_FORM.exec(modelName.trim());
  if (fixed) {
    if (!m) return { provider: fixed, model: modelName.trim() };
    const prefix = normalizeProvider(m[1]!);
    if (prefix === fixed) return { provider: fixed, model: m[2]! };
    // `google/gemini-2.5-flash` on Vertex, `meta-llama/Llama-3` on an endpoint: the whole name is the model.
    if (!isKnownProvider(prefix) || fixed === "vertex") return { provider: fixed, model: modelName.trim() };
    throw new ServiceInvalidArgumentError(`${field}.provider: "${fixed}" does not match the "${m[1]}/" prefix of ${field}.modelName`);
  }
  if (m) return { provider: normalizeProvider(m[1]!), model: m[2]! };
  // "or give a baseURL instead": a bare name at an OpenAI-compatible endpoint. A name with a slash that is
  // not provider/model (`openai/`, `/gpt`) is malformed with or without a baseURL.
  if (hasBaseURL && isBareModelName(modelName)) return { provider: "openai", model: modelName.trim() };
  throw formatError(modelName, `${field}.modelName`);
}

function finish(r: Omit<ResolvedModel, "modelName" | "openaiEndpointFormat">, format?: OpenAIEndpointFormat): ResolvedModel {
  const out: ResolvedModel = { ...r, modelName: `${r.provider}/${r.model}`, openaiEndpointFormat: format ?? defaultFormat(r.provider) };
  for (const k of Object.keys(out)) if ((out as unknown as Record<string, unknown>)[k] === undefined) delete (out as unknown as Record<string, unknown>)[k];
  return out;
}

/** Validate any ModelConfig (string or object) and resolve it; errors name the field path. */
export function parseModelConfig(input: unknown, field = "model"): ResolvedModel {
  if (typeof input === "string") return finish(parseModelString(input, field));
  if (!isRecord(input)) throw new ServiceInvalidArgumentError(`${field}: expected a "provider/model" string or a model config object`, { hint: 'use "openai/gpt-4.1-mini"' });

  if (input.provider === "vertex") {
    const r = VertexModelConfigObject.safeParse(input);
    if (!r.success) throw invalid(r.error, field);
    const c = r.data;
    const { provider, model } = splitObjectName(c.modelName, field, "vertex", true);
    const headers = c.headers || c.providerOptions.vertex.headers ? { ...c.headers, ...c.providerOptions.vertex.headers } : undefined;
    return finish({ provider, model, apiKey: c.apiKey, baseURL: c.providerOptions.vertex.baseURL ?? c.baseURL, headers, vertex: c.providerOptions.vertex, auth: c.auth, timeoutMs: c.timeoutMs, capabilities: c.capabilities, contextWindow: c.contextWindow });
  }

  if (input.provider === "azure") {
    const schema = "auth" in input ? AzureEntraModelConfigObject : AzureApiKeyModelConfigObject;
    const r = schema.safeParse(input);
    if (!r.success) {
      if ("auth" in input && "apiKey" in input) throw new ServiceInvalidArgumentError(`${field}: give either auth (Entra ID token) or apiKey for azure, not both`);
      throw invalid(r.error, field);
    }
    const c = r.data as AzureModelConfigObject;
    const azure = c.providerOptions.azure;
    const { provider, model } = splitObjectName(c.modelName, field, "azure", true);
    const headers = c.headers || azure.headers ? { ...c.headers, ...azure.headers } : undefined;
    const apiKey = "apiKey" in c ? c.apiKey : undefined;
    // Deployment-based URLs are the Chat Completions world; Responses lives only at /openai/v1 and /openai/responses.
    const format = azure.useDeploymentBasedUrls ? "chat" : "responses";
    return finish({ provider, model, apiKey, baseURL: azure.baseURL ?? c.baseURL, headers, azure, auth: "auth" in c ? c.auth : undefined, timeoutMs: c.timeoutMs, capabilities: c.capabilities, contextWindow: c.contextWindow }, format);
  }

  const r = GenericModelConfigObject.safeParse(input);
  if (!r.success) throw invalid(r.error, field);
  const c = r.data;
  const fixed = c.provider ? normalizeProvider(c.provider) : undefined;
  const { provider, model } = splitObjectName(c.modelName, field, fixed, c.baseURL !== undefined);
  return finish({ provider, model, apiKey: c.apiKey, baseURL: c.baseURL, headers: c.headers, timeoutMs: c.timeoutMs, capabilities: c.capabilities, contextWindow: c.contextWindow }, c.openaiEndpointFormat);
}

const LegacyClientOptions = z.looseObject({
  apiKey: z.string().optional(),
  api_base: Uri.optional(),
  baseURL: Uri.optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().positive().optional(),
  headers: Headers.optional(),
  defaultHeaders: Headers.optional(),
});

/**
 * The older generation's `{ modelName, modelClientOptions }`. Bare names (`gpt-4o`, `claude-3-5-sonnet-latest`)
 * are accepted when the provider is evident; other modelClientOptions keys (they went straight to a vendor
 * SDK then) are ignored.
 */
export function fromLegacy(modelName: string, modelClientOptions?: unknown, field = "modelName"): ResolvedModel {
  const opts = LegacyClientOptions.safeParse(modelClientOptions ?? {});
  if (!opts.success) throw invalid(opts.error, "modelClientOptions");
  const o = opts.data;
  const baseURL = o.baseURL ?? o.api_base;
  let parts: { provider: ProviderName; model: string } | undefined;
  if (typeof modelName !== "string" || !modelName.trim()) throw new ServiceInvalidArgumentError(`${field}: expected a model name`, { hint: 'use "openai/gpt-4.1-mini"' });
  if (MODEL_FORM.test(modelName.trim())) parts = parseModelString(modelName, field);
  else parts = guessProvider(modelName) ?? (baseURL && isBareModelName(modelName) ? { provider: "openai", model: modelName.trim() } : undefined);
  if (!parts) throw formatError(modelName, field);
  const headers = o.headers || o.defaultHeaders ? { ...o.defaultHeaders, ...o.headers } : undefined;
  return finish({ ...parts, apiKey: o.apiKey, baseURL, headers, temperature: o.temperature, maxTokens: o.maxTokens });
}
