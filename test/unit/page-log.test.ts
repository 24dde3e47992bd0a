/**
 * The session's page log store (src/store/page-log.ts): the documented bounds (last 1,000 entries, ≤ 1 MB of
 * JSON, 4,000 characters per text), `--clear` dropping what came before it in the reader and in the host's next
 * batch, secrets masked on disk and when read, files 0600.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ConsoleEntry, PAGE_LOG_LIMITS, bounded, clip, sessionPageLog } from "../../src/store/page-log.js";
import { sessionSecretStore } from "../../src/store/secrets.js";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});
const root = () => {
  const r = mkdtempSync(join(tmpdir(), "svc-page-log-"));
  roots.push(r);
  return r;
};
const entry = (i: number, text = `message ${i}`, received = i): ConsoleEntry => ({ received, at: new Date(received).toISOString(), target: "T1", level: "log", text });

describe("the page log store", () => {
  it("keeps the newest 1,000 entries and at most 1 MB of JSON, oldest first", () => {
    const many = Array.from({ length: 1500 }, (_, i) => entry(i));
    const kept = bounded(many);
    expect(kept.length).toBe(PAGE_LOG_LIMITS.entries);
    expect(kept[0]!.text).toBe("message 500");
    expect(kept.at(-1)!.text).toBe("message 1499");
    const big = Array.from({ length: 600 }, (_, i) => entry(i, "x".repeat(3_000)));
    const fits = bounded(big);
    expect(fits.length).toBeLessThan(600);
    expect(Buffer.byteLength(JSON.stringify(fits))).toBeLessThanOrEqual(PAGE_LOG_LIMITS.bytes);
    expect(fits.at(-1)).toBe(big.at(-1));
    expect(clip("y".repeat(5_000)).length).toBe(PAGE_LOG_LIMITS.textChars);
  });

  it("a clear drops what was received before it, for readers and for the host's next batch", () => {
    const r = root();
    const store = sessionPageLog("s1", r);
    const before = Date.now() - 1_000;
    store.write("console", [entry(1, "old", before)]);
    expect(store.read("console").map((e) => e.text)).toEqual(["old"]);
    store.clear("console");
    expect(store.read("console")).toEqual([]);
    // The host still holds "old" in memory: its next write leaves it out.
    const written = store.write("console", [entry(1, "old", before), entry(2, "new", Date.now() + 1_000)]);
    expect(written.map((e) => e.text)).toEqual(["new"]);
    expect(store.read("console").map((e) => e.text)).toEqual(["new"]);
    expect(store.read("errors")).toEqual([]);
    expect(statSync(join(r, "sessions", "s1.console")).mode & 0o777).toBe(0o600);
  });

  it("masks the session's secrets on disk, and values saved later when read", () => {
    const r = root();
    const store = sessionPageLog("s2", r);
    sessionSecretStore("s2", r).save([{ name: "pw", value: "Sup3rSecret" }]);
    store.write("console", [entry(1, "pw is Sup3rSecret; token Tok3nLater")]);
    const file = readFileSync(join(r, "sessions", "s2.console"), "utf8");
    expect(file).not.toContain("Sup3rSecret");
    expect(file).toContain("%pw%");
    sessionSecretStore("s2", r).save([{ name: "token", value: "Tok3nLater" }]);
    expect(store.read("console")[0]!.text).toBe("pw is %pw%; token %token%");
  });
});
