/**
 * A directory of JSON entries, one file per key, written with the one atomic writer (util/atomic-write.ts)
 * so a crash never leaves half an entry. Unreadable or foreign files are treated as misses, never as errors;
 * a failed write is a ServiceStateError (callers decide: the act and agent caches log it and go on).
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ServiceStateError } from "../errors.js";
import { writeFileAtomic } from "../util/atomic-write.js";

export function cacheKey(parts: unknown): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex").slice(0, 32);
}

export class JsonDirStore<T extends { version: number }> {
  constructor(
    private readonly dir: string,
    private readonly version: number,
  ) {}

  get(key: string): T | undefined {
    try {
      const value = JSON.parse(readFileSync(join(this.dir, `${key}.json`), "utf8")) as T;
      return value?.version === this.version ? value : undefined;
    } catch {
      return undefined;
    }
  }

  set(key: string, value: T): void {
    try {
      mkdirSync(this.dir, { recursive: true });
      writeFileAtomic(join(this.dir, `${key}.json`), JSON.stringify(value, null, 2));
    } catch (e) {
      throw new ServiceStateError(`cannot write the cache in ${this.dir}: ${(e as Error).message}`, { hint: "check cacheDir is a writable directory", cause: e });
    }
  }

  delete(key: string): void {
    rmSync(join(this.dir, `${key}.json`), { force: true });
  }
}

/** Origin + path + sorted query, no fragment: the "same page" for cache purposes. */
export function normalizeUrlForCache(raw: string): string {
  try {
    const u = new URL(raw);
    u.hash = "";
    u.searchParams.sort();
    return u.href;
  } catch {
    return raw;
  }
}
