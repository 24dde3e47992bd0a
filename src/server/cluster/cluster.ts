/**
 * This replica's part in a cluster sharing one session store (store.ts): it claims the sessions it starts, renews
 * their leases, records their end and says where a session lives for forwarding (forward-*.ts). It retakes a lapsed
 * lease nobody fenced, ends a session it lost (`onLost`), and renews before serving when its last renewal is old
 * (`ensureHeld`), so it never serves a fenced session.
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import type { Held, SessionKind, SessionRegistry, SessionStore, StoredSession } from "./store.js";
import { ConflictError, GoneError, UnavailableError } from "../failures.js";

/** The header a replica's forwarded request carries: the cluster secret. */
export const PEER_HEADER = "x-svc-cluster-secret";

export interface ClusterOptions {
  store: SessionStore;
  /** How other replicas reach this one (http://host:port); known once the server listens. */
  advertiseUrl(): string;
  secret: string;
  /** This replica's renewals are fresh for this long (the store's lease lapses graceMs later). */
  leaseMs: number;
  graceMs: number;
  heartbeatMs: number;
  /** Longest a forwarded request waits for the owner's TCP connection. */
  connectTimeoutMs: number;
  log(line: string): void;
}

/** Where a request for a session goes. */
export type Location = { at: "here" } | { at: "unknown" } | { at: "peer"; url: string; stored: StoredSession } | { at: "gone"; error: GoneError; stored: StoredSession };

export class Cluster implements SessionRegistry {
  /** This process's id in the store (a restarted replica is a new one). */
  readonly replica = randomUUID();
  readonly connectTimeoutMs: number;
  private readonly held = new Map<string, Held>();
  private readonly active = new Set<string>();
  private readonly secretDigest: Buffer;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  /** When the last successful renewal was sent: every held lease lives at least leaseMs + graceMs past it. */
  private renewedAt = Date.now();
  /** Ends being recorded: close() waits for them. */
  private readonly writing = new Set<Promise<void>>();
  private closed = false;
  /** Set by the server: ends a session this replica no longer owns. */
  onLost: (kind: SessionKind, id: string) => void = () => {};

  constructor(private readonly options: ClusterOptions) {
    this.connectTimeoutMs = options.connectTimeoutMs;
    this.secretDigest = digest(options.secret);
    this.timer = setInterval(() => void this.heartbeat(), options.heartbeatMs);
    this.timer.unref();
  }

  get advertiseUrl(): string {
    return this.options.advertiseUrl().replace(/\/+$/, "");
  }

  get secret(): string {
    return this.options.secret;
  }

  /** Whether a request came from a replica of this cluster: undefined without the header, else whether its secret is right. */
  isPeer(header: string | undefined): boolean | undefined {
    if (header === undefined) return undefined;
    return timingSafeEqual(digest(header), this.secretDigest);
  }

  /** Records a session this replica just started; a 503 when the store refuses or fails (the caller ends it). */
  async claim(kind: SessionKind, id: string, keyFingerprint: string, expiresAt: number): Promise<void> {
    const now = Date.now();
    let generation: number | undefined;
    try {
      generation = await this.options.store.claim({ id, kind, replica: this.replica, ownerUrl: this.advertiseUrl, keyFingerprint, status: "RUNNING", expiresAt, lastActivity: now });
    } catch (e) {
      this.options.log(`cluster: recording ${kind} session ${id} failed: ${(e as Error).message}`);
      throw new UnavailableError("the session store did not answer; retry later", { retryAfterS: 5 });
    }
    if (generation === undefined) throw new ConflictError(`session ${id} is owned by another replica`);
    this.held.set(`${kind}:${id}`, { kind, id, replica: this.replica, generation });
  }

  /** A request reached a session held here: its lastActivity is written on the next heartbeat. */
  touched(kind: SessionKind, id: string): void {
    if (this.held.has(`${kind}:${id}`)) this.active.add(`${kind}:${id}`);
  }

  /** Records a session's end (it stays listable with its status until its retention ends). */
  async ended(kind: SessionKind, id: string, status: string, reason: string): Promise<void> {
    const h = this.held.get(`${kind}:${id}`);
    if (!h) return;
    this.held.delete(`${kind}:${id}`);
    this.active.delete(`${kind}:${id}`);
    const write = this.options.store.update(h, { status, endedReason: reason, lastActivity: Date.now() }).then(
      () => {},
      // Its lease lapses by itself: other replicas then answer 410 for it.
      (e: unknown) => this.options.log(`cluster: recording the end of ${kind} session ${id} failed: ${(e as Error).message}`),
    );
    this.writing.add(write);
    await write.finally(() => this.writing.delete(write));
  }

  /** Where a request for this session is served. */
  async locate(kind: SessionKind, id: string): Promise<Location> {
    if (this.held.has(`${kind}:${id}`)) return { at: "here" };
    let stored: StoredSession | undefined;
    try {
      stored = await this.options.store.get(kind, id);
    } catch (e) {
      this.options.log(`cluster: looking up ${kind} session ${id} failed: ${(e as Error).message}`);
      throw new UnavailableError("the session store did not answer; retry later", { retryAfterS: 5 });
    }
    if (!stored) return { at: "unknown" };
    // Its own record: served here, unless another replica declared it gone (this replica then ended it).
    if (stored.record.replica === this.replica) return stored.record.fenced ? { at: "gone", error: goneError(stored), stored } : { at: "here" };
    // An ended session's owner keeps it (listable, 404/410 on its routes as a single server answers): it
    // is asked too; when it is gone as well, goneNow() says the session ended.
    if (stored.leased || stored.record.status !== "RUNNING") return { at: "peer", url: stored.record.ownerUrl, stored };
    // Its lease lapsed: fence it before saying it is gone (its owner may have taken it back meanwhile).
    const settled = await this.settle(kind, id);
    if (!settled) return { at: "unknown" };
    if (settled.leased || settled.record.status !== "RUNNING") return { at: "peer", url: settled.record.ownerUrl, stored: settled };
    return { at: "gone", error: goneError(settled), stored: settled };
  }

