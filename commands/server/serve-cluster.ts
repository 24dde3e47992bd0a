/**
 * `svc serve` flags of cluster mode (issue 13): `--store`, `--advertise-url`, `--cluster-secret`,
 * `--cluster-lease`, `--cluster-heartbeat`, `--cluster-grace`, each with its environment variable / config setting. A memory
 * store (the default) is one server alone: no cluster options at all.
 */
import { ServiceInvalidArgumentError } from "../../src/base.js";
import type { ServerOptions } from "../../src/server/index.js";
import { maskUrlCredentials } from "./serve-secrets.js";
import type { SettingsStore } from "../core/settings.js";
import { isHttpUrl } from "../core/url.js";

export interface ClusterFlags {
  store?: string;
  advertiseUrl?: string;
  clusterSecret?: string;
  /** Milliseconds, in range (the registry declares their bounds). */
  clusterLease?: number;
  clusterHeartbeat?: number;
  clusterGrace?: number;
}

const MIN_SECRET = 16;

function effective(flag: string | undefined, key: string, settings: SettingsStore): string | undefined {
  if (flag !== undefined) return flag.trim();
  const v = settings.effective(key).value;
  return typeof v === "string" && v.trim() ? v.trim() : undefined;
}

/** The server's `cluster` options, or undefined for a memory store; every flag checked before anything starts. */
export function clusterOptions(flags: ClusterFlags, settings: SettingsStore): ServerOptions["cluster"] {
  const store = effective(flags.store, "server.store", settings) ?? "memory";
  if (store === "memory") {
    for (const [value, flag] of [[flags.advertiseUrl, "--advertise-url"], [flags.clusterSecret, "--cluster-secret"], [flags.clusterLease, "--cluster-lease"], [flags.clusterHeartbeat, "--cluster-heartbeat"], [flags.clusterGrace, "--cluster-grace"]] as const) {
      if (value !== undefined) throw new ServiceInvalidArgumentError(`${flag} needs a shared store: add --store redis://host:6379`);
    }
    return undefined;
  }
  if (!/^rediss?:\/\/\S+$/.test(store)) throw new ServiceInvalidArgumentError(`--store must be memory or a Redis URL (redis://host:6379), got "${maskUrlCredentials(store).slice(0, 80)}"`);
  const secret = effective(flags.clusterSecret, "server.clusterSecret", settings);
  if (!secret) throw new ServiceInvalidArgumentError("a Redis store needs a cluster secret shared by every replica: give --cluster-secret-file FILE (mode 0600) or SVC_CLUSTER_SECRET, or run svc config set server.clusterSecret …");
  if (secret.length < MIN_SECRET) throw new ServiceInvalidArgumentError(`--cluster-secret needs at least ${MIN_SECRET} characters`);
  const advertiseUrl = effective(flags.advertiseUrl, "server.advertiseUrl", settings);
  if (advertiseUrl !== undefined) {
    if (!isHttpUrl(advertiseUrl)) throw new ServiceInvalidArgumentError(`--advertise-url must be an http(s) URL, got "${advertiseUrl.slice(0, 80)}"`, { hint: "e.g. --advertise-url http://10.0.0.5:3000" });
  }
  const { clusterLease: leaseMs, clusterHeartbeat: heartbeatMs, clusterGrace: graceMs } = flags;
  if (heartbeatMs !== undefined && heartbeatMs * 2 > (leaseMs ?? 10_000)) throw new ServiceInvalidArgumentError(`--cluster-heartbeat must be at most half of the lease (${leaseMs ?? 10_000} ms)`);
  return {
    store,
    secret,
    ...(advertiseUrl !== undefined ? { advertiseUrl: advertiseUrl.replace(/\/+$/, "") } : {}),
    ...(leaseMs !== undefined ? { leaseMs } : {}),
    ...(heartbeatMs !== undefined ? { heartbeatMs } : {}),
    ...(graceMs !== undefined ? { graceMs } : {}),
  };
}
