/**
 * Where saved contexts live, as sealed blobs (features/contexts.ts seals and opens them): files under
 * `<dataDir>/contexts/<key fingerprint>/<id>` (written atomically) for a lone server, or values in the
 * cluster's Redis (`<prefix>context:<fingerprint>:<id>`) so every replica reads the same. Both also hold
 * the "in use" lock a persisting session takes (a lease with a random token, expiring by itself).
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { openRedis, type RedisClient } from "../cluster/redis-client.js";
import { writeFileAtomic } from "../../util/atomic-write.js";

export interface ContextBlobs {
  read(owner: string, id: string): Promise<Buffer | undefined>;
  write(owner: string, id: string, data: Buffer): Promise<void>;
  /** False when there was nothing to remove. */
  remove(owner: string, id: string): Promise<boolean>;
  /** A token when the lock was free (it lapses after ttlMs), undefined when another holder has it. */
  lock(owner: string, id: string, ttlMs: number): Promise<string | undefined>;
  unlock(owner: string, id: string, token: string): Promise<void>;
  close(): Promise<void>;
}

/** One process's locks (a file store is one server's). */
class MemoryLocks {
  private readonly held = new Map<string, { token: string; until: number }>();

  lock(key: string, ttlMs: number): string | undefined {
    const cur = this.held.get(key);
    if (cur && cur.until > Date.now()) return undefined;
    const token = randomBytes(12).toString("hex");
    this.held.set(key, { token, until: Date.now() + ttlMs });
    return token;
  }

  unlock(key: string, token: string): void {
    if (this.held.get(key)?.token === token) this.held.delete(key);
  }
}

export class FileContextBlobs implements ContextBlobs {
  private readonly locks = new MemoryLocks();

  constructor(private readonly root: string) {}

  private path(owner: string, id: string): string {
    return join(this.root, owner, id);
  }

  async read(owner: string, id: string): Promise<Buffer | undefined> {
    try {
      return readFileSync(this.path(owner, id));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw e;
    }
  }

  async write(owner: string, id: string, data: Buffer): Promise<void> {
    mkdirSync(join(this.root, owner), { recursive: true, mode: 0o700 });
    writeFileAtomic(this.path(owner, id), data, 0o600);
  }

  async remove(owner: string, id: string): Promise<boolean> {
    const had = (await this.read(owner, id)) !== undefined;
    rmSync(this.path(owner, id), { force: true });
    return had;
  }

  async lock(owner: string, id: string, ttlMs: number): Promise<string | undefined> {
    return this.locks.lock(`${owner}:${id}`, ttlMs);
  }

  async unlock(owner: string, id: string, token: string): Promise<void> {
    this.locks.unlock(`${owner}:${id}`, token);
  }

  async close(): Promise<void> {}
}

const UNLOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

export class RedisContextBlobs implements ContextBlobs {
  private readonly client: RedisClient;
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    // A context is up to 32 MiB: its commands get longer than the session store's.
    this.client = openRedis(url, 10_000);
    this.redis = this.client.redis;
  }

  connect(): Promise<void> {
    return this.client.connect();
  }

  private key(owner: string, id: string): string {
    return `${this.prefix}context:${owner}:${id}`;
  }

  private lockKey(owner: string, id: string): string {
    return `${this.prefix}context-lock:${owner}:${id}`;
  }

  async read(owner: string, id: string): Promise<Buffer | undefined> {
    return (await this.redis.getBuffer(this.key(owner, id))) ?? undefined;
  }

  async write(owner: string, id: string, data: Buffer): Promise<void> {
    await this.redis.set(this.key(owner, id), data);
  }

  async remove(owner: string, id: string): Promise<boolean> {
    return (await this.redis.del(this.key(owner, id))) > 0;
  }

  async lock(owner: string, id: string, ttlMs: number): Promise<string | undefined> {
    const token = randomBytes(12).toString("hex");
    const ok = await this.redis.set(this.lockKey(owner, id), token, "PX", ttlMs, "NX");
    return ok === "OK" ? token : undefined;
  }

  async unlock(owner: string, id: string, token: string): Promise<void> {
    await this.redis.eval(UNLOCK, 1, this.lockKey(owner, id), token);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
