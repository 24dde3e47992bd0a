/**
 * `svc serve`'s per-key bound flags (commands/server/serve-limits.ts): each flag sets its server option, sizes take
 * units, bad values are usage errors naming the flag (the registry's number parser), the help quotes the defaults
 * of src/server/limits.ts, and the server's own validation accepts what the flags give (and refuses a per-entry
 * cap over the per-key one).
 */
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../commands/registry/program.js";
import { SERVER_COMMANDS } from "../../commands/registry/server.js";
import { LIMIT_FLAGS, limitOptions } from "../../commands/server/serve-limits.js";
import { LIMIT_DEFAULTS, SERVE_RANGES } from "../../src/server/limits.js";
import { resolveServerOptions } from "../../src/server/config.js";
import type { NumberBounds } from "../../src/util/ranged-number.js";

const base = { apiKeys: ["k".repeat(16)], cacheDir: "/tmp/svc-limit-flags" };

/** `svc serve ARGV`'s flags as its action would get them (nothing is served). */
async function serveFlags(argv: string[]): Promise<Record<string, unknown>> {
  let flags: Record<string, unknown> = {};
  const globals = { json: false, verbose: 0 as const, session: undefined };
  const program = buildProgram({ version: "0", setGlobals: () => {}, globals: () => globals, dispatch: async (_d, _i, f) => void (flags = f as Record<string, unknown>) }, "test", new Set(["serve"]));
  await program.parseAsync(["serve", ...argv], { from: "user" });
  return flags;
}

const refusal = (argv: string[]) => serveFlags(argv).then(
  () => "parsed",
  (e: Error & { code?: string }) => `${e.code}: ${e.message}`,
);

describe("svc serve limit flags", () => {
  it("every flag sets its option; sizes take K/M/G", async () => {
    const flags = await serveFlags(["--downloads-max-key", "2G", "--artifacts-ttl", "90", "--cache-max-entries", "50", "--gateway-body-limit", "512K", "--gateway-concurrency", "3", "--gateway-rate", "60"]);
    const opts = limitOptions(flags);
    expect(opts).toEqual({ downloadsMaxBytesPerKey: 2 * 1024 ** 3, artifactsTtlS: 90, cacheMaxEntriesPerKey: 50, gatewayBodyLimitBytes: 512 * 1024, gatewayConcurrencyPerKey: 3, gatewayRateLimitPerMinute: 60 });
    expect(resolveServerOptions({ ...base, ...opts })).toMatchObject(opts);
  });

  it("bad values name their flag", async () => {
    expect(await refusal(["--gateway-concurrency", "0"])).toBe('INVALID_ARGUMENT: --gateway-concurrency must be a whole number ≥ 1, got "0"');
    expect(await refusal(["--artifacts-ttl", "7200"])).toBe('INVALID_ARGUMENT: --artifacts-ttl must be a number of seconds above 0 and at most 3600, got "7200"');
    expect(await refusal(["--cache-max-key", "lots"])).toBe('INVALID_ARGUMENT: --cache-max-key must be a size such as 6G, 512M or a number of bytes, got "lots"');
    expect(() => resolveServerOptions({ ...base, cacheMaxEntryBytes: 2048, cacheMaxBytesPerKey: 1024 })).toThrow(/cacheMaxEntryBytes must be at most cacheMaxBytesPerKey/);
  });

  it("the help quotes each default, and the server applies the same defaults", () => {
    const options = Object.values(SERVER_COMMANDS.find((c) => c.name === "serve")!.options!);
    const help = (flag: string) => options.find((o) => o.flags.startsWith(`${flag} `))!.description;
    expect(LIMIT_FLAGS.map((l) => l.flag).filter((f) => options.some((o) => o.flags.startsWith(`${f} `)))).toHaveLength(LIMIT_FLAGS.length);
    expect(help("--downloads-max-key")).toMatch(/\(default 1G\); a size such as 6G/);
    expect(help("--gateway-rate")).toMatch(/\(default 240\); a whole number ≥ 1$/);
    const config = resolveServerOptions(base);
    for (const l of LIMIT_FLAGS) expect(config[l.key]).toBe(LIMIT_DEFAULTS[l.key]);
  });
});

describe("svc serve's number flags and the server's options", () => {
  /** Each flag and the option it sets, whose bounds SERVE_RANGES writes once for both. */
  const PAIRS = [
    ["--port", "port"],
    ["--max-sessions", "maxSessions"],
    ["--queue", "maxQueued"],
    ["--queue-timeout", "queueTimeoutS"],
    ["--max-cpu", "maxCpu"],
    ["--warm-browsers", "warmBrowsers"],
    ["--session-timeout", "sessionTimeoutS"],
    ["--idle-timeout", "idleTimeoutS"],
    ["--body-limit", "bodyLimitBytes"],
    ["--drain-timeout", "shutdownGraceS"],
  ] as const;

  it("refuse and accept the same values: at each bound, just past it, and a fraction where a whole number is asked", async () => {
    const schemaTakes = (option: string, n: number) => {
      try {
        resolveServerOptions({ ...base, [option]: n });
        return true;
      } catch {
        return false;
      }
    };
    for (const [flag, option] of PAIRS) {
      const r: NumberBounds = SERVE_RANGES[option];
      const values: number[] = [];
      if (r.min !== undefined) values.push(r.min, r.min - 1);
      if (r.above !== undefined) values.push(r.above, r.above + 0.5);
      if (r.max !== undefined) values.push(r.max, r.max + 1);
      if (r.whole) values.push((r.min ?? 0) + 1.5);
      expect(values.length, flag).toBeGreaterThan(1);
      for (const n of values) {
        const cli = (await refusal([flag, String(n)])) === "parsed";
        expect([flag, n, cli], "the flag and the option agree").toEqual([flag, n, schemaTakes(option, n)]);
      }
    }
  });
});
