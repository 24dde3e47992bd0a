/**
 * Cluster mode for startServer(): the Redis store, this replica's Cluster, the HTTP forwarder and the CDP
 * upgrade forwarder, built from `config.cluster`; and the cluster-wide session list.
 */
import type { Context } from "hono";
import { ServiceInvalidArgumentError } from "../../index.js";
import type { Env } from "../app.js";
import type { ServerConfig } from "../config.js";
import { ClientGoneError } from "../failures.js";
import { Cluster, PEER_HEADER } from "./cluster.js";
import { Forwarder } from "./forward-http.js";
import { upgradeForwarder } from "./forward-ws.js";
import { RedisStore } from "./redis-store.js";

export { Cluster, PEER_HEADER } from "./cluster.js";
export type { Forwarder } from "./forward-http.js";

/** Ended sessions stay in the store (listable through any replica) this long after their expiry. */
const RETENTION_MS = 60 * 60 * 1000;

export interface ClusterParts {
  cluster: Cluster;
  forwarder: Forwarder;
  upgrade: ReturnType<typeof upgradeForwarder>;
  close(): Promise<void>;
}

/** Connects to the store; undefined when the server runs alone. A Redis that does not answer fails the start. */
export async function startCluster(config: ServerConfig, advertiseUrl: () => string, log: (line: string) => void): Promise<ClusterParts | undefined> {
  const c = config.cluster;
  if (!c) return undefined;
  const graceMs = c.graceMs ?? c.leaseMs;
  const store = new RedisStore({ url: c.store, leaseMs: c.leaseMs, graceMs, retentionMs: RETENTION_MS, prefix: c.prefix });
  try {
    await store.connect();
  } catch (e) {
    await store.close();
    throw new ServiceInvalidArgumentError(`--store: the Redis at ${redactUrl(c.store)} did not answer (${(e as Error).message})`, { cause: e });
  }
  const cluster = new Cluster({ store, advertiseUrl: () => c.advertiseUrl ?? advertiseUrl(), secret: c.secret, leaseMs: c.leaseMs, graceMs, heartbeatMs: c.heartbeatMs ?? Math.floor(c.leaseMs / 4), connectTimeoutMs: c.connectTimeoutMs, log });
  const forwarder = new Forwarder(cluster);
  return {
    cluster,
    forwarder,
    upgrade: upgradeForwarder(cluster, log),
    async close() {
      await forwarder.close();
      await cluster.close();
    },
  };
}

/** A Redis URL for a message: its password masked. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, (_m, auth: string) => `//${auth.includes(":") ? `${auth.slice(0, auth.indexOf(":"))}:***` : "***"}@`);
}

/**
 * `GET /v1/sessions` across the cluster: the platform sessions other replicas hold for this key. Each live
 * replica holding some is asked for its own list (the same route, forwarded with the cluster secret:
 * it answers with its local sessions only); sessions of a replica whose lease lapsed are listed from
 * their records, with status ERROR when they were still running.
 */
export async function remoteSessionList(parts: ClusterParts, c: Context<Env>, owner: string, status: string | undefined, filtered: boolean): Promise<Record<string, unknown>[]> {
  if (c.req.header(PEER_HEADER) !== undefined) return [];
  const { cluster } = parts;
  const records = (await cluster.list(owner, "platform")).filter((s) => s.record.replica !== cluster.replica);
  // Replicas holding a live lease answer for all their sessions; the others' are listed from the records.
  const peers = new Set(records.filter((s) => s.leased).map((s) => s.record.ownerUrl));
  const out: Record<string, unknown>[] = [];
  for (const s of records) {
    if (peers.has(s.record.ownerUrl)) continue;
    // A record knows no metadata, so a metadata query never matches it.
    const shown = s.record.status === "RUNNING" ? "ERROR" : s.record.status;
    if (filtered || (status && status !== shown)) continue;
    const iso = (ms: number) => new Date(ms).toISOString();
    const reason = s.record.status === "RUNNING" ? "its replica stopped renewing its lease" : s.record.endedReason;
    out.push({ id: s.record.id, status: shown, updatedAt: iso(s.record.lastActivity), expiresAt: iso(s.record.expiresAt), ...(reason ? { endedReason: reason } : {}) });
  }
  const lists = await Promise.all(
    [...peers].map(async (url) => {
      try {
        const res = await parts.forwarder.forward(c, url, "platform", "");
        if (!res.ok) return [];
        const body = (await res.json()) as unknown;
        return Array.isArray(body) ? (body as Record<string, unknown>[]) : [];
      } catch (e) {
        if (e instanceof ClientGoneError) throw e;
        return [];
      }
    }),
  );
  return [...out, ...lists.flat()];
}
