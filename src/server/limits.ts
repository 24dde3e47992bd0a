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
const MAX_SESSION_TIMEOUT_S = 6 * 3600;

/**
 * The bounds of `svc serve`'s numbers, checked by config.ts's schema and quoted by the CLI's flags
 * (commands/registry/server.ts), which refuse a bad value before the server starts. `whole`: a whole number;
 * `above`: greater than, not equal.
 */
export const SERVE_RANGES = {
  port: { whole: true, min: 0, max: 65535 },
  maxSessions: { whole: true, min: 1 },
  maxQueued: { whole: true, min: 0 },
  queueTimeoutS: { above: 0, max: 3600 },
  maxCpu: { above: 0, max: 100 },
  warmBrowsers: { whole: true, min: 0, max: 8 },
  sessionTimeoutS: { whole: true, min: 1, max: MAX_SESSION_TIMEOUT_S },
  idleTimeoutS: { whole: true, min: 1 },
  bodyLimitBytes: { whole: true, min: 1 },
  shutdownGraceS: { min: 0, max: 3600 },
} as const;
