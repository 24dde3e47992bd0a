/**
 * What svc knows about each model provider: which wire format reaches it, where, and which environment
 * variables hold its key. Everything not Anthropic goes through the openai SDK (Responses or Chat
 * Completions), so adding an OpenAI-compatible provider is one row here, not a new client.
 */

export type OpenAIEndpointFormat = "responses" | "chat";

export type KnownProvider =
  | "openai"
  | "anthropic"
  | "google"
  | "azure"
  | "vertex"
  | "bedrock"
  | "groq"
  | "deepseek"
  | "mistral"
  | "xai"
  | "cerebras"
  | "together"
  | "fireworks"
  | "openrouter"
  | "ollama"
  | "lmstudio"
  | "vllm"
  | "llamacpp";

/** A known provider, or the prefix of any other `provider/model` (driven only with an explicit baseURL). */
export type ProviderName = KnownProvider | (string & {});

export interface ProviderInfo {
  wire: "openai" | "anthropic";
  /** Default for the openai wire; an explicit `openaiEndpointFormat` wins. */
  format: OpenAIEndpointFormat;
  /** Fixed base URL (azure, vertex and bedrock derive theirs from options; see endpoint.ts). */
  baseURL?: string;
  /** Checked in order; the first is the one named in "set X" messages. */
  envKeys: string[];
  /** Runs on the user's machine and normally has no auth: a key is optional. */
  local?: boolean;
  /** Authenticates with something other than an API key (service account, Entra token). */
  tokenAuth?: boolean;
}

export const PROVIDERS: Record<KnownProvider, ProviderInfo> = {
  openai: { wire: "openai", format: "responses", envKeys: ["OPENAI_API_KEY"] },
  anthropic: { wire: "anthropic", format: "responses", envKeys: ["ANTHROPIC_API_KEY"] },
  google: {
    wire: "openai",
    format: "chat",
    baseURL: "https://generativelanguage.googleapis.com/v1beta/openai/",
    envKeys: ["GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY"],
  },
  azure: { wire: "openai", format: "responses", envKeys: ["AZURE_API_KEY", "AZURE_OPENAI_API_KEY"] },
  vertex: { wire: "openai", format: "chat", envKeys: [], tokenAuth: true },
  bedrock: { wire: "openai", format: "chat", envKeys: ["AWS_BEARER_TOKEN_BEDROCK", "BEDROCK_API_KEY"] },
  groq: { wire: "openai", format: "chat", baseURL: "https://api.groq.com/openai/v1", envKeys: ["GROQ_API_KEY"] },
  deepseek: { wire: "openai", format: "chat", baseURL: "https://api.deepseek.com/v1", envKeys: ["DEEPSEEK_API_KEY"] },
  mistral: { wire: "openai", format: "chat", baseURL: "https://api.mistral.ai/v1", envKeys: ["MISTRAL_API_KEY"] },
  xai: { wire: "openai", format: "chat", baseURL: "https://api.x.ai/v1", envKeys: ["XAI_API_KEY"] },
  cerebras: { wire: "openai", format: "chat", baseURL: "https://api.cerebras.ai/v1", envKeys: ["CEREBRAS_API_KEY"] },
  together: { wire: "openai", format: "chat", baseURL: "https://api.together.xyz/v1", envKeys: ["TOGETHER_API_KEY", "TOGETHER_AI_API_KEY"] },
  fireworks: { wire: "openai", format: "chat", baseURL: "https://api.fireworks.ai/inference/v1", envKeys: ["FIREWORKS_API_KEY"] },
  openrouter: { wire: "openai", format: "chat", baseURL: "https://openrouter.ai/api/v1", envKeys: ["OPENROUTER_API_KEY"] },
  ollama: { wire: "openai", format: "chat", baseURL: "http://localhost:11434/v1", envKeys: ["OLLAMA_API_KEY"], local: true },
  lmstudio: { wire: "openai", format: "chat", baseURL: "http://localhost:1234/v1", envKeys: ["LMSTUDIO_API_KEY"], local: true },
  vllm: { wire: "openai", format: "chat", baseURL: "http://localhost:8000/v1", envKeys: ["VLLM_API_KEY"], local: true },
  // llama.cpp's `llama-server` (tools/server/README.md: listens on 127.0.0.1:8080 unless --port is given).
  llamacpp: { wire: "openai", format: "chat", baseURL: "http://localhost:8080/v1", envKeys: ["LLAMACPP_API_KEY"], local: true },
};

/** Other spellings users reach for. */
const ALIASES: Record<string, KnownProvider> = {
  microsoft: "azure",
  gemini: "google",
  "lm-studio": "lmstudio",
  "llama.cpp": "llamacpp",
  "llama-cpp": "llamacpp",
  "google-vertex": "vertex",
  "amazon-bedrock": "bedrock",
  aws: "bedrock",
  "x-ai": "xai",
};

export function normalizeProvider(prefix: string): ProviderName {
  const p = prefix.trim().toLowerCase();
  return ALIASES[p] ?? p;
}

export function providerInfo(provider: ProviderName): ProviderInfo | undefined {
  return Object.hasOwn(PROVIDERS, provider) ? PROVIDERS[provider as KnownProvider] : undefined;
}

export function isKnownProvider(provider: string): provider is KnownProvider {
  return Object.hasOwn(PROVIDERS, provider);
}

export const SUPPORTED_PROVIDERS = Object.keys(PROVIDERS) as KnownProvider[];

/** `<PROVIDER>_API_KEY` and friends for any provider, known or not. */
export function envKeysFor(provider: ProviderName): string[] {
  return providerInfo(provider)?.envKeys ?? [`${provider.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_API_KEY`];
}

export function defaultFormat(provider: ProviderName): OpenAIEndpointFormat {
  return providerInfo(provider)?.format ?? "responses";
}

/** A base URL on this machine (a local server, a test's fake model): no key is required. */
export function isLoopbackURL(url: string | undefined): boolean {
  if (!url) return false;
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
    return host === "localhost" || host.endsWith(".localhost") || /^127\./.test(host) || host === "::1" || host === "0.0.0.0";
  } catch {
    return false;
  }
}
