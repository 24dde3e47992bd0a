/**
 * Saved state files (src/store/state-file.ts) and the storage-state contract (src/browser/storage-state.ts):
 * a sealed file is not JSON and hides its content, opens only with its key, tells a missing key from a wrong
 * one from a damaged file, and every file is written 0600; a state read from outside is validated with a
 * one-line error naming the field.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseStorageState } from "../../src/browser/storage-state.js";
import { SEALED_HEADER, readSavedState, sealState, writeSavedState } from "../../src/store/state-file.js";

const dir = mkdtempSync(join(tmpdir(), "svc-state-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STATE = JSON.stringify({ version: 1, cookies: [{ name: "sid", value: "s3cret-session", domain: "localhost", path: "/", expires: -1, httpOnly: true, secure: false }], origins: [] });

describe("state files", () => {
  it("plain: written 0600, read back as is", () => {
    const path = join(dir, "plain.json");
    writeFileSync(path, "old", { mode: 0o644 });
    writeSavedState(path, STATE, undefined);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readSavedState(path, undefined)).toBe(STATE);
  });

  it("sealed: header line, no plaintext, a fresh salt and IV per file, opens with the key only", () => {
    const path = join(dir, "sealed.state");
    writeSavedState(path, STATE, "pass phrase one");
    const text = readFileSync(path, "utf8");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(text.split("\n")[0]).toBe(SEALED_HEADER);
    expect(text).not.toContain("s3cret");
    expect(() => JSON.parse(text) as unknown).toThrow();
    expect(sealState(STATE, "pass phrase one")).not.toBe(sealState(STATE, "pass phrase one"));
    expect(readSavedState(path, "pass phrase one")).toBe(STATE);
    expect(() => readSavedState(path, "pass phrase two")).toThrow(expect.objectContaining({ code: "STATE_ERROR", message: expect.stringMatching(/wrong state key/) }));
    expect(() => readSavedState(path, undefined)).toThrow(expect.objectContaining({ code: "STATE_ERROR", message: expect.stringMatching(/is encrypted and no state key is configured/) }));
  });

  it("a sealed file altered by one character, or of a newer format, is refused", () => {
    const sealed = sealState(STATE, "k-k-k-k-k-k");
    const [header, body = ""] = sealed.split("\n");
    const flipped = body.slice(0, -3) + (body.at(-3) === "A" ? "B" : "A") + body.slice(-2);
    const altered = join(dir, "altered.state");
    writeFileSync(altered, `${header}\n${flipped}\n`);
    expect(() => readSavedState(altered, "k-k-k-k-k-k")).toThrow(/wrong state key \(or the file was altered\)/);
    const newer = join(dir, "newer.state");
    writeFileSync(newer, `svc-state v9 something\n${body}\n`);
    expect(() => readSavedState(newer, "k-k-k-k-k-k")).toThrow(/unsupported state file format/);
  });

  it("a missing file is a STATE_ERROR naming it", () => {
    expect(() => readSavedState(join(dir, "nope.json"), undefined)).toThrow(expect.objectContaining({ code: "STATE_ERROR", message: expect.stringContaining("nope.json") }));
  });
});

describe("storage state contract", () => {
  it("accepts what collect writes and names the first bad field", () => {
    expect(parseStorageState(JSON.parse(STATE)).cookies[0]?.name).toBe("sid");
    expect(() => parseStorageState({ version: 1, cookies: [{ name: "a" }], origins: [] }, "state file")).toThrow(/invalid state file\.cookies\.0\.value/);
    expect(() => parseStorageState({ version: 1, cookies: [], origins: [{ origin: "javascript:x", localStorage: [], sessionStorage: [] }] })).toThrow(/invalid state\.origins\.0\.origin: an http\(s\) origin/);
    expect(() => parseStorageState({ version: 2, cookies: [], origins: [] })).toThrow(/invalid state\.version/);
  });
});
