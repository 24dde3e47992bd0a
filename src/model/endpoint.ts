/**
 * ResolvedModel → a ClientPlan: which wire, which URL, which credential. All provider knowledge beyond the
 * table in providers.ts lives here (Azure URL shapes, Vertex's OpenAI-compatible endpoint, Bedrock's),
 * so the wire clients stay provider-blind. Pure apart from reading `env`; no SDK is imported.
 */
import { MissingLLMConfigurationError, UnsupportedModelError } from "../errors.js";
import { type ResolvedModel, parseModelConfig } from "./config.js";
import { DEFAULT_MODEL_TIMEOUT_MS } from "./deadline.js";
import { type FetchLike, type ModelEndpointPolicy, checkedEndpoint, choosesEndpoint, refuseUnlisted } from "./endpoint-policy.js";
import { type StoredKeyLookup, resolveKeyFor } from "./keys.js";
import type { ModelCapabilities } from "./capabilities.js";
import { type OpenAIEndpointFormat, SUPPORTED_PROVIDERS, envKeysFor, providerInfo } from "./providers.js";

export type TokenProvider = () => Promise<string>;
export type { FetchLike, ModelEndpointPolicy } from "./endpoint-policy.js";

export interface ModelClientOptions {
  /** The key to use; when absent it is resolved (config, `<PROVIDER>_API_KEY`, `stored`). */
  apiKey?: string;
  /** SDK retries for 408/409/429/5xx and network errors, honouring Retry-After. Default 2. */
  maxRetries?: number;
  /** Per-attempt deadline when the model config sets none. Default 60 s (DEFAULT_MODEL_TIMEOUT_MS); an operation's own deadline comes as a signal. */
  timeoutMs?: number;
  fetch?: FetchLike;
  env?: NodeJS.ProcessEnv;
  stored?: StoredKeyLookup;
  /** Bearer token source replacing Google auth for Vertex (and the Entra token for Azure); for tests and custom auth. */
  tokenProvider?: TokenProvider;
  /** The config comes from someone else (a server's tenant): see endpoint-policy.ts. */
  endpointPolicy?: ModelEndpointPolicy | undefined;
  /** Where the config came from, for messages (`options.model`). Default `model`. */
  field?: string;
}

export interface ClientPlan {
  wire: "openai" | "anthropic";
  provider: string;
  /** Sent as `model`. */
  model: string;
  /** `provider/model`. */
  modelName: string;
  format: OpenAIEndpointFormat;
  baseURL?: string;
  headers: Record<string, string>;
  defaultQuery?: Record<string, string>;
  apiKey?: string;
  /** Called before each request; its value goes out as `Authorization: Bearer`. */
  tokenProvider?: TokenProvider;
  /** Azure deployment-based URLs through the SDK's AzureOpenAI client. */
  azureDeployments?: { apiVersion: string };
  /** OpenAI's own API wants max_completion_tokens on Chat Completions; compatible servers know max_tokens. */
  maxTokensField: "max_tokens" | "max_completion_tokens";
  /** What the user stated the endpoint supports (`model.capabilities`); the rest is learned from its 400s. */
  capabilities?: ModelCapabilities;
  defaults: { temperature?: number; maxOutputTokens?: number };
  maxRetries: number;
  timeoutMs?: number;
  fetch?: FetchLike;
  /** Values that must never appear in an error message. */
  secrets: string[];
  /** The variable named in auth-failure hints. */
  keyHint?: string;
  /**
   * The endpoint was chosen by a config under an endpoint policy: nothing of this process's own
   * configuration (OPENAI_ORG_ID, ANTHROPIC_AUTH_TOKEN …, read by the SDKs themselves) goes with its requests.
   */
  foreignEndpoint?: boolean;
}

const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";
const AZURE_DEFAULT_DEPLOYMENT_API_VERSION = "2025-03-01-preview";

function unsupported(resolved: ResolvedModel): UnsupportedModelError {
  return new UnsupportedModelError(`svc can't drive "${resolved.modelName}": unknown provider "${resolved.provider}"`, {
    hint: `supported providers: ${SUPPORTED_PROVIDERS.join(", ")}; or give a baseURL for any OpenAI-compatible endpoint`,
  });
}

/** Google service-account credentials (or Application Default Credentials) → a cached, refreshing access token. */
export function googleTokenProvider(resolved: ResolvedModel): TokenProvider {
  const auth = resolved.auth?.type === "googleServiceAccount" ? resolved.auth : undefined;
  let client: Promise<{ getAccessToken(): Promise<string | null | undefined> }> | undefined;
  return async () => {
    // Loaded on first use: google-auth-library is large and only Vertex needs it.
    client ??= import("google-auth-library").then(
      ({ GoogleAuth }) =>
        new GoogleAuth({
          ...(auth ? { credentials: auth.credentials } : {}),
          scopes: auth?.scopes ?? CLOUD_PLATFORM,
          ...(auth?.projectId ? { projectId: auth.projectId } : {}),
          ...(auth?.universeDomain ? { universeDomain: auth.universeDomain } : {}),
        }),
    );
    const token = await (await client).getAccessToken();
    if (!token) throw new MissingLLMConfigurationError(`${resolved.modelName}: Google auth returned no access token`, { hint: "check the service account credentials" });
    return token;
  };
}

