import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { resolveServerOptions } from "../../src/server/config.js";
import { resolveDataKey } from "../../src/server/isolation/data-key.js";

const dir = mkdtempSync(join(tmpdir(), "svc-data-key-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config = (extra: Record<string, unknown> = {}) => resolveServerOptions({ apiKeys: ["key-0000-0001"], cacheDir: join(dir, "cache"), ...extra });

it("a lone server generates its key once into <dataDir>/data.key (0600) and reuses it", () => {
  const lines: string[] = [];
  const k1 = resolveDataKey(config({ dataDir: join(dir, "data") }), (l) => lines.push(l));
  const k2 = resolveDataKey(config({ dataDir: join(dir, "data") }), (l) => lines.push(l));
  expect(k1).toHaveLength(32);
  expect(k2.equals(k1)).toBe(true);
  expect(statSync(join(dir, "data", "data.key")).mode & 0o777).toBe(0o600);
  expect(lines.filter((l) => l.startsWith("data key: generated"))).toHaveLength(1);
  // The default data dir sits next to the cache dir.
  resolveDataKey(config(), () => {});
  expect(statSync(join(dir, "server-data", "data.key")).isFile()).toBe(true);
});

it("--data-key and the cluster secret derive the key (replicas sharing a secret agree)", () => {
  const cluster = { store: "redis://127.0.0.1:1", secret: "cluster-secret-0123456789" };
  const a = resolveDataKey(config({ cluster }), () => {});
  const b = resolveDataKey(config({ cluster, dataDir: join(dir, "elsewhere") }), () => {});
  expect(b.equals(a)).toBe(true);
  const given = resolveDataKey(config({ cluster, dataKey: "a-data-key-of-16+chars" }), () => {});
  expect(given.equals(a)).toBe(false);
  expect(resolveDataKey(config({ dataKey: "a-data-key-of-16+chars" }), () => {}).equals(given)).toBe(true);
  expect(() => config({ dataKey: "short" })).toThrow(/dataKey: the data key needs at least 16 characters/);
});
