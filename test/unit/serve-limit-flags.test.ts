/**
 * `svc serve`'s per-key bound flags (commands/server/serve-limits.ts): each flag sets its server option, sizes take
 * units, bad values are usage errors naming the flag, the help quotes the defaults of src/server/limits.ts,
 * and the server's own validation accepts what the flags give (and refuses a per-entry cap over the per-key one).
 */
import { describe, expect, it } from "vitest";
import { LIMIT_FLAGS, limitOptionSpecs, limitOptions } from "../../commands/server/serve-limits.js";
import { LIMIT_DEFAULTS } from "../../src/server/limits.js";
import { resolveServerOptions } from "../../src/server/config.js";

const base = { apiKeys: ["k".repeat(16)], cacheDir: "/tmp/svc-limit-flags" };

describe("svc serve limit flags", () => {
  it("every flag sets its option; sizes take K/M/G", () => {
    const opts = limitOptions({ downloadsMaxKey: "2G", artifactsTtl: "90", cacheMaxEntries: "50", gatewayBodyLimit: "512K", gatewayConcurrency: "3", gatewayRate: "60" });
    expect(opts).toEqual({ downloadsMaxBytesPerKey: 2 * 1024 ** 3, artifactsTtlS: 90, cacheMaxEntriesPerKey: 50, gatewayBodyLimitBytes: 512 * 1024, gatewayConcurrencyPerKey: 3, gatewayRateLimitPerMinute: 60 });
    expect(resolveServerOptions({ ...base, ...opts })).toMatchObject(opts);
  });

  it("bad values name their flag", () => {
    expect(() => limitOptions({ gatewayConcurrency: "0" })).toThrow(/--gateway-concurrency must be a whole number ≥ 1, got "0"/);
    expect(() => limitOptions({ artifactsTtl: "7200" })).toThrow(/--artifacts-ttl must be a number of seconds above 0 and at most 3600/);
    expect(() => limitOptions({ cacheMaxKey: "lots" })).toThrow(/--cache-max-key must be a size/);
    expect(() => resolveServerOptions({ ...base, cacheMaxEntryBytes: 2048, cacheMaxBytesPerKey: 1024 })).toThrow(/cacheMaxEntryBytes must be at most cacheMaxBytesPerKey/);
  });

  it("the help quotes each default, and the server applies the same defaults", () => {
    const specs = limitOptionSpecs();
    expect(specs).toHaveLength(LIMIT_FLAGS.length);
    expect(specs.find(([f]) => f.startsWith("--downloads-max-key"))![1]).toMatch(/\(default 1G\)$/);
    expect(specs.find(([f]) => f.startsWith("--gateway-rate"))![1]).toMatch(/\(default 240\)$/);
    const config = resolveServerOptions(base);
    for (const l of LIMIT_FLAGS) expect(config[l.key]).toBe(LIMIT_DEFAULTS[l.key]);
  });
});
