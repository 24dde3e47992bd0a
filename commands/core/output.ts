/**
 * How results reach the user: human text by default, or with `--json` exactly one JSON document on
 * stdout carrying `schemaVersion`. Errors are one line on stderr (`svc: ...`) or, with `--json`, an
 * `{ ok: false, error }` document on stdout. Nothing else writes to stdout.
 */
export const SCHEMA_VERSION = 1;

export type Verbosity = 0 | 1 | 2;

export interface GlobalOptions {
  json: boolean;
  verbose: Verbosity;
  session: string | undefined;
  /** The command prints JSON lines (`svc agent`): an error document is one line as well. */
  lines?: boolean;
  /** `--downloads DIR`: where a new session's or a one-shot browser's downloads go. */
  downloads?: string | undefined;
  /** `--dialog accept|dismiss`: how this command (or a new session) answers JavaScript dialogs. */
  dialog?: "accept" | "dismiss" | undefined;
}

export interface Output {
  readonly json: boolean;
  readonly verbose: Verbosity;
  /** Print the command's result: `data` as the JSON document, `text()` (lines) otherwise. */
  result(data: Record<string, unknown>, text: () => string | readonly string[]): void;
  /** A diagnostic line on stderr when `verbose >= level` (never in the way of stdout). */
  log(level: 1 | 2, message: string): void;
}

export function createOutput(g: Pick<GlobalOptions, "json" | "verbose">): Output {
  return {
    json: g.json,
    verbose: g.verbose,
    result(data, text) {
      if (g.json) {
        process.stdout.write(`${JSON.stringify({ schemaVersion: SCHEMA_VERSION, ok: true, ...data }, null, 2)}\n`);
        return;
      }
      const t = text();
      const lines = typeof t === "string" ? [t] : t;
      if (lines.length) process.stdout.write(`${lines.join("\n")}\n`);
    },
    log(level, message) {
      if (g.verbose >= level) process.stderr.write(`svc: ${message}\n`);
    },
  };
}

/** The one-line form of an error message: first line only, no trailing period noise. */
export function oneLine(message: string): string {
  return (message.split("\n").find((l) => l.trim()) ?? message).trim();
}

export function printError(g: Pick<GlobalOptions, "json" | "verbose" | "lines">, code: string, message: string, stack?: string): void {
  const line = oneLine(message);
  if (g.json) {
    process.stdout.write(`${JSON.stringify({ schemaVersion: SCHEMA_VERSION, ok: false, error: { code, message: line } }, null, g.lines ? undefined : 2)}\n`);
  } else {
    process.stderr.write(`svc: ${line}\n`);
  }
  if (g.verbose >= 2 && stack) process.stderr.write(`${stack}\n`);
}

/** Align rows of cells into columns for text tables. */
export function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  ").trimEnd());
}
