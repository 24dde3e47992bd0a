/**
 * How many tokens a model endpoint takes in one request (prompt + answer): `model.contextWindow` when the
 * config states it, else the server's default for a local server, else the model's published window.
 * The snapshot sent to a model is budgeted to fit it (src/operations/budget.ts), so a server never has to
 * cut the prompt: OpenAI, Anthropic and vLLM refuse an oversized prompt with a 400, but Ollama, LM Studio
 * and llama.cpp's server may silently drop its start — the instruction and the system prompt go first.
 *
 * Local servers (ollama, lmstudio, llamacpp) load a model with a context of their own choosing, whatever
 * the model could take, and svc cannot change it through their OpenAI-compatible endpoint: Ollama's
 * `/v1/chat/completions` has no `num_ctx` or `options` field (openai/openai.go ChatCompletionRequest in
 * ollama/ollama; docs.ollama.com/api/openai-compatibility; ollama/ollama#2677, PR #5357 still open), LM
 * Studio and llama-server fix it when the model is loaded (`-c`/`--ctx-size`). So for them svc assumes
 * the servers' default (4,096 tokens: Ollama's default since v0.6.x, llama-server's `--ctx-size` default,
 * LM Studio's default load length) and says so once; `model.contextWindow` states the real one.
 * vLLM serves a model's full length (`--max-model-len` defaults to the model's), so the table applies.
 */
import type { ProviderName } from "./providers.js";

/** The context a local server (ollama, lmstudio, llamacpp) gives a model unless told otherwise. */
export const LOCAL_SERVER_DEFAULT_CONTEXT = 4096;

const LOCAL_SERVERS = new Set(["ollama", "lmstudio", "llamacpp"]);

/**
 * Published context windows, first match wins (patterns are matched against the model part, lower-cased,
 * and should stay specific: a wrong large figure is worse than none). Sources:
 * - OpenAI: platform.openai.com/docs/models (model pages: gpt-4.1 family 1,047,576; gpt-4o, gpt-4o-mini,
 *   gpt-4-turbo 128,000; o1, o3, o4-mini 200,000; gpt-5 family 400,000; gpt-3.5-turbo 16,385).
 * - Anthropic: docs.anthropic.com/en/docs/about-claude/models/overview (every Claude 3, 3.5, 3.7, 4 model:
 *   200,000).
 * - Google: ai.google.dev/gemini-api/docs/models (gemini-2.5-pro/flash, 2.0-flash, 1.5-flash: 1,048,576
 *   input; gemini-1.5-pro: 2,097,152).
 * - Meta Llama (model cards on huggingface.co/meta-llama): Llama 3 8B/70B 8,192; Llama 3.1, 3.2, 3.3
 *   128K = 131,072.
 * - Qwen2.5 (huggingface.co/Qwen/Qwen2.5-7B-Instruct: config 32,768; 131,072 only with YaRN enabled);
 *   Qwen3 (huggingface.co/Qwen/Qwen3-8B: 32,768 native).
 * - Mistral (huggingface.co/mistralai/Mistral-7B-Instruct-v0.3: 32,768; Mistral-Nemo-Instruct-2407: 128K).
 * - Gemma (ai.google.dev/gemma/docs: Gemma 2 8,192; Gemma 3 4B/12B/27B 128K, 1B 32K).
 */
const KNOWN: ReadonlyArray<readonly [RegExp, number]> = [
  [/^gpt-4\.1/, 1_047_576],
  [/^gpt-5/, 400_000],
  [/^(gpt-4o|chatgpt-4o|gpt-4-turbo)/, 128_000],
  [/^(o1|o3|o3-mini|o3-pro|o4-mini)(-\d{4}-\d{2}-\d{2})?$/, 200_000],
  [/^gpt-3\.5-turbo/, 16_385],
  [/^claude-/, 200_000],
  [/^gemini-1\.5-pro/, 2_097_152],
  [/^gemini-(1\.5-flash|2\.0-flash|2\.5-(pro|flash))/, 1_048_576],
  [/(^|\/)(meta-)?llama-?3\.[123]/, 131_072],
  [/(^|\/)(meta-)?llama-?3([:-]|$)/, 8_192],
  [/(^|\/)qwen2\.5/, 32_768],
  [/(^|\/)qwen3/, 32_768],
  [/(^|\/)mistral-nemo/, 131_072],
  [/(^|\/)mistral(:|-7b|$)/, 32_768],
  [/(^|\/)gemma-?3-?1b/, 32_768],
  [/(^|\/)gemma-?3/, 131_072],
  [/(^|\/)gemma-?2/, 8_192],
];

/** The published window of a model name (`llama3.1:8b`, `meta-llama/Llama-3.1-8B-Instruct`, `gpt-4o-mini`), if known. */
export function knownContextWindow(model: string): number | undefined {
  const m = model.trim().toLowerCase();
  return KNOWN.find(([re]) => re.test(m))?.[1];
}

export interface ContextWindow {
  tokens: number;
  /** config: `model.contextWindow`; server-default: a local server's assumed default; published: the table. */
  source: "config" | "server-default" | "published";
}

export function contextWindowFor(r: { provider: ProviderName; model: string; contextWindow?: number | undefined }): ContextWindow | undefined {
  if (r.contextWindow !== undefined) return { tokens: r.contextWindow, source: "config" };
  if (LOCAL_SERVERS.has(r.provider)) return { tokens: LOCAL_SERVER_DEFAULT_CONTEXT, source: "server-default" };
  const known = knownContextWindow(r.model);
  return known !== undefined ? { tokens: known, source: "published" } : undefined;
}

/** Said once per client when svc assumes a local server's context (it cannot set it): how to state the real one. */
export function contextWarning(modelName: string, provider: ProviderName, w: ContextWindow | undefined): string | undefined {
  if (w?.source !== "server-default") return undefined;
  const how =
    provider === "ollama"
      ? "Ollama's OpenAI-compatible endpoint cannot set num_ctx per request; the server's own setting (OLLAMA_CONTEXT_LENGTH, or PARAMETER num_ctx in a Modelfile) decides"
      : provider === "llamacpp"
        ? "llama-server's window is its --ctx-size"
        : "the server's window is the context length the model was loaded with";
  return `${modelName}: page snapshots are budgeted for a ${w.tokens}-token context window (the server's default; ${how}). If the server uses a larger one, set model.contextWindow to it; a smaller one would cut prompts silently.`;
}
