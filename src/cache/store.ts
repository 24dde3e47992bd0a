/**
 * A directory of JSON entries, one file per key, written atomically (temp file + rename) so a crash never
 * leaves half an entry. Unreadable or foreign files are treated as misses, never as errors.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ServiceStateError } from "../errors.js";

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
    const file = join(this.dir, `${key}.json`);
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      mkdirSync(this.dir, { recursive: true });
      writeFileSync(tmp, JSON.stringify(value, null, 2), { mode: 0o600 });
      renameSync(tmp, file);
    } catch (e) {
      rmSync(tmp, { force: true });
      throw new ServiceStateError(`cannot write the cache in ${this.dir}: ${(e as Error).message}`, { hint: "check cacheDir is a writable directory" });
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
