/**
 * The session store in Redis, shared by every replica: per session a hash of the record (expiring `retentionMs` after
 * the session), a lease key `<replica>:<generation>` set with PX leaseMs + graceMs (Redis expires a lease nobody
 * renews), and per API key a sorted set of session ids. Claim, renew, update and settle are Lua scripts, so each
 * check-and-write is atomic.
 */
import type { Redis } from "ioredis";
import { openRedis, type RedisClient } from "./redis-client.js";
import type { Held, NewRecord, RecordPatch, Renewal, SessionKind, SessionRecord, SessionStore, StoredSession, StoreTiming } from "./store.js";

// KEYS: record, lease, index. ARGV: replica, leaseMs, dropAtMs, score, id, then field/value pairs.
const CLAIM = `
local cur = redis.call('GET', KEYS[2])
if cur and string.sub(cur, 1, string.len(ARGV[1]) + 1) ~= ARGV[1] .. ':' then return 0 end
local gen = redis.call('HINCRBY', KEYS[1], 'generation', 1)
redis.call('HDEL', KEYS[1], 'endedReason', 'fenced')
for i = 6, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
redis.call('SET', KEYS[2], ARGV[1] .. ':' .. gen, 'PX', ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[5])
return gen`;

// KEYS: lease, record. ARGV: replica:generation, holdMs (lease + grace), retentionMs. 1: renewed; 2: the lease
// had lapsed but the record is still this generation's, running and not fenced: taken back; 0: lost. A live
// session's record is kept at least retentionMs past its last renewal (a session-API session may outlive the
// expiry it was claimed with).
const RENEW = `
local cur = redis.call('GET', KEYS[1])
local out = 1
if cur ~= ARGV[1] then
  if cur then return 0 end
  local f = redis.call('HMGET', KEYS[2], 'replica', 'generation', 'status', 'fenced')
  if not f[1] or not f[2] or (f[1] .. ':' .. f[2]) ~= ARGV[1] or f[3] ~= 'RUNNING' or f[4] then return 0 end
  out = 2
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
return out`;

// KEYS: record, lease. A running record without a live lease is marked fenced (its owner can no longer
// take it back); returns the record's fields and the lease, as read after that.
const SETTLE = `
if redis.call('EXISTS', KEYS[2]) == 0 and redis.call('HGET', KEYS[1], 'status') == 'RUNNING' then
  redis.call('HSET', KEYS[1], 'fenced', '1')
end
return {redis.call('HGETALL', KEYS[1]), redis.call('GET', KEYS[2])}`;

// KEYS: record, lease. ARGV: replica, generation, dropAtMs or '', ended ('1'/'0'), then field/value pairs.
const UPDATE = `
if redis.call('HGET', KEYS[1], 'replica') ~= ARGV[1] or redis.call('HGET', KEYS[1], 'generation') ~= ARGV[2] or redis.call('HEXISTS', KEYS[1], 'fenced') == 1 then return 0 end
for i = 5, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
if ARGV[3] ~= '' then redis.call('PEXPIREAT', KEYS[1], ARGV[3]) end
if ARGV[4] == '1' and redis.call('GET', KEYS[2]) == ARGV[1] .. ':' .. ARGV[2] then redis.call('DEL', KEYS[2]) end
return 1`;

type Scripted = Redis & {
  svcClaim(record: string, lease: string, index: string, ...args: (string | number)[]): Promise<number>;
  svcRenew(lease: string, record: string, token: string, leaseMs: number, retentionMs: number): Promise<number>;
  svcUpdate(record: string, lease: string, ...args: (string | number)[]): Promise<number>;
  svcSettle(record: string, lease: string): Promise<[string[], string | null]>;
};

export interface RedisStoreOptions extends StoreTiming {
  url: string;
  /** Key prefix (default `svc:`), so several clusters can share one Redis. */
  prefix?: string;
  /** Longest a Redis command may take before the request depending on it fails (ms). */
  commandTimeoutMs?: number;
}

export class RedisStore implements SessionStore {
  private readonly redis: Scripted;
  private readonly client: RedisClient;
  private readonly prefix: string;

  constructor(private readonly options: RedisStoreOptions) {
    this.prefix = options.prefix ?? "svc:";
    this.client = openRedis(options.url, options.commandTimeoutMs ?? 3000);
    const redis = this.client.redis;
    redis.defineCommand("svcClaim", { numberOfKeys: 3, lua: CLAIM });
    redis.defineCommand("svcRenew", { numberOfKeys: 2, lua: RENEW });
    redis.defineCommand("svcUpdate", { numberOfKeys: 2, lua: UPDATE });
    redis.defineCommand("svcSettle", { numberOfKeys: 2, lua: SETTLE });
    this.redis = redis as Scripted;
  }

  /** Connects and checks Redis answers (startup fails with a clear error otherwise). */
  connect(): Promise<void> {
    return this.client.connect();
  }

  /** How long a lease lives past its last renewal. */
  private get holdMs(): number {
    return this.options.leaseMs + this.options.graceMs;
  }

