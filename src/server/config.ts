/**
 * `svc serve` settings, validated once with defaults applied once. The CLI fills them from flags, the
 * environment and `svc config`; tests pass them directly to startServer().
 */
import { dirname, join, resolve } from "node:path";
import { z } from "zod";
import { LocalBrowserLaunchOptionsSchema, ServiceInvalidArgumentError } from "../index.js";
import { AddressPolicy } from "../util/address-policy.js";
import { LIMIT_DEFAULTS, MAX_ARTIFACTS_TTL_S, SERVE_RANGES } from "./limits.js";
import { describeIssue } from "../util/zod.js";
import { rangedNumber } from "../util/ranged-number.js";

export const ServerOptionsSchema = z.strictObject({
  host: z.string().min(1).default("127.0.0.1"),
  /** 0 picks a free port. */
  port: rangedNumber(SERVE_RANGES.port).default(3000),
  /** Keys clients send as `x-bb-api-key`; each one sees only its own sessions. */
  apiKeys: z.array(z.string().min(8, "an API key needs at least 8 characters")).min(1, "at least one API key is needed (--api-key or SVC_API_KEYS)"),
  /** Live browser sessions at once (every session is a Chrome); past it, starts wait in the queue (platform/admission.ts). */
  maxSessions: rangedNumber(SERVE_RANGES.maxSessions).default(8),
  /** Session starts that may wait for a slot (`--queue`); past it, 429 QUEUE_FULL. 0: no queue. */
  maxQueued: rangedNumber(SERVE_RANGES.maxQueued).default(0),
  /** Longest wait of a queued start, in seconds (`--queue-timeout`); past it, 429 QUEUE_TIMEOUT. */
  queueTimeoutS: rangedNumber(SERVE_RANGES.queueTimeoutS).default(30),
  /** No new session while the machine's CPU is busier than this, in percent of all cores (`--max-cpu`). */
  maxCpu: rangedNumber(SERVE_RANGES.maxCpu).optional(),
  /** No new session while this process tree (server and Chromes) holds more bytes than this (`--max-memory`). */
  maxMemoryBytes: z.number().int().positive().optional(),
  /** Chromes kept launched and ready, so a session starts without waiting for one (not sessions: not counted by maxSessions). */
  warmBrowsers: rangedNumber(SERVE_RANGES.warmBrowsers).default(0),
  /** Lifetime of a platform session whose request gives no `timeout`, in seconds. */
  sessionTimeoutS: rangedNumber(SERVE_RANGES.sessionTimeoutS).default(3600),
  /**
   * A platform session without keepAlive ends when its last CDP client (or attached session-API session)
   * has been gone this long, in milliseconds, as the platform does; a client back within it keeps it.
   */
  disconnectGraceMs: z.number().int().min(0).max(600_000).default(5000),
  /** A session-API session with no request for this long is ended, in seconds. */
  idleTimeoutS: rangedNumber(SERVE_RANGES.idleTimeoutS).default(900),
  /** Largest request body accepted, in bytes. */
  bodyLimitBytes: rangedNumber(SERVE_RANGES.bodyLimitBytes).default(10 * 1024 * 1024),
  // Per-key bounds on what a tenant stores or spends (docs/server.md's table lists each with its flag).
  /** Bytes of downloads one platform session may keep (`--downloads-max-session`); past it a download is cancelled. */
  downloadsMaxBytesPerSession: z.number().int().positive().default(LIMIT_DEFAULTS.downloadsMaxBytesPerSession),
  /**
   * Bytes of downloads one API key may keep across its sessions, running and ended (`--downloads-max-key`):
   * past it the key's oldest ended sessions' downloads are deleted first, then new downloads are cancelled.
   */
  downloadsMaxBytesPerKey: z.number().int().positive().default(LIMIT_DEFAULTS.downloadsMaxBytesPerKey),
  /** Seconds an ended session's logs, recording and downloads are kept (`--artifacts-ttl`); at most the hour it stays listed. */
  artifactsTtlS: z.number().positive().max(MAX_ARTIFACTS_TTL_S).default(LIMIT_DEFAULTS.artifactsTtlS),
  /** Largest Stagehand cache entry (its value as JSON), in bytes (`--cache-entry-max`); past it, 413. */
  cacheMaxEntryBytes: z.number().int().positive().default(LIMIT_DEFAULTS.cacheMaxEntryBytes),
  /** Stagehand cache entries one API key keeps (`--cache-max-entries`); past it the oldest go. */
  cacheMaxEntriesPerKey: z.number().int().positive().default(LIMIT_DEFAULTS.cacheMaxEntriesPerKey),
  /** Stagehand cache bytes one API key keeps (`--cache-max-key`); past it the oldest entries go. */
  cacheMaxBytesPerKey: z.number().int().positive().default(LIMIT_DEFAULTS.cacheMaxBytesPerKey),
  /** Unpacked bytes of all of one API key's uploaded extensions (`--extensions-max-key`); past it, 409 EXTENSIONS_QUOTA. */
  extensionsMaxBytesPerKey: z.number().int().positive().default(LIMIT_DEFAULTS.extensionsMaxBytesPerKey),
  /** Largest `POST /v1/llm/responses` body, in bytes (`--gateway-body-limit`); past it, 413 before anything is forwarded. */
  gatewayBodyLimitBytes: z.number().int().positive().default(LIMIT_DEFAULTS.gatewayBodyLimitBytes),
  /** Model Gateway requests one API key may have in flight (`--gateway-concurrency`); past it, 429 with Retry-After. */
  gatewayConcurrencyPerKey: z.number().int().positive().default(LIMIT_DEFAULTS.gatewayConcurrencyPerKey),
  /** Model Gateway requests per API key per minute (`--gateway-rate`, a sliding window); past it, 429 with Retry-After. */
  gatewayRateLimitPerMinute: z.number().int().positive().default(LIMIT_DEFAULTS.gatewayRateLimitPerMinute),
  /** Where the server keeps its act/agent cache (shouldCache, cache status headers). */
  cacheDir: z.string().min(1),
  /** Where sessions save downloads (`<downloadsDir>/<key fingerprint>/<session id>/`); default `<dataDir>/downloads`. */
  downloadsDir: z.string().min(1).optional(),
  /** How every Chrome is launched (executablePath, headless, args …). */
  launch: LocalBrowserLaunchOptionsSchema.default({}),
  /** The origin clients reach this server at, for connectUrl/debug URLs; default http://host:port. */
  publicUrl: z.url().optional(),
  /**
   * Drain time (`--drain-timeout`): on shutdown, seconds in-flight requests get to finish before their
   * streams are closed with an error; no new session starts meanwhile (503 DRAINING, /readyz 503).
   */
  shutdownGraceS: rangedNumber(SERVE_RANGES.shutdownGraceS).default(5),
  /** SearXNG instance (its JSON API) behind POST /v1/search; none: the route answers 501. */
  searchUrl: z.url({ protocol: /^https?$/, error: "expected an http(s) URL of a SearXNG instance" }).optional(),
  /** POST /v1/search requests per API key per minute (sliding window); past it, 429 with Retry-After. */
  searchRateLimitPerMinute: z.number().int().positive().default(120),
  /** POST /v1/fetch requests per API key per minute, counted apart from search. */
  fetchRateLimitPerMinute: z.number().int().positive().default(120),
  /** Deadline of one POST /v1/fetch (connect, redirects and body), in milliseconds; past it, 504. */
  fetchTimeoutMs: z.number().int().positive().max(300_000).default(30_000),
  /** Largest response body POST /v1/fetch reads, in bytes; past it, 422 and the download is aborted. */
  fetchMaxBytes: z.number().int().positive().default(10 * 1024 * 1024),
  /**
   * Tenant isolation: each tenant's browser reaches only the public web (plus `allowNet`), client-chosen
   * cdpUrls and model endpoints pass the same address policy, and the DevTools endpoint is reached only
   * through svc's proxy. Default: on when the server has more than one API key (see isolated()).
   */
  isolate: z.boolean().optional(),
  /** Addresses isolated tenants may reach anyway (`--allow-net`): HOST, HOST:PORT, IP, IP:PORT, [IPv6]:PORT, CIDR or .suffix. */
  allowNet: z
    .array(z.string())
    .default([])
    .superRefine((list, ctx) => {
      try {
        new AddressPolicy(list);
      } catch (e) {
        ctx.addIssue({ code: "custom", message: (e as Error).message });
      }
    }),
  /**
   * Model endpoints a request may choose (`--model-endpoints`): URL prefixes such as
   * `https://api.openai.com/v1` or `http://10.0.0.5:11434/v1`. Unset: any endpoint the address policy allows.
   */
  modelEndpoints: z.array(z.url({ protocol: /^https?$/, error: "expected an http(s) URL prefix" })).optional(),
  /**
   * The model endpoint of every config a request gives without its own (`SVC_MODEL_BASE_URL` / `model.baseURL`,
   * as for every other command): the operator's, so trusted (the provider keys of the environment go there).
   */
  modelBaseURL: z.url({ protocol: /^https?$/, error: "expected an http(s) URL" }).optional(),
  /**
   * Cluster mode (`--store redis://…`): sessions are recorded in a Redis every replica shares, and a
   * request for another replica's session is forwarded to it (src/server/cluster/). Absent: one process,
   * sessions in memory.
   */
  cluster: z
    .strictObject({
      store: z.string().regex(/^rediss?:\/\/\S+$/, "expected a Redis URL, redis://host:6379"),
      /** How other replicas reach this one; default http://host:port of the listener. */
      advertiseUrl: z.url({ protocol: /^https?$/, error: "expected an http(s) URL" }).optional(),
      /** Shared by every replica: a forwarded request proves it comes from one. */
      secret: z.string().min(16, "the cluster secret needs at least 16 characters"),
      /** A replica renews its sessions' leases several times within this. */
      leaseMs: z.number().int().min(200).max(15_000).default(10_000),
      /** How often a replica renews its leases, at most half of leaseMs; default a quarter of it. */
      heartbeatMs: z.number().int().min(50).optional(),
      /** Added to the lease before another replica may declare a silent replica's sessions gone; default leaseMs. */
      graceMs: z.number().int().min(0).max(60_000).optional(),
      /** Longest a forwarded request waits to connect to the owner replica. */
      connectTimeoutMs: z.number().int().min(50).max(60_000).default(2000),
      /** Prefix of every Redis key (several clusters can share one Redis). */
      prefix: z.string().min(1).max(100).default("svc:"),
    })
    .refine((c) => c.heartbeatMs === undefined || c.heartbeatMs * 2 <= c.leaseMs, { message: "heartbeatMs must be at most half of leaseMs", path: ["heartbeatMs"] })
    .optional(),
  /** Where the server keeps its data (`<dataDir>/<area>/`: contexts, extensions, downloads); default `<cacheDir>/../server-data` (see dataDirOf). */
  dataDir: z.string().min(1).optional(),
  /**
   * Secret the data at rest is encrypted with (`--data-key`, SVC_DATA_KEY; the AES key is derived from it).
   * Absent: a cluster derives it from its secret, a lone server generates one into `<dataDir>/data.key`.
   */
  dataKey: z.string().min(16, "the data key needs at least 16 characters").optional(),
  /** Request log lines (method, path, status, ms, key fingerprint): never keys or bodies. */
  log: z.custom<(line: string) => void>((v) => typeof v === "function").optional(),
})
  .refine((c) => c.cacheMaxEntryBytes <= c.cacheMaxBytesPerKey, { message: "cacheMaxEntryBytes must be at most cacheMaxBytesPerKey", path: ["cacheMaxEntryBytes"] })
  .refine((c) => c.downloadsMaxBytesPerSession <= c.downloadsMaxBytesPerKey, { message: "downloadsMaxBytesPerSession must be at most downloadsMaxBytesPerKey", path: ["downloadsMaxBytesPerSession"] });

export type ServerOptions = z.input<typeof ServerOptionsSchema>;
export type ServerConfig = z.output<typeof ServerOptionsSchema>;

export function resolveServerOptions(input: ServerOptions): ServerConfig {
  const parsed = ServerOptionsSchema.safeParse(input);
  if (!parsed.success) throw new ServiceInvalidArgumentError(describeIssue(parsed.error));
  return parsed.data;
}

/** The server's data directory: `dataDir`, else `server-data` next to the cache directory. */
export function dataDirOf(config: ServerConfig): string {
  return resolve(config.dataDir ?? join(dirname(config.cacheDir), "server-data"));
}

/** Whether tenants are isolated: `isolate` when given, else whenever the server has more than one key. */
export function isolated(config: ServerConfig): boolean {
  return config.isolate ?? config.apiKeys.length > 1;
}

/** The address policy tenants' browsers, cdpUrls, fetches and model endpoints are held to; undefined when not isolated. */
export function tenantPolicy(config: ServerConfig): AddressPolicy | undefined {
  return isolated(config) ? new AddressPolicy(config.allowNet) : undefined;
}
