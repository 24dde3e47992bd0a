/**
 * A replica's leases (src/server/cluster/cluster.ts): its heartbeat keeps its sessions owned past many
 * lease times; a replica cut off from the store longer than the lease loses them to whoever claims them
 * next, and on its next heartbeat ends them itself (onLost) instead of serving a session another replica
 * now owns. Peer credentials: only the cluster secret passes.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Cluster } from "../../src/server/cluster/cluster.js";
import { type Held, MemoryStore, type Renewal } from "../../src/server/cluster/store.js";

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

function replica(store: MemoryStore, url: string): { cluster: Cluster; lost: string[]; log: string[] } {
  const lost: string[] = [];
  const log: string[] = [];
  const cluster = new Cluster({ store, advertiseUrl: () => url, secret: "s".repeat(16), leaseMs: LEASE_MS, heartbeatMs: 60, connectTimeoutMs: 500, log: (l) => void log.push(l) });
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
    await expect(b.cluster.claim("platform", "s1", "fp", Date.now() + 60_000)).rejects.toMatchObject({ status: 409 });
    expect(a.lost).toEqual([]);

    storeA.down = true;
    await sleep(LEASE_MS + GRACE_MS + 100);
    const gone = await b.cluster.locate("platform", "s1");
    expect(gone).toMatchObject({ at: "gone", error: { status: 410, code: "REPLICA_GONE" } });
    expect(a.lost).toEqual([]);
    await b.cluster.claim("platform", "s1", "fp", Date.now() + 60_000);
    storeA.down = false;
    await sleep(200);
    expect(a.lost).toEqual(["platform:s1"]);
    expect(a.log.some((l) => /heartbeat failed/.test(l))).toBe(true);
    expect(await a.cluster.locate("platform", "s1")).toMatchObject({ at: "peer", url: "http://b.invalid" });
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
