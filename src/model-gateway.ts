/**
 * Where a Model Gateway request goes (svc serve's `POST /v1/llm/responses`, which Stagehand 4 sends its
 * OpenAI Responses API calls to when it holds no model key): the operator's model, resolved as every
 * other model config is — the operator's `modelBaseURL` when set, else the provider's endpoint, with the
 * key from the environment or `svc config`. The client names only the model (`provider/model`; absent or
 * `auto`: svc's default model); it can choose no endpoint, so no key of the operator's goes anywhere the
 * operator did not choose. The gateway speaks the Responses API only: a model on another wire (Anthropic)
 * is refused naming it.
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