function vertexBaseURL(resolved: ResolvedModel, env: NodeJS.ProcessEnv): string {
  if (resolved.baseURL) return resolved.baseURL;
  const project = resolved.vertex?.project ?? env.GOOGLE_VERTEX_PROJECT ?? env.GOOGLE_CLOUD_PROJECT;
  const location = resolved.vertex?.location ?? env.GOOGLE_VERTEX_LOCATION ?? env.GOOGLE_CLOUD_LOCATION ?? "us-central1";
  if (!project)
    throw new MissingLLMConfigurationError(`${resolved.modelName}: no Google Cloud project for Vertex`, {
      hint: "set GOOGLE_VERTEX_PROJECT, or pass a Vertex model config with providerOptions.vertex.project",
    });
  const domain = resolved.auth?.type === "googleServiceAccount" && resolved.auth.universeDomain ? resolved.auth.universeDomain : "googleapis.com";
  const host = location === "global" ? `aiplatform.${domain}` : `${location}-aiplatform.${domain}`;
  return `https://${host}/v1/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(location)}/endpoints/openapi`;
}

/** The `https://{resource}.openai.azure.com/openai` prefix (a baseURL may replace it). */
function azureRoot(resolved: ResolvedModel, env: NodeJS.ProcessEnv): string {
  if (resolved.baseURL) return resolved.baseURL.replace(/\/+$/, "");
  const resource = resolved.azure?.resourceName ?? env.AZURE_RESOURCE_NAME;
  if (!resource)
    throw new MissingLLMConfigurationError(`${resolved.modelName}: no Azure resource`, {
      hint: "pass providerOptions.azure.resourceName or baseURL, or set AZURE_RESOURCE_NAME",
    });
  return `https://${resource}.openai.azure.com/openai`;
}

/**
 * A user's base URL as its wire's SDK wants it. Either wire takes the server's origin or its `/v1`, with or
 * without a trailing slash: the openai SDK appends `/chat/completions` or `/responses` (so a bare origin
 * gets `/v1`), the Anthropic SDK appends `/v1/messages` (so a trailing `/v1` is dropped: never
 * `/v1/v1/messages`). Any other path (`…/v1beta/openai`, `…/openai/v1`) is kept as given.
 */
export function wireBaseURL(url: string, wire: "openai" | "anthropic"): string {
  const u = new URL(url);
  const tail = u.search + u.hash;
  const hasPath = u.pathname.replace(/\/+$/, "") !== "";
  u.search = "";
  u.hash = "";
  let base = u.href.replace(/\/+$/, "");
  if (wire === "anthropic") base = base.replace(/\/v1$/, "");
  else if (!hasPath) base = `${base}/v1`;
  return base + tail;
}

/** The URL prefix every request of a plan goes under (the Anthropic SDK adds `/v1` itself). */
function requestPrefix(plan: ClientPlan): string {
  const base = plan.baseURL ?? "";
  return plan.wire === "anthropic" && base ? `${base.replace(/\/+$/, "")}/v1` : base;
}

