/**
 * Local model servers for `svc init`: the presets (src/model/providers.ts) and which of them answer on
 * this machine. A server answers when `GET <baseURL>/models` returns 200 with an OpenAI model list; its
 * model ids are offered as the default model name.
 */
import { PROVIDERS } from "../../src/internal.js";

export interface LocalServer {
  preset: "ollama" | "lmstudio" | "vllm" | "llamacpp";
  label: string;
  baseURL: string;
}

export const LOCAL_SERVERS: readonly LocalServer[] = [
  { preset: "ollama", label: "Ollama", baseURL: PROVIDERS.ollama.baseURL! },
  { preset: "lmstudio", label: "LM Studio", baseURL: PROVIDERS.lmstudio.baseURL! },
  { preset: "vllm", label: "vLLM", baseURL: PROVIDERS.vllm.baseURL! },
  { preset: "llamacpp", label: "llama.cpp server", baseURL: PROVIDERS.llamacpp.baseURL! },
];

export interface Probe {
  server: LocalServer;
  /** The ids `/models` listed; undefined: the server did not answer (or not with a model list). */
  models: string[] | undefined;
}

/** Asks `<baseURL>/models` of one server, bounded by `timeoutMs`. */
export async function probeModels(baseURL: string, timeoutMs = 1500): Promise<string[] | undefined> {
  try {
    const res = await fetch(`${baseURL.replace(/\/+$/, "")}/models`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return undefined;
    const body = (await res.json()) as { data?: Array<{ id?: unknown }> };
    if (!Array.isArray(body?.data)) return undefined;
    return body.data.map((m) => m.id).filter((id): id is string => typeof id === "string");
  } catch {
    return undefined;
  }
}

/** Every preset's server, probed at once. */
export async function probeLocalServers(servers: readonly LocalServer[] = LOCAL_SERVERS, timeoutMs?: number): Promise<Probe[]> {
  return Promise.all(servers.map(async (server) => ({ server, models: await probeModels(server.baseURL, timeoutMs) })));
}