  /** After a forward failed: the 410 when the owner's lease has lapsed meanwhile, else undefined. */
  async goneNow(kind: SessionKind, id: string): Promise<GoneError | undefined> {
    const stored = await this.options.store.settle(kind, id).catch(() => undefined);
    return stored && !stored.leased ? goneError(stored) : undefined;
  }

  private async settle(kind: SessionKind, id: string): Promise<StoredSession | undefined> {
    try {
      return await this.options.store.settle(kind, id);
    } catch (e) {
      this.options.log(`cluster: settling ${kind} session ${id} failed: ${(e as Error).message}`);
      throw new UnavailableError("the session store did not answer; retry later", { retryAfterS: 5 });
    }
  }

  /** Every record of a key and kind across the cluster. */
  async list(keyFingerprint: string, kind: SessionKind): Promise<StoredSession[]> {
    try {
      const all = await this.options.store.list(keyFingerprint, kind);
      // A running record without a live lease is listed as ended: fence it first.
      const settled = await Promise.all(all.map((s) => (s.leased || s.record.status !== "RUNNING" ? s : this.options.store.settle(kind, s.record.id))));
      return settled.filter((s): s is StoredSession => s !== undefined);
    } catch (e) {
      this.options.log(`cluster: listing sessions failed: ${(e as Error).message}`);
      throw new UnavailableError("the session store did not answer; retry later", { retryAfterS: 5 });
    }
  }

  /**
   * Before serving a request for a session held here: when the last renewal is older than the lease (this
   * process was stalled or stopped), renew now; a 410 REPLICA_GONE when the session was fenced meanwhile (it
   * is ended here). When the store does not answer, the session is served while nobody can have fenced it
   * yet (lease + grace since the last renewal), then a 503.
   */
  async ensureHeld(kind: SessionKind, id: string): Promise<void> {
    const key = `${kind}:${id}`;
    if (!this.held.has(key)) return;
    for (let i = 0; i < 2 && this.held.has(key) && !this.fresh(); i++) {
      if (this.beating) await this.beating;
      else await this.heartbeat();
    }
    if (!this.held.has(key)) {
      const stored = await this.options.store.get(kind, id).catch(() => undefined);
      if (stored?.record.replica === this.replica && stored.record.fenced) throw new GoneError(`session ${id} is gone: this replica (${this.advertiseUrl}) did not renew its lease in time and another replica declared the session gone`, { code: "REPLICA_GONE" });
      return;
    }
    if (Date.now() - this.renewedAt >= this.options.leaseMs + this.options.graceMs) throw new UnavailableError("the session store did not answer; retry later", { retryAfterS: 5 });
  }

  private fresh(): boolean {
    return Date.now() - this.renewedAt < this.options.leaseMs;
  }

  private async heartbeat(): Promise<void> {
    if (this.beating || this.closed) return;
    this.beating = (async () => {
      const held = [...this.held.values()];
      const sentAt = Date.now();
      if (sentAt - this.renewedAt > this.options.leaseMs) this.options.log(`cluster: no lease renewal for ${sentAt - this.renewedAt} ms (the lease is ${this.options.leaseMs} ms): renewing now`);
      try {
        const { lost, reclaimed } = await this.options.store.renew(held);
        this.renewedAt = sentAt;
        for (const h of reclaimed) this.options.log(`cluster: the lease of ${h.kind} session ${h.id} had lapsed and nobody had declared it gone: took it back`);
        for (const h of lost) {
          if (this.held.get(`${h.kind}:${h.id}`)?.generation !== h.generation) continue;
          this.held.delete(`${h.kind}:${h.id}`);
          this.options.log(`cluster: lost the lease of ${h.kind} session ${h.id}: ending it here`);
          this.onLost(h.kind, h.id);
        }
        const active = [...this.active];
        this.active.clear();
        const now = Date.now();
        for (const k of active) {
          const h = this.held.get(k);
          if (h) await this.options.store.update(h, { lastActivity: now });
        }
      } catch (e) {
        this.options.log(`cluster: heartbeat failed: ${(e as Error).message}`);
      }
    })().finally(() => (this.beating = undefined));
    await this.beating;
  }

  /** Stops the heartbeat and closes the store (call after every session was ended). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.beating;
    await Promise.allSettled([...this.writing]);
    await this.options.store.close();
  }
}

function digest(s: string): Buffer {
  return createHash("sha256").update(s).digest();
}

function goneError(stored: StoredSession): GoneError {
  const r = stored.record;
  if (r.status === "RUNNING") {
    const since = Math.max(0, Math.round((Date.now() - r.lastActivity) / 1000));
    return new GoneError(`session ${r.id} is gone: the replica that ran it (${r.ownerUrl}) stopped renewing its lease (it died or lost the session store); last activity ${since}s ago`, { code: "REPLICA_GONE" });
  }
  return new GoneError(`session ${r.id} has ended (${r.status}${r.endedReason ? `: ${r.endedReason}` : ""})`);
}
