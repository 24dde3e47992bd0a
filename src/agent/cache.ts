/**
 * The agent cache (with cacheDir): a successful run's tool calls (refs already XPaths, variables kept as %name%) and its
 * answer, with a fingerprint of the page it was read from (fingerprint.ts). The key holds what shapes the run's path,
 * not its budgets; variable values enter it as salted HMACs, so a short value cannot be looked up. Replay and its page
 * check: run.ts, docs/agent.md.
 */
import { createHmac, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { JsonDirStore, cacheKey, normalizeUrlForCache } from "../cache/store.js";
import type { Variables } from "../operations/variables.js";
import { writeFileAtomic } from "../util/atomic-write.js";
import type { Masker } from "../util/secrets.js";
import type { ResolvedAgentConfig, ResolvedExecuteOptions } from "./options.js";
import type { ReplayStep } from "./tools.js";

/** Version 2: no `done` step, keyed with value digests (version-1 entries are ignored). */
const VERSION = 2;

export interface AgentCacheEntry {
  version: typeof VERSION;
  instruction: string;
  url: string;
  variableNames: string[];
  steps: ReplayStep[];
  /** The run's final answer and the fingerprint of the page it was read from (masked like the steps). */
  answer?: CachedAnswer | undefined;
  createdAt: string;
}

export interface CachedAnswer {
  message: string;
  success: boolean;
  output?: unknown;
  fingerprint: string;
}

/** What one run sees of the cache: the entry found (if any) and how to store a new one. */
export interface AgentCacheSession {
  readonly key: string;
  readonly entry: AgentCacheEntry | undefined;
  save(steps: ReplayStep[], answer?: CachedAnswer): void;
}

/** A model option as a name only (config objects may carry keys). */
export function modelLabel(model: unknown): string | undefined {
  if (model === undefined) return undefined;
  if (typeof model === "string") return model;
  const name = (model as { modelName?: unknown })?.modelName;
  return typeof name === "string" ? name : "custom";
}

/** `[name, digest]` per variable, by name: what the key knows of the values. */
function valueDigests(variables: Variables, salt: Uint8Array): Array<[string, string]> {
  return Object.keys(variables)
    .sort()
    .map((name) => {
      const v = variables[name]!;
      const value = String(typeof v === "object" ? v.value : v);
      return [name, createHmac("sha256", salt).update(`${name}\0${value}`).digest("hex")];
    });
}

export function agentCacheKey(url: string, config: ResolvedAgentConfig, options: ResolvedExecuteOptions, defaultModel: string, salt: Uint8Array): string {
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
    version: VERSION,
    instruction: options.instruction.trim(),
    url: normalizeUrlForCache(url),
    variables: valueDigests(options.variables, salt),
    mode: config.mode,
    model: modelLabel(config.model) ?? defaultModel,
    executionModel: modelLabel(config.executionModel) ?? defaultModel,
    systemPrompt: config.systemPrompt ?? null,
    output: output ?? null,
    useSearch: options.useSearch,
  });
}

const withoutDone = (steps: readonly ReplayStep[]) => steps.filter((s) => s.tool !== "done");

export class AgentCache {
  private readonly dir: string;
  private readonly store: JsonDirStore<AgentCacheEntry>;
  private saltBytes: Buffer | undefined;

  constructor(cacheDir: string) {
    this.dir = join(cacheDir, "agent");
    this.store = new JsonDirStore<AgentCacheEntry>(this.dir, VERSION);
  }

  /**
   * The directory's salt (`agent/.salt`, created on first use; the first process to create it wins). When
   * the directory cannot be written, this process keeps a salt of its own: nothing is stored then anyway.
   */
  salt(): Buffer {
    if (this.saltBytes) return this.saltBytes;
    const file = join(this.dir, ".salt");
    const read = () => {
      try {
        const b = Buffer.from(readFileSync(file, "utf8").trim(), "hex");
        return b.length >= 16 ? b : undefined;
      } catch {
        return undefined;
      }
    };
    let salt = read();
    if (!salt) {
      const fresh = randomBytes(32);
      try {
        mkdirSync(this.dir, { recursive: true });
        writeFileAtomic(file, fresh.toString("hex"), 0o600, { exclusive: true });
      } catch {
        // Created meanwhile by another process (read it), or not writable (keep ours).
      }
      salt = read() ?? fresh;
    }
    return (this.saltBytes = salt);
  }

  key(url: string, config: ResolvedAgentConfig, options: ResolvedExecuteOptions, defaultModel: string): string {
    return agentCacheKey(url, config, options, defaultModel, this.salt());
  }

  /** `mask`: the session's secrets (util/secrets.ts) — the file holds `%name%`, never a value. */
  session(key: string, instruction: string, url: string, variables: Variables, mask: Masker): AgentCacheSession {
    const found = this.store.get(key);
    const entry = found && Array.isArray(found.steps) ? { ...found, steps: withoutDone(found.steps) } : undefined;
    return {
      key,
      entry,
      save: (steps, answer) =>
        this.store.set(key, {
          version: VERSION,
          instruction: mask(instruction),
          url: mask(normalizeUrlForCache(url)),
          variableNames: Object.keys(variables),
          // A value the model wrote out literally is stored as its %name%, never as the value.
          steps: mask(withoutDone(steps)),
          // An answer that would need masking (it shows a value) is not kept: the model answers each time.
          ...(answer && JSON.stringify(mask(answer)) === JSON.stringify(answer) ? { answer } : {}),
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
