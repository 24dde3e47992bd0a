/**
 * A replica's leases (src/server/cluster/cluster.ts): its heartbeat keeps its sessions owned past many
 * lease times; a replica cut off from the store longer than the lease loses them to whoever claims them
 * next, and on its next heartbeat ends them itself (onLost) instead of serving a session another replica
 * now owns. Peer credentials: only the cluster secret passes.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Cluster } from "../../src/server/cluster/cluster.js";
import { type Held, MemoryStore, type Renewal } from "../../src/server/cluster/store.js";
import { errorResponse } from "../../src/server/http/errors.js";

/** The answer a client would get for what `p` rejects with (undefined when it resolves): the HTTP layer chooses statuses. */
const answerOf = (p: Promise<unknown>) => p.then(() => undefined, errorResponse);

const LEASE_MS = 300;
const GRACE_MS = 150;

/** A shared in-memory store one replica can be cut off from (its renewals fail, as with Redis unreachable). */
class FlakyStore extends MemoryStore {
  down = false;
  override async renew(held: readonly Held[]): Promise<Renewal> {
    if (this.down) throw new Error("connection refused");
    return super.renew(held);
  }
  override async close(): Promise<void> {}
}

const clusters: Cluster[] = [];
afterEach(async () => {
  await Promise.all(clusters.splice(0).map((c) => c.close()));
});

function replica(store: MemoryStore, url: string, timing = { leaseMs: LEASE_MS, graceMs: GRACE_MS }): { cluster: Cluster; lost: string[]; log: string[] } {
  const lost: string[] = [];
  const log: string[] = [];
  const cluster = new Cluster({ store, advertiseUrl: () => url, secret: "s".repeat(16), ...timing, heartbeatMs: 60, connectTimeoutMs: 500, log: (l) => void log.push(l) });
  cluster.onLost = (kind, id) => void lost.push(`${kind}:${id}`);
  clusters.push(cluster);
  return { cluster, lost, log };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("cluster leases", () => {
  it("the heartbeat keeps a session owned; cut off past the lease, the replica loses it and ends it itself", async () => {
    const storeA = new FlakyStore({ leaseMs: LEASE_MS, graceMs: GRACE_MS, retentionMs: 60_000 });
    const a = replica(storeA, "http://a.invalid");
    // B shares A's records (the same store object) but is never cut off.
    const b = replica(storeA, "http://b.invalid");
    await a.cluster.claim("platform", "s1", "fp", Date.now() + 60_000);
    await sleep(LEASE_MS * 3);
    expect(await b.cluster.locate("platform", "s1")).toMatchObject({ at: "peer", url: "http://a.invalid" });
    await expect(answerOf(b.cluster.claim("platform", "s1", "fp", Date.now() + 60_000))).resolves.toMatchObject({ status: 409 });
    expect(a.lost).toEqual([]);

    storeA.down = true;
    await sleep(LEASE_MS + GRACE_MS + 100);
    const gone = await b.cluster.locate("platform", "s1");
    expect(gone.at).toBe("gone");
    expect(gone.at === "gone" ? errorResponse(gone.error) : undefined).toMatchObject({ status: 410, code: "REPLICA_GONE" });
    expect(a.lost).toEqual([]);
    await b.cluster.claim("platform", "s1", "fp", Date.now() + 60_000);
    storeA.down = false;
    await sleep(200);
    expect(a.lost).toEqual(["platform:s1"]);
    expect(a.log.some((l) => /heartbeat failed/.test(l))).toBe(true);
    expect(await a.cluster.locate("platform", "s1")).toMatchObject({ at: "peer", url: "http://b.invalid" });
  });

  it("cut off from the store: its sessions are served while nobody can have fenced them (lease + grace), then 503", async () => {
    const timing = { leaseMs: 300, graceMs: 1500 };
    const store = new FlakyStore({ ...timing, retentionMs: 60_000 });
    const a = replica(store, "http://a.invalid", timing);
    await a.cluster.claim("platform", "s3", "fp", Date.now() + 60_000);
    store.down = true;
    const cutAt = Date.now();
    await sleep(timing.leaseMs + 100);
    // Past the lease: ensureHeld tries to renew, fails, and still serves (the grace is not over).
    await expect(a.cluster.ensureHeld("platform", "s3")).resolves.toBeUndefined();
    expect(Date.now() - cutAt).toBeLessThan(timing.leaseMs + timing.graceMs);
    await sleep(timing.leaseMs + timing.graceMs - (Date.now() - cutAt) + 50);
    await expect(answerOf(a.cluster.ensureHeld("platform", "s3"))).resolves.toMatchObject({ status: 503 });
    expect(a.lost).toEqual([]);
  });

  it("stalled past lease + grace: a session another replica fenced answers 410 REPLICA_GONE here and is ended; an unfenced one is taken back", async () => {
    const store = new MemoryStore({ leaseMs: LEASE_MS, graceMs: GRACE_MS, retentionMs: 60_000 });
    const a = replica(store, "http://a.invalid");
    const b = replica(store, "http://b.invalid");
    await a.cluster.claim("platform", "fenced", "fp", Date.now() + 60_000);
    await a.cluster.claim("platform", "quiet", "fp", Date.now() + 60_000);
    // A's heartbeat stops (as in a stalled event loop), its leases lapse; B declares one of them gone.
    await (a.cluster as unknown as { beating?: Promise<void> }).beating;
    (a.cluster as unknown as { closed: boolean }).closed = true;
    await sleep(LEASE_MS + GRACE_MS + 100);
    const fenced = await b.cluster.locate("platform", "fenced");
    expect(fenced.at === "gone" ? errorResponse(fenced.error) : fenced).toMatchObject({ status: 410, code: "REPLICA_GONE" });
    (a.cluster as unknown as { closed: boolean }).closed = false;
    await expect(answerOf(a.cluster.ensureHeld("platform", "fenced"))).resolves.toMatchObject({ status: 410, code: "REPLICA_GONE" });
    expect(a.lost).toEqual(["platform:fenced"]);
    await expect(a.cluster.ensureHeld("platform", "quiet")).resolves.toBeUndefined();
    expect(a.log.some((l) => /session quiet had lapsed and nobody had declared it gone: took it back/.test(l))).toBe(true);
    expect(await b.cluster.locate("platform", "quiet")).toMatchObject({ at: "peer", url: "http://a.invalid" });
    expect(await a.cluster.locate("platform", "fenced")).toMatchObject({ at: "gone" });
  });

  it("an ended session is no longer renewed and reads as ended", async () => {
    const store = new MemoryStore({ leaseMs: LEASE_MS, graceMs: GRACE_MS, retentionMs: 60_000 });
    const a = replica(store, "http://a.invalid");
    await a.cluster.claim("api", "s2", "fp", Date.now() + 60_000);
    await a.cluster.ended("api", "s2", "COMPLETED", "ended by the client");
    expect(await store.get("api", "s2")).toMatchObject({ leased: false, record: { status: "COMPLETED", endedReason: "ended by the client" } });
    await sleep(200);
    expect(a.lost).toEqual([]);
  });

  it("peer credentials: absent is not a peer, the secret is, anything else is refused", () => {
    const a = replica(new MemoryStore({ leaseMs: LEASE_MS, graceMs: GRACE_MS, retentionMs: 1000 }), "http://a.invalid");
    expect(a.cluster.isPeer(undefined)).toBeUndefined();
    expect(a.cluster.isPeer("s".repeat(16))).toBe(true);
    expect(a.cluster.isPeer("s".repeat(15))).toBe(false);
    expect(a.cluster.isPeer("")).toBe(false);
  });
});
