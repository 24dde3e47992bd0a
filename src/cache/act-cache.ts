/**
 * The action cache: a successful act(instruction) is stored under (instruction, normalized URL, variable
 * NAMES) and replayed with zero model calls. Entries hold actions with %var% references, never values.
 */
import { JsonDirStore, cacheKey, normalizeUrlForCache } from "./store.js";

export interface CachedAction {
  selector: string;
  description: string;
  method: string;
  arguments: string[];
}

export interface ActCacheEntry {
  version: 1;
  instruction: string;
  url: string;
  variableNames: string[];
  actions: CachedAction[];
  createdAt: string;
}

export class ActCache {
  private readonly store: JsonDirStore<ActCacheEntry>;

  constructor(dir: string) {
    this.store = new JsonDirStore<ActCacheEntry>(dir, 1);
  }

  key(instruction: string, url: string, variableNames: string[]): string {
    return cacheKey({ kind: "act", instruction: instruction.trim(), url: normalizeUrlForCache(url), variables: [...variableNames].sort() });
  }

  get(key: string): ActCacheEntry | undefined {
    return this.store.get(key);
  }

  set(key: string, entry: Omit<ActCacheEntry, "version" | "createdAt">): void {
    this.store.set(key, { version: 1, createdAt: new Date().toISOString(), ...entry, url: normalizeUrlForCache(entry.url) });
  }

  delete(key: string): void {
    this.store.delete(key);
  }
}
