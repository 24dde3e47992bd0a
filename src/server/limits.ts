/**
 * The defaults of the per-key bounds on what a tenant of `svc serve` stores or spends: the one place they
 * are written. config.ts applies them; the CLI's help (commands/server/serve-limits.ts) quotes them. No imports,
 * so the CLI can read them without loading the server.
 */
const MiB = 1024 * 1024;

export const LIMIT_DEFAULTS = {
  downloadsMaxBytesPerSession: 256 * MiB,
  downloadsMaxBytesPerKey: 1024 * MiB,
  /** Seconds; at most the hour an ended session stays listed. */
  artifactsTtlS: 3600,
  cacheMaxEntryBytes: 1 * MiB,
  cacheMaxEntriesPerKey: 1000,
  cacheMaxBytesPerKey: 64 * MiB,
  extensionsMaxBytesPerKey: 256 * MiB,
  gatewayBodyLimitBytes: 4 * MiB,
  gatewayConcurrencyPerKey: 8,
  gatewayRateLimitPerMinute: 240,
} as const;

/** The longest `artifactsTtlS`: an ended session is listed (and its artifacts reachable) for one hour. */
export const MAX_ARTIFACTS_TTL_S = 3600;

/** The longest `sessionTimeoutS`: the platform's limit on a session's lifetime (6 h). */
export const MAX_SESSION_TIMEOUT_S = 6 * 3600;
