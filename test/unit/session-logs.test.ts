import { describe, expect, it } from "vitest";
import { BoundedList, clipDeep, eventEntry } from "../../src/server/features/recorder-logs.js";

describe("session logs' bounds", () => {
  it("keep: oldest drops the oldest entries past the entry or byte cap and counts them", () => {
    const list = new BoundedList<number>({ maxEntries: 3, maxBytes: 100, keep: "oldest" });
    for (let i = 0; i < 5; i++) list.push(i, 10);
    expect(list.list()).toEqual([2, 3, 4]);
    expect(list.dropped).toBe(2);
    list.push(5, 90);
    expect(list.list()).toEqual([4, 5]);
    expect(list.bytes).toBe(100);
    expect(list.dropped).toBe(4);
    expect(list.push(6, 101)).toBe(false);
    expect(list.list()).toEqual([4, 5]);
    expect(list.dropped).toBe(5);
  });

  it("keep: first takes no more past a cap (a recording needs its first snapshot) and counts what it refused", () => {
    const list = new BoundedList<number>({ maxEntries: 2, maxBytes: 25, keep: "first" });
    expect([list.push(0, 10), list.push(1, 10), list.push(2, 1)]).toEqual([true, true, false]);
    expect(list.list()).toEqual([0, 1]);
    expect(list.dropped).toBe(1);
    list.clear();
    expect([list.size, list.bytes, list.dropped]).toEqual([0, 0, 3]);
  });

  it("compacts after many drops without losing order", () => {
    const list = new BoundedList<number>({ maxEntries: 10, maxBytes: 1e9, keep: "oldest" });
    for (let i = 0; i < 5000; i++) list.push(i, 1);
    expect(list.list()).toEqual([4990, 4991, 4992, 4993, 4994, 4995, 4996, 4997, 4998, 4999]);
    expect(list.size).toBe(10);
  });

  it("entries clip long strings, long arrays and deep nesting, and carry the SDK's fields", () => {
    expect(clipDeep("x".repeat(10), 4)).toBe("xxxx…[6 more characters]");
    expect((clipDeep(Array.from({ length: 150 }, (_, i) => i)) as unknown[]).length).toBe(100);
    let deep: unknown = "bottom";
    for (let i = 0; i < 12; i++) deep = { deep };
    expect(JSON.stringify(clipDeep(deep))).toContain("[nested too deeply]");
    const { entry, bytes } = eventEntry("s1", 2, "Page.navigatedWithinDocument", { frameId: "F", url: "http://x/#a" }, { frameId: "F" });
    expect(entry).toMatchObject({ method: "Page.navigatedWithinDocument", pageId: 2, sessionId: "s1", frameId: "F", request: { params: { frameId: "F", url: "http://x/#a" } } });
    expect(JSON.parse(entry.request!.rawBody)).toEqual({ method: "Page.navigatedWithinDocument", params: { frameId: "F", url: "http://x/#a" } });
    expect(bytes).toBeGreaterThan(JSON.stringify(entry).length / 2);
  });
});
