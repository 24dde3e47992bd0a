/**
 * The agent cache (with cacheDir): a successful run's executed tool calls — refs already turned into
 * XPaths by the performed Action records, variables kept as %name% — stored under a key made of the
 * instruction, the start URL, the run's shaping options (mode, output schema, useSearch) and the config
 * (model names, system prompt) plus variable NAMES. Budgets (maxSteps, maxTokens, timeoutMs,
 * toolTimeout) are not part of the key: they bound a run, they do not change its path. A replay needs
 * no model call; at the first step that no longer fits, the model takes over from there.
 */
import { join } from "node:path";
import { z } from "zod";
import { JsonDirStore, cacheKey, normalizeUrlForCache } from "../cache/store.js";
import type { Variables } from "../operations/variables.js";
import type { Masker } from "../util/secrets.js";
import type { ResolvedAgentConfig, ResolvedExecuteOptions } from "./options.js";
import type { ReplayStep } from "./tools.js";

export interface AgentCacheEntry {
  version: 1;
  instruction: string;
  url: string;
  variableNames: string[];
  steps: ReplayStep[];
  createdAt: string;
}

/** What one run sees of the cache: the entry found (if any) and how to store a new one. */
export interface AgentCacheSession {
  readonly key: string;
  readonly entry: AgentCacheEntry | undefined;
  save(steps: ReplayStep[]): void;
}

/** A model option as a name only (config objects may carry keys). */
export function modelLabel(model: unknown): string | undefined {
  if (model === undefined) return undefined;
  if (typeof model === "string") return model;
  const name = (model as { modelName?: unknown })?.modelName;
  return typeof name === "string" ? name : "custom";
}

export function agentCacheKey(url: string, config: ResolvedAgentConfig, options: ResolvedExecuteOptions, defaultModel: string): string {
  let output: unknown;
  if (options.output) {
    try {
      output = z.toJSONSchema(options.output, { unrepresentable: "any" });
    } catch {
      output = "unrepresentable";
    }
  }
  return cacheKey({
    kind: "agent",
    instruction: options.instruction.trim(),
    url: normalizeUrlForCache(url),
    variables: Object.keys(options.variables).sort(),
    mode: config.mode,
    model: modelLabel(config.model) ?? defaultModel,
    executionModel: modelLabel(config.executionModel) ?? defaultModel,
    systemPrompt: config.systemPrompt ?? null,
    output: output ?? null,
    useSearch: options.useSearch,
  });
}

export class AgentCache {
  private readonly store: JsonDirStore<AgentCacheEntry>;

  constructor(cacheDir: string) {
    this.store = new JsonDirStore<AgentCacheEntry>(join(cacheDir, "agent"), 1);
  }

  /** `mask`: the session's secrets (util/secrets.ts) — the file holds `%name%`, never a value. */
  session(key: string, instruction: string, url: string, variables: Variables, mask: Masker): AgentCacheSession {
    const found = this.store.get(key);
    const entry = found && Array.isArray(found.steps) ? found : undefined;
    return {
      key,
      entry,
      save: (steps) =>
        this.store.set(key, {
          version: 1,
          instruction: mask(instruction),
          url: mask(normalizeUrlForCache(url)),
          variableNames: Object.keys(variables),
          // A value the model wrote out literally is stored as its %name%, never as the value.
          steps: mask(steps),
          createdAt: new Date().toISOString(),
        }),
    };
  }

  get(key: string): AgentCacheEntry | undefined {
    return this.store.get(key);
  }

  delete(key: string): void {
    this.store.delete(key);
  }
}
