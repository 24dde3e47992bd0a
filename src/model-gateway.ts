/**
 * Where a Model Gateway request (`POST /v1/llm/responses`, Stagehand 4 without a model key) goes: the operator's
 * model, resolved like any model config, with the operator's key. The client names only the model (absent or `auto`:
 * the default); it can choose no endpoint, so no operator key goes anywhere the operator did not choose. Responses
 * API only: another wire is refused.
 */
import { ServiceInvalidArgumentError } from "./errors.js";
import { planClient, parseModelConfig, type FetchLike } from "./model/index.js";
import { DEFAULT_MODEL } from "./model-choice.js";
import { readStoredSetting } from "./store/config-file.js";

const OPENAI_API = "https://api.openai.com/v1";

export interface GatewayTarget {
  /** The `…/responses` URL to POST to. */
  url: string;
  /** Auth and the config's headers (hold a secret: never logged). */
  headers: Record<string, string>;
  /** The model as the endpoint knows it (`gpt-4.1-mini`, not `openai/gpt-4.1-mini`). */
  model: string;
  /** Values that must never be echoed back (the key). */
  secrets: string[];
  fetch?: FetchLike;
}

/** The operator's endpoint for `model` (a `provider/model` name; absent or "auto": the default model). */
export async function gatewayTarget(model: string | undefined, operatorBaseURL: string | undefined): Promise<GatewayTarget> {
  const name = model === undefined || model === "auto" ? DEFAULT_MODEL : model;
  const resolved = parseModelConfig(name, "model");
  // `allow: []` refuses any endpoint the name itself would choose (a local preset): only the operator's or the provider's.
  const plan = planClient(resolved, {
    field: "model",
    stored: (provider) => readStoredSetting(`${provider}.apiKey`),
    endpointPolicy: { allow: [], ...(operatorBaseURL ? { baseURL: operatorBaseURL } : {}) },
  });
  if (plan.foreignEndpoint) throw new ServiceInvalidArgumentError(`model: "${name}" names an endpoint of its own; the gateway serves the operator's models only`);
  if (plan.wire !== "openai" || plan.azureDeployments) throw new ServiceInvalidArgumentError(`model: "${name}" is not served over the OpenAI Responses API, the only one the gateway speaks`);
  const headers: Record<string, string> = { ...plan.headers };
  const bearer = plan.tokenProvider ? await plan.tokenProvider() : plan.apiKey;
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  const url = new URL(`${(plan.baseURL ?? OPENAI_API).replace(/\/+$/, "")}/responses`);
  for (const [k, v] of Object.entries(plan.defaultQuery ?? {})) url.searchParams.set(k, v);
  return { url: url.href, headers, model: plan.model, secrets: [bearer, ...plan.secrets].filter((s): s is string => !!s), ...(plan.fetch ? { fetch: plan.fetch } : {}) };
}
