/**
 * A slow but alive replica keeps its sessions (issue 23): two built replicas on one Redis, short leases, A stopped
 * with SIGSTOP. Past its lease but within grace, a request through B waits and succeeds once A resumes. Past lease +
 * grace, B fences the session it is asked about (410 REPLICA_GONE) and A refuses it too, while A takes back its
 * unfenced session. Waits on Redis and A's log, never a sleep.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useRedis } from "../support/redis.js";
import { assertBuilt, type Sandbox, sandbox, waitFor } from "../cli/helpers.js";
import { type Served, startServe } from "../cli/serve-helpers.js";
import { EVENT_WAIT_MS } from "../support/timing.js";

const KEY = "stall-key-aaaaaaaaaa";
const SECRET = "cluster-secret-stall-0123456789";
const LEASE_MS = 2000;
const GRACE_MS = 3000;
const HEARTBEAT_MS = 400;

const redis = useRedis();
const boxes: Sandbox[] = [];
const replicas: Served[] = [];
let A: Served;
let B: Served;
let db: Redis;

beforeAll(async () => {
  assertBuilt();
  const args = ["--api-key", KEY, "--warm-browsers", "0", "--store", redis.url, "--cluster-secret", SECRET, "--cluster-lease", String(LEASE_MS), "--cluster-grace", String(GRACE_MS), "--cluster-heartbeat", String(HEARTBEAT_MS)];
  for (let i = 0; i < 2; i++) boxes.push(sandbox());
  for (const sb of boxes) replicas.push(await startServe(sb.env, args, ["--json", "--verbose", "1"]));
  [A, B] = replicas as [Served, Served];
  db = new Redis(redis.url, { maxRetriesPerRequest: 1 });
}, 120_000);

afterAll(async () => {
  for (const r of replicas) {
    if (r.child.exitCode !== null || r.child.signalCode !== null) continue;
    r.child.kill("SIGCONT");
    r.child.kill("SIGTERM");
  }
  await Promise.all(replicas.map((r) => r.done));
  for (const sb of boxes) sb.cleanup();
  await db?.quit();
}, 60_000);

async function json(srv: Served, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${srv.url}/v1${path}`, { method, headers: { "x-bb-api-key": KEY, ...(body !== undefined ? { "content-type": "application/json" } : {}) }, signal: AbortSignal.timeout(30_000), ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  return { status: res.status, body: await res.json() };
}

async function createOn(srv: Served): Promise<string> {
  const r = await json(srv, "POST", "/sessions", {});
  expect([200, 201], JSON.stringify(r.body)).toContain(r.status);
  return r.body.id as string;
}

const leaseKey = (id: string) => `svc:lease:platform:${id}`;
const recordKey = (id: string) => `svc:session:platform:${id}`;

/** Polls Redis until `check` holds (bounded): the lease's own TTL is the clock of these scenarios. */
async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const logOf = (srv: Served) => srv.output().stderr;

/** The length of a SIGSTOP (part of the scenario, proportional to the lease; no assertion waits on it). */
const stall = (until: number) => new Promise((r) => setTimeout(r, Math.max(0, until - Date.now())));

describe("a replica starved of CPU (SIGSTOP)", () => {
  it("stopped past its lease but within lease + grace: a request through B waits for it and succeeds; A keeps the session", async () => {
    const id = await createOn(A);
    expect((await json(B, "GET", `/sessions/${id}`)).body).toMatchObject({ id, status: "RUNNING" });
    A.child.kill("SIGSTOP");
    const stoppedAt = Date.now();
    let resumed = false;
    try {
      // The stop is the scenario: longer than the lease (and many renewals), well short of lease + grace.
      await stall(stoppedAt + LEASE_MS + 300);
      // B forwards it to the stopped A (its lease is live): the answer comes once A resumes. A stays stopped
      // another half second, so B has decided where the request goes meanwhile.
      const through = json(B, "GET", `/sessions/${id}`);
      await stall(stoppedAt + LEASE_MS + 800);
      const ttlAtResume = await db.pttl(leaseKey(id));
      A.child.kill("SIGCONT");
      resumed = true;
      const r = await through;
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toMatchObject({ id, status: "RUNNING" });
      // The scenario stayed inside lease + grace (a loaded machine could stretch the stop past it).
      expect(ttlAtResume, "the lease lapsed while A was stopped: the stop outran lease + grace").toBeGreaterThan(0);
    } finally {
      if (!resumed) A.child.kill("SIGCONT");
    }
    expect(await waitFor(() => /no lease renewal for \d+ ms/.test(logOf(A)), EVENT_WAIT_MS, 50), logOf(A)).toBe(true);
    expect(logOf(A)).not.toMatch(new RegExp(`lost the lease of platform session ${id}`));
    expect(await db.hget(recordKey(id), "fenced")).toBeNull();
    for (const srv of [A, B]) expect((await json(srv, "GET", `/sessions/${id}`)).body).toMatchObject({ id, status: "RUNNING" });
  }, 90_000);

  it("stopped past lease + grace: the session B is asked about is fenced (410 REPLICA_GONE, on A too once resumed); the one nobody asked about is taken back", async () => {
    const asked = await createOn(A);
    const quiet = await createOn(A);
    A.child.kill("SIGSTOP");
    let resumed = false;
    try {
      await until(async () => (await db.exists(leaseKey(asked), leaseKey(quiet))) === 0, (LEASE_MS + GRACE_MS) * 3, "both of A's leases lapsed");
      const gone = await json(B, "GET", `/sessions/${asked}`);
      expect(gone.status, JSON.stringify(gone.body)).toBe(410);
      expect(gone.body).toMatchObject({ code: "REPLICA_GONE" });
      expect(await db.hget(recordKey(asked), "fenced")).toBe("1");
      expect(await db.hget(recordKey(quiet), "fenced")).toBeNull();
      A.child.kill("SIGCONT");
      resumed = true;
    } finally {
      if (!resumed) A.child.kill("SIGCONT");
    }
    // A, resumed, does not serve the fenced session: it renews before answering, learns it lost it, ends it.
    const onA = await json(A, "GET", `/sessions/${asked}`);
    expect(onA.status, JSON.stringify(onA.body)).toBe(410);
    expect(onA.body).toMatchObject({ code: "REPLICA_GONE" });
    expect(await json(B, "GET", `/sessions/${asked}`)).toMatchObject({ status: 410, body: { code: "REPLICA_GONE" } });
    expect(logOf(A)).toMatch(new RegExp(`lost the lease of platform session ${asked}`));
    // Nobody had declared the quiet one gone: A took it back atomically and serves it, here and through B.
    expect(await waitFor(() => new RegExp(`lease of platform session ${quiet} had lapsed and nobody had declared it gone: took it back`).test(logOf(A)), EVENT_WAIT_MS, 50), logOf(A)).toBe(true);
    for (const srv of [A, B]) expect((await json(srv, "GET", `/sessions/${quiet}`)).body).toMatchObject({ id: quiet, status: "RUNNING" });
    expect(await db.get(leaseKey(quiet))).toMatch(/^[0-9a-f-]+:\d+$/);
    const list = (await json(B, "GET", "/sessions")).body as any[];
    expect(list.find((s) => s.id === quiet)).toMatchObject({ status: "RUNNING" });
    expect(list.find((s) => s.id === asked)).toMatchObject({ status: "ERROR" });
  }, 120_000);
});
