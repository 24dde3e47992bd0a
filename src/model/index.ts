/** The model layer's public surface: config parsing, key resolution, the client factory, usage helpers. */
export type { GenerateRequest, GenerateResult, LLMClient, ModelImage, ModelMessage, ModelUsage, StructuredOutput } from "./types.js";
export { emptyUsage } from "./types.js";
export {
  AzureApiKeyModelConfigObject,
  AzureEntraIdAuth,
  AzureEntraModelConfigObject,
  AzureModelConfigObject,
  AzureProviderOptions,
  GenericModelConfigObject,
  GoogleServiceAccountAuth,
  GoogleServiceAccountCredentials,
  type ModelConfig,
  ModelConfigObjectSchema,
  ModelConfigSchema,
  type ResolvedModel,
  VertexModelConfigObject,
  VertexProviderOptions,
  fromLegacy,
  guessProvider,
  isBareModelName,
  parseModelConfig,
  parseModelString,
} from "./config.js";
export { type StoredKeyLookup, MissingModelKeyError, keyOptional, keyVariables, missingKeyError, resolveApiKey, resolveKeyFor } from "./keys.js";
export { type KnownProvider, type OpenAIEndpointFormat, type ProviderName, PROVIDERS, SUPPORTED_PROVIDERS, envKeysFor, isKnownProvider } from "./providers.js";
export { type ClientPlan, type FetchLike, type ModelClientOptions, type TokenProvider, checkModelEndpoint, googleTokenProvider, planClient } from "./endpoint.js";
export { type ModelEndpointPolicy, choosesEndpoint, underPrefix } from "./endpoint-policy.js";
export { createModelClient } from "./factory.js";
export { type ModelCapabilities, ModelCapabilitiesSchema, STRUCTURED_OUTPUT_LEVELS, forgetLearned, learnedFor } from "./capabilities.js";
export { maskingClient } from "./masking.js";
export { accumulateUsage, addUsage, sumUsage, totalTokens } from "./usage.js";
