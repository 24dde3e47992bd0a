/**
 * The download folder as `svc downloads` reads it (src/browser/downloads.ts), no Chrome: records beside the
 * files, files svc never saw arrive, Chrome's partial files, sizes for people, and the dialog answer store.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { describeDownload, formatSize, listDownloads, pruneEmptyDownloads } from "../../src/browser/downloads.js";
import { sessionDialogAnswer } from "../../src/store/dialog-answer.js";

const dirs: string[] = [];
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), "svc-dl-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("listDownloads", () => {
  it("joins records with the files: URL and state from the record, size from the disk; unrecorded files and partial ones too", () => {
    const dir = fresh();
    mkdirSync(join(dir, ".svc-downloads"));
    writeFileSync(join(dir, "report (1).txt"), "12345");
    writeFileSync(join(dir, ".svc-downloads", "g1.json"), JSON.stringify({ guid: "g1", url: "http://x/r", suggestedFilename: "report.txt", state: "completed", filePath: join(dir, "report (1).txt"), startedAt: "2026-01-01T00:00:00.000Z" }));
    writeFileSync(join(dir, ".svc-downloads", "g2.json"), JSON.stringify({ guid: "g2", url: "http://x/c", suggestedFilename: "gone.zip", state: "canceled", receivedBytes: 3, startedAt: "2026-01-01T00:00:01.000Z" }));
    writeFileSync(join(dir, "by-hand.pdf"), "abc");
    writeFileSync(join(dir, "Unconfirmed 1.crdownload"), "ab");
    writeFileSync(join(dir, ".hidden"), "x");
    const list = listDownloads(dir);
    expect(list.find((d) => d.url === "http://x/r")).toMatchObject({ name: "report (1).txt", size: 5, state: "completed" });
    expect(list.find((d) => d.url === "http://x/c")).toMatchObject({ name: "gone.zip", size: 3, state: "canceled" });
    expect(list.find((d) => d.name === "by-hand.pdf")).toMatchObject({ size: 3, state: "completed" });
    expect(list.find((d) => d.name === "by-hand.pdf")?.url).toBeUndefined();
    expect(list.find((d) => d.name === "Unconfirmed 1.crdownload")).toMatchObject({ state: "inProgress" });
    expect(list.map((d) => d.name)).not.toContain(".hidden");
    expect(listDownloads(join(dir, "missing"))).toEqual([]);
  });

  it("prunes only a folder without downloads", () => {
    const empty = fresh();
    mkdirSync(join(empty, ".svc-downloads"));
    pruneEmptyDownloads(empty);
    expect(existsSync(empty)).toBe(false);
    const full = fresh();
    writeFileSync(join(full, "a.txt"), "a");
    pruneEmptyDownloads(full);
    expect(existsSync(join(full, "a.txt"))).toBe(true);
  });
});

it("sizes and the agent's line", () => {
  expect([formatSize(47), formatSize(2048), formatSize(300_000), formatSize(5 * 1024 * 1024)]).toEqual(["47 B", "2.0 KB", "293 KB", "5.0 MB"]);
  expect(describeDownload({ name: "r.txt", path: "/d/r.txt", size: 47, state: "completed" })).toBe("downloaded r.txt (47 B) to /d/r.txt");
});

it("a stored dialog answer is taken once", () => {
  const root = fresh();
  mkdirSync(join(root, "sessions"));
  const store = sessionDialogAnswer("abc", root);
  expect(store.take()).toBeUndefined();
  store.save({ accept: true, promptText: "Ada" });
  expect(store.peek()).toEqual({ accept: true, promptText: "Ada" });
  expect(store.take()).toEqual({ accept: true, promptText: "Ada" });
  expect(store.take()).toBeUndefined();
});