export function planClient(given: ResolvedModel, opts: ModelClientOptions = {}): ClientPlan {
  const env = opts.env ?? process.env;
  const field = opts.field ?? "model";
  const policy = opts.endpointPolicy;
  // The operator's endpoint for configs that choose none: theirs, so keys resolve as for the provider's.
  const operator = policy?.baseURL !== undefined && !choosesEndpoint(given);
  const resolved: ResolvedModel = operator ? { ...given, baseURL: policy.baseURL } : given;
  const info = providerInfo(resolved.provider);
  if (!info && !resolved.baseURL) throw unsupported(resolved);
  const wire = info?.wire ?? "openai";
  const entra = resolved.auth?.type === "azureEntraId" ? resolved.auth.token : undefined;
  // A local preset's loopback URL is checked like a chosen endpoint: only the operator may point svc at its own machine.
  const foreign = policy !== undefined && !operator && checkedEndpoint(resolved);
  const apiKey = opts.apiKey || (resolved.provider === "vertex" || entra ? undefined : resolveKeyFor(resolved, env, opts.stored, operator ? undefined : policy));
  if (foreign) refuseWithoutOwnCredential(resolved, field, apiKey, opts.tokenProvider);
  const headers = { ...resolved.headers };
  const plan: ClientPlan = {
    wire,
    provider: resolved.provider,
    model: resolved.model,
    modelName: resolved.modelName,
    format: resolved.openaiEndpointFormat,
    baseURL: resolved.baseURL !== undefined ? wireBaseURL(resolved.baseURL, wire) : info?.baseURL,
    headers,
    maxTokensField: resolved.capabilities?.maxTokensField ?? (resolved.provider === "openai" || resolved.provider === "azure" ? "max_completion_tokens" : "max_tokens"),
    ...(resolved.capabilities ? { capabilities: resolved.capabilities } : {}),
    defaults: { temperature: resolved.temperature, maxOutputTokens: resolved.maxTokens },
    maxRetries: opts.maxRetries ?? 2,
    timeoutMs: resolved.timeoutMs ?? opts.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS,
    fetch: opts.fetch,
    secrets: [],
    keyHint: envKeysFor(resolved.provider)[0],
  };
  if (apiKey) plan.apiKey = apiKey;

  switch (resolved.provider) {
    case "vertex": {
      // Vertex AI's OpenAI-compatible Chat Completions endpoint; Gemini models are addressed as `google/<model>`.
      plan.baseURL = vertexBaseURL(resolved, env);
      plan.format = "chat";
      plan.model = resolved.model.includes("/") ? resolved.model : `google/${resolved.model}`;
      plan.tokenProvider = opts.tokenProvider ?? googleTokenProvider(resolved);
      delete plan.apiKey;
      plan.keyHint = "the service account credentials";
      break;
    }
    case "azure": {
      const root = azureRoot(resolved, env);
      if (entra || opts.tokenProvider) {
        plan.tokenProvider = opts.tokenProvider ?? (async () => entra!);
        delete plan.apiKey;
        plan.keyHint = "the Entra ID token";
      }
      if (resolved.azure?.useDeploymentBasedUrls) {
        // /openai/deployments/{model}/chat/completions?api-version=…; the SDK's AzureOpenAI builds these.
        plan.baseURL = root;
        plan.azureDeployments = { apiVersion: resolved.azure.apiVersion ?? AZURE_DEFAULT_DEPLOYMENT_API_VERSION };
      } else {
        // The v1 API (/openai/v1/…) speaks the plain OpenAI surface, Responses included, with the key or
        // Entra token as a Bearer; `api-key` is sent as well for keys, which every Azure API version accepts.
        plan.baseURL = /\/v1$/.test(root) ? root : `${root}/v1`;
        if (resolved.azure?.apiVersion) plan.defaultQuery = { "api-version": resolved.azure.apiVersion };
        if (plan.apiKey) headers["api-key"] = plan.apiKey;
      }
      break;
    }
    case "bedrock": {
      // Bedrock's OpenAI-compatible Chat Completions endpoint, authenticated with a Bedrock API key
      // (AWS_BEARER_TOKEN_BEDROCK) as a Bearer token; no SigV4. The region comes from AWS_REGION.
      const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? "us-east-1";
      plan.baseURL = resolved.baseURL ?? `https://bedrock-runtime.${region}.amazonaws.com/openai/v1`;
      break;
    }
  }
  plan.secrets = [plan.apiKey, entra, ...Object.values(headers)].filter((s): s is string => typeof s === "string" && s.length > 0);
  if (foreign) {
    refuseUnlisted(resolved, requestPrefix(plan), policy, field);
    plan.foreignEndpoint = true;
    if (policy.fetch) plan.fetch = policy.fetch;
    // The environment is never consulted for this endpoint's key.
    if (plan.keyHint && !plan.tokenProvider) plan.keyHint = `${field}.apiKey`;
  }
  return plan;
}

/** Whether `headers` sets `name` (lower-case; any case in `headers`). */
export function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((k) => k.toLowerCase() === name);
}

/**
 * Wires that cannot go without a credential, when the config chose the endpoint and brought none: Azure
 * (its SDK would read AZURE_OPENAI_API_KEY itself) and Vertex (Google's default credentials are the
 * process owner's). Other wires go without one (see resolveKeyFor).
 */
function refuseWithoutOwnCredential(resolved: ResolvedModel, field: string, apiKey: string | undefined, tokenProvider: TokenProvider | undefined): void {
  if (apiKey || tokenProvider || resolved.auth) return;
  if (resolved.provider === "azure" || resolved.provider === "vertex") {
    const what = resolved.provider === "azure" ? "an apiKey or auth (Entra ID token)" : "auth (a service account)";
    throw new MissingLLMConfigurationError(`${field}: a ${resolved.provider} config that chooses its own endpoint needs its own credential: ${what}`);
  }
}

/**
 * A model config from someone else (a server's tenant), checked against `policy` before any call: a
 * chosen endpoint outside its `allow` list, or one that needs a credential it does not bring, throws
 * naming `field`. Configs that take the provider's endpoint pass.
 */
export function checkModelEndpoint(model: unknown, policy: ModelEndpointPolicy, field: string, env: NodeJS.ProcessEnv = process.env): void {
  if (model === undefined || model === null) return;
  const resolved = parseModelConfig(model, field);
  if (checkedEndpoint(resolved)) planClient(resolved, { env, endpointPolicy: policy, field });
}