  private recordKey(kind: SessionKind, id: string): string {
    return `${this.prefix}session:${kind}:${id}`;
  }

  private leaseKey(kind: SessionKind, id: string): string {
    return `${this.prefix}lease:${kind}:${id}`;
  }

  private indexKey(fingerprint: string, kind: SessionKind): string {
    return `${this.prefix}key:${fingerprint}:${kind}`;
  }

  async claim(r: NewRecord): Promise<number | undefined> {
    const gen = await this.redis.svcClaim(
      this.recordKey(r.kind, r.id),
      this.leaseKey(r.kind, r.id),
      this.indexKey(r.keyFingerprint, r.kind),
      r.replica,
      this.holdMs,
      r.expiresAt + this.options.retentionMs,
      Date.now(),
      r.id,
      ...fields(r),
    );
    return gen > 0 ? gen : undefined;
  }

  async renew(held: readonly Held[]): Promise<Renewal> {
    const out: Renewal = { lost: [], reclaimed: [] };
    if (!held.length) return out;
    const pipe = this.redis.pipeline() as ReturnType<Redis["pipeline"]> & { svcRenew(lease: string, record: string, token: string, leaseMs: number, retentionMs: number): unknown };
    for (const h of held) pipe.svcRenew(this.leaseKey(h.kind, h.id), this.recordKey(h.kind, h.id), `${h.replica}:${h.generation}`, this.holdMs, this.options.retentionMs);
    const results = (await pipe.exec()) ?? [];
    held.forEach((h, i) => {
      const [err, ok] = results[i] ?? [new Error("no answer"), 0];
      if (err) throw err;
      if (Number(ok) === 0) out.lost.push(h);
      else if (Number(ok) === 2) out.reclaimed.push(h);
    });
    return out;
  }

  async update(h: Held, patch: RecordPatch): Promise<boolean> {
    const ended = patch.status !== undefined && patch.status !== "RUNNING";
    const dropAt = patch.expiresAt !== undefined ? patch.expiresAt + this.options.retentionMs : "";
    const ok = await this.redis.svcUpdate(this.recordKey(h.kind, h.id), this.leaseKey(h.kind, h.id), h.replica, h.generation, dropAt, ended ? "1" : "0", ...fields(patch));
    return ok === 1;
  }

  async get(kind: SessionKind, id: string): Promise<StoredSession | undefined> {
    const [[e1, hash], [e2, lease]] = ((await this.redis.multi().hgetall(this.recordKey(kind, id)).get(this.leaseKey(kind, id)).exec()) ?? []) as [Error | null, unknown][];
    if (e1 || e2) throw e1 ?? e2;
    return toStored(hash as Record<string, string>, lease as string | null);
  }

  async settle(kind: SessionKind, id: string): Promise<StoredSession | undefined> {
    const [flat, lease] = await this.redis.svcSettle(this.recordKey(kind, id), this.leaseKey(kind, id));
    const hash: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) hash[flat[i]!] = flat[i + 1]!;
    return toStored(hash, lease);
  }

  async list(fingerprint: string, kind: SessionKind): Promise<StoredSession[]> {
    const index = this.indexKey(fingerprint, kind);
    const ids = await this.redis.zrevrange(index, 0, -1);
    if (!ids.length) return [];
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hgetall(this.recordKey(kind, id)).get(this.leaseKey(kind, id));
    const results = (await pipe.exec()) ?? [];
    const out: StoredSession[] = [];
    const gone: string[] = [];
    ids.forEach((id, i) => {
      const [e1, hash] = results[2 * i] ?? [];
      const [e2, lease] = results[2 * i + 1] ?? [];
      if (e1 || e2) throw e1 ?? e2;
      const s = toStored(hash as Record<string, string>, lease as string | null);
      if (s) out.push(s);
      else gone.push(id);
    });
    // Records past their retention expired by themselves: their index entries go too.
    if (gone.length) await this.redis.zrem(index, ...gone);
    return out;
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/** A record's (or patch's) fields as HSET arguments; the generation is the script's to set. */
function fields(r: Partial<SessionRecord>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(r)) if (v !== undefined && k !== "generation") out.push(k, String(v));
  return out;
}

function toStored(h: Record<string, string> | null, lease: string | null): StoredSession | undefined {
  if (!h || !h.id || !h.replica) return undefined;
  const record: SessionRecord = {
    id: h.id,
    kind: h.kind === "api" ? "api" : "platform",
    replica: h.replica,
    ownerUrl: h.ownerUrl ?? "",
    keyFingerprint: h.keyFingerprint ?? "",
    status: h.status ?? "RUNNING",
    expiresAt: Number(h.expiresAt),
    lastActivity: Number(h.lastActivity),
    ...(h.endedReason ? { endedReason: h.endedReason } : {}),
    generation: Number(h.generation),
    ...(h.fenced ? { fenced: true } : {}),
  };
  return { record, leased: lease === `${record.replica}:${record.generation}` };
}
