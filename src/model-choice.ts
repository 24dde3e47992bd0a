/**
 * Which model serves a call: the call's `model`, else the instance's `llmClient`, else its `model` (or older
 * `modelName` + `modelClientOptions`), else the default. Clients are built on first use, so a missing key fails the
 * call that needs it, not `init()`. Every client handed out masks the session's secrets in all it sends
 * (model/masking.ts).
 */
import { ServiceInvalidArgumentError } from "./errors.js";
import { readStoredSetting } from "./store/config-file.js";
import { DEFAULT_MODEL } from "./store/settings-defs.js";
import { modelFromSettings, storedSettingsLookup, type SettingsModel } from "./settings.js";
import { contextWarning, contextWindowFor } from "./model/context-window.js";
import { createModelClient, fromLegacy, maskingClient, parseModelConfig, resolveApiKey, type LLMClient, type ModelEndpointPolicy, type ResolvedModel } from "./model/index.js";
import { Secrets } from "./util/secrets.js";

export { DEFAULT_MODEL };

export function isLLMClient(v: unknown): v is LLMClient {
  return !!v && typeof v === "object" && typeof (v as LLMClient).generate === "function" && typeof (v as LLMClient).modelName === "string";
}

/** The older generation's per-call `modelName` + `modelClientOptions` (extract(options)): resolved like the constructor's. */
export class LegacyModel {
  constructor(
    readonly modelName: string,
    readonly modelClientOptions: unknown,
  ) {}
}

export class ModelRegistry {
  private resolvedDefault: ResolvedModel | undefined;
  private settingsModel: SettingsModel | undefined;
  private readonly clients = new Map<string, LLMClient>();
  private readonly maskedCustom: LLMClient | undefined;

  constructor(
    private readonly spec: { model?: unknown; modelName?: string; modelClientOptions?: unknown },
    custom: LLMClient | undefined,
    /** Set when the configs come from someone else (a server's tenants): see src/model/endpoint-policy.ts. */
    private readonly endpointPolicy?: ModelEndpointPolicy,
    /** The session's secrets: masked out of every request of every client. */
    private readonly secrets: Secrets = new Secrets(),
    /** Said once per model: what svc assumes about its context window when it cannot know (the service's log). */
    private readonly warn?: (message: string) => void,
  ) {
    this.maskedCustom = custom ? maskingClient(custom, secrets) : undefined;
    if (spec.model !== undefined) this.resolvedDefault = parseModelConfig(spec.model, "model");
    else if (spec.modelName) this.resolvedDefault = fromLegacy(spec.modelName, spec.modelClientOptions);
  }

  /**
   * With no model option: the model the CLI's settings name (SVC_MODEL, SVC_MODEL_BASE_URL, `svc config` …),
   * read on first use so that a bad setting fails the call that needs a model, not the constructor. A
   * server's tenants (an endpoint policy) never get the server's own settings: only the default.
   */
  private fromSettings(): SettingsModel {
    this.settingsModel ??= this.endpointPolicy ? { modelName: DEFAULT_MODEL } : modelFromSettings(storedSettingsLookup()).model;
    return this.settingsModel;
  }

  /** The settings' model as a call would name it: the bare name when nothing else is set. */
  private settingsSource(): string | SettingsModel {
    const m = this.fromSettings();
    return Object.keys(m).length === 1 ? m.modelName : m;
  }

  private get defaultModel(): ResolvedModel {
    this.resolvedDefault ??= parseModelConfig(this.fromSettings());
    return this.resolvedDefault;
  }

  /** The client for a call; `override` is the call's `model` option (string or config object). */
  client(override?: unknown, field = "options.model"): LLMClient {
    if (override === undefined && this.maskedCustom) return this.maskedCustom;
    const resolved =
      override === undefined ? this.defaultModel : override instanceof LegacyModel ? fromLegacy(override.modelName, override.modelClientOptions) : parseModelConfig(override, field);
    const key = JSON.stringify(resolved);
    let client = this.clients.get(key);
    if (!client) {
      client = maskingClient(
        createModelClient(resolved, {
          stored: (provider) => readStoredSetting(`${provider}.apiKey`),
          ...(this.endpointPolicy ? { endpointPolicy: this.endpointPolicy, field: override === undefined ? "model" : field } : {}),
        }),
        this.secrets,
      );
      this.clients.set(key, client);
      const note = contextWarning(resolved.modelName, resolved.provider, contextWindowFor(resolved));
      if (note) this.warn?.(note);
    }
    return client;
  }

  /**
   * The model of a call as a session API wants it: the config without its key (the body may be stored
   * or logged by a proxy) and the key apart, for the `x-model-api-key` header. No key found is not an
   * error here: the server may hold its own.
   */
  wire(override?: unknown, field = "options.model"): { model: string | Record<string, unknown>; apiKey: string | undefined } {
    const source = override ?? this.spec.model ?? (this.spec.modelName ? new LegacyModel(this.spec.modelName, this.spec.modelClientOptions) : this.settingsSource());
    const resolved = source instanceof LegacyModel ? fromLegacy(source.modelName, source.modelClientOptions) : parseModelConfig(source, field);
    let apiKey: string | undefined;
    try {
      apiKey = resolveApiKey(resolved, process.env, (provider) => readStoredSetting(`${provider}.apiKey`));
    } catch {
      apiKey = undefined;
    }
    if (typeof source === "string") return { model: source, apiKey };
    if (source instanceof LegacyModel) return { model: resolved.modelName, apiKey };
    const { apiKey: _key, ...rest } = source as Record<string, unknown>;
    return { model: rest, apiKey };
  }

  static validateCustom(v: unknown): LLMClient | undefined {
    if (v === undefined) return undefined;
    if (!isLLMClient(v)) throw new ServiceInvalidArgumentError("llmClient: expected an object with modelName (string) and generate(request)");
    return v;
  }
}
