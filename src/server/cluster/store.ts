/**
 * The cluster's session store: which replica owns each session, as a lease with a generation (a fencing token), so
 * two replicas never both own one. A lease lives `leaseMs + graceMs` past its renewal, renewed far more often, so a
 * stalled owner keeps it. A lapsed session is gone only once another replica fences it (`settle`); until then its
 * owner may retake it, contradicting nobody.
 */
export type SessionKind = "api" | "platform";

export interface SessionRecord {
  id: string;
  kind: SessionKind;
  /** The id of the replica process that owns it (new on every start of `svc serve`). */
  replica: string;
  /** How other replicas reach the owner (`--advertise-url`). */
  ownerUrl: string;
  /** keyFingerprint() of the API key that owns it. */
  keyFingerprint: string;
  /** RUNNING until it ends; then the status it ended with (COMPLETED, TIMED_OUT, ERROR). */
  status: string;
  /** Epoch ms at which the session expires by itself. */
  expiresAt: number;
  /** Epoch ms of the last request the owner saw for it. */
  lastActivity: number;
  /** Why it ended, when it has. */
  endedReason?: string | undefined;
  /** Bumped by every successful claim. */
  generation: number;
  /** Another replica declared this generation gone (its lease had lapsed): its owner can no longer renew it. */
  fenced?: boolean | undefined;
}

/** A record as read back, and whether its owner's lease is still live. */
export interface StoredSession {
  record: SessionRecord;
  /** The owner (this generation) renewed its lease within the lease time. */
  leased: boolean;
}

export type NewRecord = Omit<SessionRecord, "generation" | "fenced">;

/** What a renewal found: the leases this replica no longer holds, and the lapsed ones it took back. */
export interface Renewal {
  lost: Held[];
  reclaimed: Held[];
}
export type RecordPatch = Partial<Pick<SessionRecord, "status" | "lastActivity" | "endedReason" | "expiresAt">>;

export interface SessionStore {
  /** Takes ownership for `record.replica`: the new generation, or undefined when another replica holds a live lease. */
  claim(record: NewRecord): Promise<number | undefined>;
  /**
   * Renews leases this replica holds. A lapsed lease whose record is still this generation's, running and
   * not fenced is taken back (reclaimed); the others are lost (fenced, ended, or another generation owns them).
   */
  renew(held: readonly Held[]): Promise<Renewal>;
  /** Changes the record if `held` is still its current, unfenced generation; false otherwise. An ended status drops the lease. */
  update(held: Held, patch: RecordPatch): Promise<boolean>;
  get(kind: SessionKind, id: string): Promise<StoredSession | undefined>;
  /** As get, but a running record whose lease has lapsed is fenced first (atomically): call it before saying a session is gone. */
  settle(kind: SessionKind, id: string): Promise<StoredSession | undefined>;
  /** Every record of one key and kind, newest first. */
  list(keyFingerprint: string, kind: SessionKind): Promise<StoredSession[]>;
  close(): Promise<void>;
}

/** What the session holders (ApiSessions, PlatformSessions) tell the cluster: a session started here, or ended. */
export interface SessionRegistry {
  /** Rejects (an HttpError) when the session cannot be recorded: its holder then ends it. */
  claim(kind: SessionKind, id: string, keyFingerprint: string, expiresAt: number): Promise<void>;
  ended(kind: SessionKind, id: string, status: string, reason: string): Promise<void>;
}

export interface Held {
  kind: SessionKind;
  id: string;
  replica: string;
  generation: number;
}

export interface StoreTiming {
  /** The lease: its owner renews it several times within this. */
  leaseMs: number;
  /** Added to the lease before it lapses: a lease not renewed for leaseMs + graceMs has lapsed. */
  graceMs: number;
  /** Records are kept this long after their session's expiry, and after their owner's last renewal (listing shows ended sessions for a while). */
  retentionMs: number;
}

/** One process's store: the same contract, nothing shared. */
export class MemoryStore implements SessionStore {
  private readonly records = new Map<string, { record: SessionRecord; leaseUntil: number; dropAt: number }>();

  constructor(private readonly timing: StoreTiming) {}

  private prune(now: number): void {
    for (const [k, v] of this.records) if (v.dropAt < now) this.records.delete(k);
  }

  async claim(record: NewRecord): Promise<number | undefined> {
    const now = Date.now();
    this.prune(now);
    const k = `${record.kind}:${record.id}`;
    const cur = this.records.get(k);
    if (cur && cur.leaseUntil > now && cur.record.replica !== record.replica) return undefined;
    const generation = (cur?.record.generation ?? 0) + 1;
    this.records.set(k, { record: { ...record, generation }, leaseUntil: now + this.hold, dropAt: record.expiresAt + this.timing.retentionMs });
    return generation;
  }

  private get hold(): number {
    return this.timing.leaseMs + this.timing.graceMs;
  }

  private current(h: Held) {
    const cur = this.records.get(`${h.kind}:${h.id}`);
    return cur && cur.record.replica === h.replica && cur.record.generation === h.generation ? cur : undefined;
  }

  async renew(held: readonly Held[]): Promise<Renewal> {
    const now = Date.now();
    const out: Renewal = { lost: [], reclaimed: [] };
    for (const h of held) {
      const cur = this.current(h);
      const live = cur !== undefined && cur.leaseUntil > now;
      if (cur && (live || (cur.record.status === "RUNNING" && !cur.record.fenced))) {
        if (!live) out.reclaimed.push(h);
        cur.leaseUntil = now + this.hold;
        cur.dropAt = Math.max(cur.dropAt, now + this.timing.retentionMs);
      } else out.lost.push(h);
    }
    return out;
  }

  async update(held: Held, patch: RecordPatch): Promise<boolean> {
    const cur = this.current(held);
    if (!cur || cur.record.fenced) return false;
    cur.record = { ...cur.record, ...patch };
    if (patch.status !== undefined && patch.status !== "RUNNING") cur.leaseUntil = 0;
    cur.dropAt = cur.record.expiresAt + this.timing.retentionMs;
    return true;
  }

  async get(kind: SessionKind, id: string): Promise<StoredSession | undefined> {
    const now = Date.now();
    this.prune(now);
    const cur = this.records.get(`${kind}:${id}`);
    return cur ? { record: { ...cur.record }, leased: cur.leaseUntil > now } : undefined;
  }

  async settle(kind: SessionKind, id: string): Promise<StoredSession | undefined> {
    const cur = this.records.get(`${kind}:${id}`);
    if (cur && cur.leaseUntil <= Date.now() && cur.record.status === "RUNNING") cur.record.fenced = true;
    return this.get(kind, id);
  }

  async list(keyFingerprint: string, kind: SessionKind): Promise<StoredSession[]> {
    const now = Date.now();
    this.prune(now);
    return [...this.records.values()]
      .filter((v) => v.record.keyFingerprint === keyFingerprint && v.record.kind === kind)
      .sort((a, b) => b.record.expiresAt - a.record.expiresAt)
      .map((v) => ({ record: { ...v.record }, leased: v.leaseUntil > now }));
  }

  async close(): Promise<void> {
    this.records.clear();
  }
}
