/**
 * Logging for the library: `verbose` 0 (errors and warnings), 1 (info), 2 (debug); lines go to the user's `logger`
 * callback when given, else to stderr. Values under keys that look secret are masked before any sink, and
 * so is every value of the session's secrets (util/secrets.ts), in the message and the auxiliary fields.
 */
import type { LogLine } from "./options.js";
import type { Secrets } from "./util/secrets.js";

export interface Logger {
  error(category: string, message: string, auxiliary?: Record<string, unknown>): void;
  /** Something went wrong that does not change the operation's result (a cache that cannot be written). Level 0. */
  warn(category: string, message: string, auxiliary?: Record<string, unknown>): void;
  info(category: string, message: string, auxiliary?: Record<string, unknown>): void;
  debug(category: string, message: string, auxiliary?: Record<string, unknown>): void;
}

/** Names of fields that carry secrets (`apiKey`, `x-bb-api-key`, `authorization`, …), not counters like `inputTokens`. */
const SECRET_KEY = /^(.*[-_]?api[-_]?key|token|access[-_]?token|auth[-_]?token|id[-_]?token|authorization|password|passwd|secret|client[-_]?secret|private[-_]?key|credentials?|cookie)$/i;

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) && v !== undefined ? "[redacted]" : redact(v, depth + 1);
  return out;
}

export function createLogger(options: { verbose: 0 | 1 | 2; sink?: (line: LogLine) => void; secrets?: Secrets }): Logger {
  const mask = <T>(v: T): T => (options.secrets ? options.secrets.deep(v) : v);
  const emit = (level: 0 | 1 | 2, category: string, message: string, auxiliary?: Record<string, unknown>) => {
    if (level > options.verbose) return;
    const line: LogLine = { category, message: mask(message), level, ...(auxiliary ? { auxiliary: mask(redact(auxiliary) as Record<string, unknown>) } : {}) };
    if (options.sink) {
      try {
        options.sink(line);
      } catch {
        // a failing user logger must not fail the operation it logs
      }
      return;
    }
    process.stderr.write(`[svc:${category}] ${line.message}${line.auxiliary ? " " + JSON.stringify(line.auxiliary) : ""}\n`);
  };
  return {
    error: (c, m, a) => emit(0, c, m, a),
    warn: (c, m, a) => emit(0, c, `warning: ${m}`, a),
    info: (c, m, a) => emit(1, c, m, a),
    debug: (c, m, a) => emit(2, c, m, a),
  };
}
