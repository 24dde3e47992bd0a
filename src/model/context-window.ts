/**
 * How many tokens an endpoint takes per request: `model.contextWindow`, else a local server's default, else the
 * model's published window. The snapshot is budgeted to fit (operations/budget.ts): Ollama, LM Studio and llama.cpp
 * silently drop an oversized prompt's start. svc cannot set their window over the OpenAI-compatible API, so it
 * assumes their 4,096 default and says so (docs/models.md).
 */
import type { ProviderName } from "./providers.js";

/** The context a local server (ollama, lmstudio, llamacpp) gives a model unless told otherwise. */
export const LOCAL_SERVER_DEFAULT_CONTEXT = 4096;

const LOCAL_SERVERS = new Set(["ollama", "lmstudio", "llamacpp"]);

/**
 * Published context windows, first match wins, matched against the lower-cased model part. Keep patterns specific: a
 * wrong large figure is worse than none. Sources: docs/models.md, Context windows.
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
